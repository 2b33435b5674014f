"""The room's shape (docs/architecture.md, "The room's core"): the actor holds its core and
no part inherits from another (docs/decisions/0007), and a room's state is reached one way,
as ``room.state.<field>`` (``RoomState``), never through attributes that forward it."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from app.realtime.actor import Room
from app.realtime.room.core import RoomCore
from app.realtime.room.state import RoomState

REALTIME = Path(__file__).resolve().parents[2] / "app" / "realtime"


def _realtime_classes() -> dict[str, str]:
    """Every class defined in app/realtime, by name, with the module that defines it."""
    found = {}
    for path in REALTIME.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                found[node.name] = str(path.relative_to(REALTIME))
    return found


def test_the_actor_and_the_cores_parts_inherit_from_no_class_of_another_module() -> None:
    """The actor (actor.py) and the core's parts (room/) are composed: each holds what it
    uses, so no behaviour of one is found by looking it up in another's class."""
    defined = _realtime_classes()
    inherited = []
    for path in [REALTIME / "actor.py", *sorted((REALTIME / "room").glob("*.py"))]:
        here = str(path.relative_to(REALTIME))
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else None
                if name in defined and defined[name] != here:
                    inherited.append(f"{here}: {node.name}({name})")
    assert inherited == []
    assert not issubclass(Room, RoomCore)


def test_a_rooms_state_is_reached_one_way() -> None:
    """Neither the core nor the actor forwards a field of the state: ``core.state.status``,
    ``room.state.status``, never ``room.status``."""
    fields = {f.name for f in dataclasses.fields(RoomState)}
    assert fields & set(dir(RoomCore)) == set()
    assert fields & set(dir(Room)) == set()
