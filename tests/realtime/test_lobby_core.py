"""The lobby and the rooms nobody joined, in the room's core (docs/decisions/0044): a room is
listed while it is public, waiting and a person's page is in it; a room no connection ever
joined closes ``unjoined_seconds`` after it was made. Every time is named by the test."""

from __future__ import annotations

from app.engine import get_game
from app.games import load_all
from app.realtime.room import protocol as p
from app.realtime.room.core import RoomCore
from app.realtime.room.effects import Effect, Listed
from app.realtime.room.tokens import SeatTokens
from app.realtime.transport.connection import Connection
from app.realtime.transport.guard import SocketPolicy
from tests.realtime.core_helpers import at, join, only


def public_room(unjoined_seconds: float = 60.0) -> RoomCore:
    """A public Panika room made at ``at(0)``, its host added as the HTTP API adds them (no
    connection yet)."""
    load_all()
    core = RoomCore(code="ABCD", game=get_game("panika"), public=True, tokens=SeatTokens("k"),
                    now=at(0), policy=SocketPolicy(unjoined_seconds=unjoined_seconds))
    core.add_member("Ann")
    return core


def listed(effects: list[Effect]) -> list[bool]:
    return [effect.listed for effect in only(effects, Listed)]


def test_a_room_nobody_joined_closes_after_the_unjoined_time_and_not_before():
    core = public_room(unjoined_seconds=60)
    core.tick(at(30))
    core.tick(at(60))
    assert not core.state.closed
    core.tick(at(60.5))
    assert core.state.closed


def test_a_room_someone_joined_keeps_the_idle_time_after_they_left():
    core = public_room(unjoined_seconds=60)
    token = core.token_for(core.state.members[1])
    host = Connection()
    core.frame(host, p.Join(type="join", token=token), at(2))
    core.closed_connection(host, at(3))
    core.tick(at(120))
    assert not core.state.closed, "joined once: the room is someone's, it waits its idle time"
    core.tick(at(3 + 600.5))
    assert core.state.closed


def test_a_table_view_counts_as_a_join_and_a_refused_join_does_not():
    watched = public_room()
    watched.frame(Connection(), p.Join(type="join", watch=True), at(1))
    watched.tick(at(61))
    assert not watched.state.closed
    refused = public_room()
    refused.frame(Connection(), p.Join(type="join", token="not-a-token"), at(1))
    refused.frame(Connection(), p.Join(type="join"), at(2))  # no nickname: refused
    refused.tick(at(61))
    assert refused.state.closed


def test_a_room_is_listed_while_a_person_is_in_it_and_it_waits():
    core = public_room()
    token = core.token_for(core.state.members[1])
    assert not core.state.listed(), "made over HTTP, opened by no page: not shown"
    assert listed(core.tick(at(1))) == []
    ann = Connection()
    assert listed(core.frame(ann, p.Join(type="join", token=token), at(2))) == [True]
    assert core.state.listed()
    bob, effects = join(core, "Bob", t=3)
    assert listed(effects) == [], "only a change is told"
    assert listed(core.closed_connection(ann, at(4))) == []
    assert listed(core.closed_connection(bob, at(5))) == [False]
    assert not core.state.listed(), "everyone left: not shown to strangers"
    ann = Connection()
    assert listed(core.frame(ann, p.Join(type="join", token=token), at(6))) == [True]
    join(core, "Cem", t=7)
    assert listed(core.frame(ann, p.Start(type="start"), at(8))) == [False]
    assert core.state.status == "playing" and not core.state.listed()


def test_a_private_room_is_never_listed_and_bots_and_table_views_are_not_people():
    private = RoomCore(code="PRIV", game=get_game("panika"), public=False,
                       tokens=SeatTokens("k"), now=at(0))
    _, effects = join(private, "Pat")
    assert listed(effects) == [] and not private.state.listed()
    core = public_room()
    host = Connection()
    effects = core.frame(host, p.Join(type="join", token=core.token_for(core.state.members[1])), at(1))
    assert listed(effects) == [True]
    core.frame(host, p.AddBot(type="add_bot", difficulty="normal"), at(2))
    core.frame(Connection(), p.Join(type="join", watch=True), at(3))
    assert listed(core.closed_connection(host, at(4))) == [False]
    assert not core.state.listed()
