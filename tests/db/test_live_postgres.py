"""The whole server on PostgreSQL: migrated at start-up, healthy, and a finished match played
over WebSockets is stored there."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.db.database import Database
from app.db.matches import get_match, list_matches
from app.db.models import Match
from tests.live import Client, LiveServer
from tests.realtime.helpers import PanikaTable, room_of, start_panika, wait_frame


@pytest.mark.postgres
def test_live_server_stores_a_finished_match_in_postgres(tmp_path, postgres_url):
    opened: list[Client] = []

    def open_client(code: str) -> Client:
        opened.append(Client(live, code))
        return opened[-1]

    with LiveServer(tmp_path / "var", database_url=postgres_url, ping_interval_seconds=0.5,
                    ws_messages_per_second=100_000) as live:
        try:
            with live.http() as http:
                health = http.get("/healthz")
                assert health.status_code == 200 and health.json()["database"] is True
            code, clients = room_of(live, open_client, "panika", 2)
            start_panika(clients)
            PanikaTable(clients).play_to_end()
            saved = wait_frame(clients[0], lambda f: f["type"] == "room"
                               and f["match_id"] is not None, timeout=10)
            with live.http() as http:
                api = http.get(f"/api/matches/{saved['match_id']}").json()
        finally:
            for c in opened:
                c.close()
    assert not (tmp_path / "var" / "panic-party.sqlite3").exists()
    db = Database(postgres_url)
    try:
        stored = get_match(db, match_id=saved["match_id"])
        assert stored == api  # the chance steps and the events' digest recorded with it
        assert api["draws"][0]["op"] == "shuffle"  # the deck (docs/fairness.md)
        assert api["draws"][0]["name"] == "deck" and len(api["events_digest"]) == 64
        assert "room_code" not in stored and stored["seed"] == saved["result"]["seed"]
        with db.engine.connect() as connection:  # stored for the operators, never shown
            assert connection.scalar(select(Match.room_code)
                                     .where(Match.id == saved["match_id"])) == code
        assert [p["nickname"] for p in stored["players"]] == ["Ann", "Bob"]
        assert [m["id"] for m in list_matches(db)] == [saved["match_id"]]
    finally:
        db.dispose()
