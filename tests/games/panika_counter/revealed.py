"""What the counter's state keeps secret: this round's burst number (docs/games/
panika-counter.md), for tests/engine/test_revealed_view.py."""

from typing import Any


def secrets(state: Any) -> dict[str, Any]:
    return {"burst_at": state.burst_at}
