"""What Panic Lab's state keeps secret (docs/games/panic-lab.md, "The revealed view"): the
search's answer and the claims, for tests/engine/test_revealed_view.py."""

from typing import Any


def secrets(state: Any) -> dict[str, Any]:
    return {"answer": None if state.solution is None else state.solution.answer,
            "claims": [claim.tile for claim in state.claims]}


def shown(view: dict[str, Any]) -> dict[str, Any]:
    """The same secrets as the revealed view shows them."""
    return {"answer": view["revealed"]["answer"],
            "claims": [c["tile"] for c in view["revealed"]["claims"]]}
