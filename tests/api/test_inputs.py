"""Inputs never reach the database unchecked (issue 7, item 12): ids beyond 32 or 64 bits, NUL
characters and other odd game ids answer 404 or 422, never a 500, on SQLite and PostgreSQL; a
property test throws arbitrary paths and query strings at the matches and leaderboard routes."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.db.matches import MatchRecord, PlayerResult, save_match
from tests.live import LiveServer


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres",
                                                                marks=pytest.mark.postgres)])
def live(request, tmp_path_factory):  # type: ignore[no-untyped-def]
    """One server per backend for the module, with one stored match."""
    tmp = tmp_path_factory.mktemp("inputs")
    url = ""
    if request.param == "postgres":
        from tests.db.conftest import _libpq
        from tests.conftest import POSTGRES_URL, REQUIRE_POSTGRES
        import psycopg
        from sqlalchemy.engine import make_url

        name = f"panic_party_inputs_{secrets.token_hex(6)}"
        try:
            with psycopg.connect(_libpq(POSTGRES_URL), autocommit=True, connect_timeout=3) as c:
                c.execute(f'CREATE DATABASE "{name}"')
        except psycopg.OperationalError as exc:
            if REQUIRE_POSTGRES:
                pytest.fail(f"PostgreSQL is required but unreachable: {exc}")
            pytest.skip(f"PostgreSQL unreachable: {exc}")
        url = make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
        request.addfinalizer(lambda: _drop(name))
    with LiveServer(tmp / "var", database_url=url) as server:
        now = datetime.now(UTC)
        save_match(server.app.state.db, record=MatchRecord(
            game="panika", room_code="ABCD", options={}, seed="ab" * 32,
            seed_hash=secrets.token_hex(32), started_at=now - timedelta(minutes=3), ended_at=now,
            summary="", players=[PlayerResult(0, "Ann", 0, 1, True)]))
        yield server


def _drop(name: str) -> None:
    import psycopg

    from tests.conftest import POSTGRES_URL
    from tests.db.conftest import _libpq

    with psycopg.connect(_libpq(POSTGRES_URL), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def http(live):  # type: ignore[no-untyped-def]
    with live.http() as client:
        yield client


@pytest.mark.parametrize("match_id", ["0", "-1", str(2**31), str(2**32 + 1), str(2**63),
                                      str(2**64 + 7), "-" + str(2**63 + 1), "9" * 40])
def test_an_id_beyond_the_column_is_404(http, match_id):
    for path in (f"/api/matches/{match_id}", f"/matches/{match_id}"):
        assert http.get(path).status_code == 404, path


@pytest.mark.parametrize("match_id", ["abc", "1.5", "1e3", "0x10", "%20", "\u0661"])
def test_an_id_that_is_not_a_number_is_404_not_422(http, match_id):
    """docs/protocol.md, "HTTP API": a match id that is not a positive 32-bit integer is no
    match (404), on the JSON route as on the page."""
    quoted = quote(match_id, safe="%")
    for path in (f"/api/matches/{quoted}", f"/matches/{quoted}"):
        assert http.get(path).status_code == 404, path
    assert "no match" in http.get(f"/api/matches/{quoted}").json()["detail"]


@pytest.mark.parametrize("game", ["\x00", "panika\x00", "pan%ika", "x" * 33, "Panika", " ", "é",
                                  "panika' OR '1'='1"])
def test_an_odd_game_id_is_422_on_the_json_routes(http, game):
    for path in ("/api/matches", "/api/leaderboard"):
        response = http.get(path, params={"game": game})
        assert response.status_code == 422, (path, game)
        assert "game" in str(response.json()["detail"])
    page = http.get("/leaderboard", params={"game": game})
    assert page.status_code in (200, 404, 422) and "Traceback" not in page.text


def test_good_inputs_still_work(http):
    (match,) = http.get("/api/matches", params={"game": "panika"}).json()
    assert http.get(f"/api/matches/{match['id']}").json()["id"] == match["id"]
    assert http.get("/api/leaderboard", params={"game": "panika"}).json()[0]["nickname"] == "Ann"
    assert http.get("/api/matches", params={"game": "panic_lab"}).json() == []


segment = st.one_of(
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.text(max_size=40),
    st.sampled_from(["%00", "1e9", "0x10", "1.5", "+1", " 1", "١٢", "NaN"]),
)
query_value = st.one_of(st.text(max_size=40), st.integers().map(str),
                        st.sampled_from(["panika", "\x00", "panic_lab", ""]))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/matches/{}", "/matches/{}"]), value=segment,
       game=query_value, limit=query_value)
def test_no_input_to_the_matches_routes_is_a_500(http, path, value, game, limit):
    response = http.get(path.format(quote(value, safe="")), params={"game": game})
    assert response.status_code < 500, (path, value, response.text[:300])
    for listing in ("/api/matches", "/api/leaderboard", "/leaderboard", "/matches"):
        response = http.get(listing, params={"game": game, "limit": limit})
        assert response.status_code < 500, (listing, game, limit, response.text[:300])
