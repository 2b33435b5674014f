"""A takeover the database cannot serve is an expected outage (docs/decisions/0045): one warning
line with its cause, no traceback, and the sweeper's pass ends there; a failure nobody expected
keeps its traceback. The registry here has a stand-in cluster and database (no Redis, no
database), so each failure is exactly the one named."""

from __future__ import annotations

import logging
from typing import Any

from app.db.database import DatabaseUnavailable
from app.realtime.cluster.relay import Outage
from app.realtime.registry import RoomRegistry
from app.realtime.room.tokens import SeatTokens
from tests.live import run_async

LOGGER = "app.realtime.registry"


class Leases:
    """The leases of rooms whose node stopped: each one free to take, none ever recorded."""

    def __init__(self, stale: list[str]) -> None:
        self.stale_codes = stale
        self.released: list[tuple[tuple[str, ...], bool]] = []

    async def acquire(self, code: str) -> int:
        return 7

    async def release(self, codes: list[str], *, forget: bool) -> int:
        self.released.append((tuple(codes), forget))
        return len(codes)

    async def stale(self) -> list[str]:
        return self.stale_codes

    async def owners(self, codes: list[str]) -> dict[str, str | None]:
        return {code: None for code in codes}


class Cluster:
    def __init__(self, leases: Leases) -> None:
        self.leases = leases
        self.outage = Outage()
        self.lease_seconds = 6.0

    def hold(self, code: str) -> None:
        pass

    def unhold(self, code: str) -> None:
        pass


class FailingDatabase:
    """Every call fails with ``error``, as the handle raises it (``Database.run``)."""

    deadline = 5.0

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    async def run(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        raise self.error


def registry_over(error: Exception, stale: list[str]) -> tuple[RoomRegistry, Leases,
                                                                FailingDatabase]:
    leases, db = Leases(stale), FailingDatabase(error)
    registry = RoomRegistry(db=db, tokens=SeatTokens("k"), cluster=Cluster(leases))  # type: ignore[arg-type]
    registry.journal = object()  # type: ignore[assignment] # durable rooms: a takeover reads
    return registry, leases, db


def test_a_database_outage_during_takeovers_is_one_warning_without_a_traceback(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    outage = DatabaseUnavailable("the database did not answer within 5 s")
    registry, leases, _ = registry_over(outage, [])
    for code in ("ABCD", "EFGH"):  # two pages ask for rooms of a stopped node
        assert run_async(registry.take_over(code)) is None
    records = [r for r in caplog.records if r.name == LOGGER]
    assert [(r.levelno, r.exc_info) for r in records] == [(logging.WARNING, None),
                                                          (logging.DEBUG, None)]
    assert "could not read room ABCD to take it over (DatabaseUnavailable: the database did " \
           "not answer within 5 s)" in records[0].getMessage()
    assert "\n" not in records[0].getMessage()
    assert leases.released == [(("ABCD",), False), (("EFGH",), False)], "free for another try"


def test_the_sweepers_pass_ends_at_a_database_outage(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    outage = DatabaseUnavailable("the database did not answer within 5 s")
    registry, leases, db = registry_over(outage, ["ABCD", "EFGH", "JKMN"])
    run_async(registry._take_over_stale())  # the sweeper's pass, once a second
    run_async(registry._take_over_stale())
    # One read a pass, not one a room: the rooms after it would fail alike.
    assert db.calls == 2
    assert leases.released == [(("ABCD",), False), (("ABCD",), False)]
    levels = [r.levelno for r in caplog.records if r.name == LOGGER]
    assert levels == [logging.WARNING, logging.DEBUG]
    leases.stale_codes = []  # nothing left to take over: the next outage is news again
    run_async(registry._take_over_stale())
    leases.stale_codes = ["MNPQ"]
    run_async(registry._take_over_stale())
    levels = [r.levelno for r in caplog.records if r.name == LOGGER]
    assert levels == [logging.WARNING, logging.DEBUG, logging.WARNING]


def test_a_takeover_that_fails_for_what_nobody_expected_keeps_its_traceback(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    registry, leases, _ = registry_over(RuntimeError("a bug"), ["ABCD"])
    assert run_async(registry.take_over("ABCD")) is None
    (record,) = [r for r in caplog.records if r.name == LOGGER]
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert record.exc_info[0] is RuntimeError
    assert leases.released == [(("ABCD",), False)]
