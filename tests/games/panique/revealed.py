"""Panique keeps no secret: everything is on the board (docs/games/panique.md), for
tests/engine/test_revealed_view.py."""

from typing import Any


def secrets(state: Any) -> dict[str, Any]:
    return {}
