"""What Panika's state keeps secret (docs/games/panika.md, "The revealed view"), read from the
state itself, for tests/engine/test_revealed_view.py."""

from typing import Any

from app.games.panika.cards import CARD_JSON


def secrets(state: Any) -> dict[str, Any]:
    return {"burst_at": state.burst_at,
            "hands": [[CARD_JSON[c] for c in hand] for hand in state.hands],
            "piles": [[CARD_JSON[c] for c in pile] for pile in state.piles]}
