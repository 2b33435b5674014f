"""What Higher or Lower's state keeps secret: the deck's order, for
tests/engine/test_revealed_view.py."""

from typing import Any


def secrets(state: Any) -> dict[str, Any]:
    return {"deck": list(state.deck)}
