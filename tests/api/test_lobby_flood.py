"""The lobby cannot be flooded (docs/decisions/0044): a room made over HTTP is listed only while
a person's page is in it, and one that no page joined closes after ``ROOM_UNJOINED_SECONDS``,
which also frees its place among the process's rooms (``MAX_ROOMS``)."""

from __future__ import annotations

from tests.clock import wait_until
from tests.live import LiveServer


def test_a_flood_of_rooms_nobody_opened_does_not_show_in_the_lobby(server, open_client):
    with server.http() as http:
        made = [http.post("/api/rooms", json={"game": "panika", "nickname": f"Spam {n}",
                                                "public": True})
                for n in range(30)]
        assert [r.status_code for r in made] == [201] * 30, "the creation limit is not the point"
        assert http.get("/api/rooms").json() == []
        assert "Spam" not in http.get("/").text, "the lobby page lists what the API lists"
        # The one room whose host's page is in it is listed; it leaves when the page leaves.
        room = made[7].json()
        host = open_client(room["code"])
        host.join(token=room["token"])
        assert [r["code"] for r in http.get("/api/rooms").json()] == [room["code"]]
        host.close()
        wait_until(lambda: http.get("/api/rooms").json() == [], what="the room leaving the lobby")


def test_a_room_nobody_joined_closes_and_frees_its_place(tmp_path):
    """A process that may hold one room: the room nobody opened closes by itself, and another
    can be made. (Whether a second room is refused before the close depends on how fast the
    machine makes it, so it is not asked here.)"""
    with LiveServer(tmp_path / "var", ping_interval_seconds=0.1, room_unjoined_seconds=0.3,
                    max_rooms=1) as live, live.http() as http:
        first = http.post("/api/rooms", json={"game": "panika", "nickname": "Ann"})
        assert first.status_code == 201
        code = first.json()["code"]
        wait_until(lambda: live.registry.get(code) is None, what="the unjoined room's close")
        assert http.get(f"/api/rooms/{code}").status_code == 404
        assert http.post("/api/rooms", json={"game": "panika", "nickname": "Cem"}).status_code \
            == 201, "its place is free again"
