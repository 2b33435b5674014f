"""Events refer to seats structurally: the server never pastes a nickname into event text, and
a match's sentence is built from its ending with the names pasted in one pass (docs/protocol.md,
"Events"; docs/decisions/0058)."""

from __future__ import annotations

from app.api.finished.story import summary_text
from tests.realtime.helpers import (
    PanikaTable,
    room_of,
    start_panika,
    wait_frame,
    wait_type,
)


def test_marker_nicknames_swap_nothing(fast_server, open_fast):
    # Seat 0 is called "{seat:1}" and seat 1 is called "{seat:0}".
    code, clients = room_of(fast_server, open_fast, "panika", 2, names=("{seat:1}", "{seat:0}"))
    states = start_panika(clients)
    assert [c.seat for c in clients] == [0, 1]
    begins = next(e for e in states[0]["events"] if e["kind"] == "start")
    assert "{seat:" not in begins["text"]
    PanikaTable(clients).play_to_end()
    end = wait_frame(clients[0], lambda f: f["type"] == "room" and f["status"] == "finished")
    result = end["result"]
    winners = [p for p in result["players"] if p["winner"]]
    by_seat = {p["seat"]: p["nickname"] for p in result["players"]}
    assert by_seat == {0: "{seat:1}", 1: "{seat:0}"}
    # The sentence names the real winners: with one, exactly "<their name> wins: no cards left".
    match = {"game": "panika", "ending": result["ending"], "details": result["details"],
             "players": result["players"]}
    if len(winners) == 1:
        assert summary_text(match, "en") == f"{winners[0]['nickname']} wins: no cards left"
    # Every event on the wire keeps the engine's markers; the win event's marker is its seat.
    events = [e for f in clients[0].frames if f["type"] == "state" for e in f["events"]]
    wins = [e for e in events if e["kind"] == "win"]
    assert wins and all(e["text"] == "{seat:%d} wins!" % e["seat"] for e in wins)
    assert {e["seat"] for e in wins} == {p["seat"] for p in winners}


def test_history_keeps_markers_for_a_late_joiner(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2, names=("{seat:1}", "Bob"))
    start_panika(clients)
    table = PanikaTable(clients)
    for _ in range(3):
        table.step()
    late = open_client(code)
    late.join(nickname="Late")
    history = wait_type(late, "history")
    texts = [e["text"] for e in history["events"]]
    assert any("{seat:" in t for t in texts), texts
    assert not any("Bob" in t for t in texts), texts


def test_the_sentence_is_rendered_in_one_pass():
    players = [{"seat": 0, "nickname": "{seat:2}", "winner": True},
               {"seat": 1, "nickname": "{seat:0}", "winner": True},
               {"seat": 2, "nickname": "Cy", "winner": False}]
    match = {"game": "panika", "ending": "cards_gone", "details": {}, "players": players}
    assert summary_text(match, "en") == "{seat:2} and {seat:0} win: no cards left"


def test_state_and_room_frames_carry_the_match_number(server, open_client):
    code, clients = room_of(server, open_client, "panika", 2)
    first_room = wait_type(clients[0], "room")
    assert first_room["match_number"] == 0
    states = start_panika(clients)
    assert {s["match"] for s in states} == {1}
    assert wait_type(clients[0], "room", status="playing")["match_number"] == 1


def test_the_rooms_own_start_event_opens_every_match_as_the_protocol_says():
    """Issue 25, item 13: each match's first state frame (version 0) carries the room's own
    event ``{"text": "A new match of <title> begins.", "seat": null, "kind": "start"}`` (no
    ``data``), kept in the history; docs/protocol.md ("Events") describes it."""
    from pathlib import Path

    from app.realtime.room import protocol as p
    from tests.realtime.core_helpers import at, join, of_type, room

    core = room("panika")
    host, _ = join(core, "Ann")
    join(core, "Bob")
    effects = core.frame(host, p.Start(type="start"), at(1))
    (state,) = of_type(effects, host, "state")
    assert state["version"] == 0
    assert state["events"] == [{"text": "A new match of Panika begins.", "seat": None,
                                "kind": "start"}]
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    events = doc[doc.index("### Events"):doc.index("### Nicknames and chat")]
    assert '"kind": "start"' in events and "A new match of" in events
