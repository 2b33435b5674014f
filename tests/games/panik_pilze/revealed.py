"""What Panik Pilze's state keeps secret (docs/games/panik-pilze.md, "The revealed view"): every
hand, the piles and the display's down sides, for tests/engine/test_revealed_view.py."""

from typing import Any

from app.games.panik_pilze.cards import ACTION_JSON, other_side


def secrets(state: Any) -> dict[str, Any]:
    return {"hands": [[ACTION_JSON[c] for c in hand] for hand in state.hands],
            "pile": [{"up": state.up[c], "down": other_side(c, state.up[c])} for c in state.pile],
            "action_pile": [ACTION_JSON[c] for c in state.action_pile],
            "downs": [other_side(c, state.up[c]) for c in state.display]}


def shown(view: dict[str, Any]) -> dict[str, Any]:
    """The same secrets as the revealed view shows them (the down sides on the display)."""
    return {**view["revealed"], "downs": [d["down"] for d in view["display"]]}


def public(key: str, value: Any) -> Any:
    """A field of the revealed view as the public view has it: the display without its down
    sides."""
    return [{"id": d["id"], "up": d["up"]} for d in value] if key == "display" else value
