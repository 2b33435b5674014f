"""A finished match's sentence as the pages build it from its ending (app/i18n/endings.py), for
the games' rules tests: ``said(game, outcome, lang)`` with the winners as "P0", "P1", ..."""

from __future__ import annotations

from app.api.finished.story import name_seats
from app.engine import Outcome
from app.i18n.endings import ending_text


def said(game: str, outcome: Outcome, lang: str = "en") -> str:
    text = ending_text(lang, game, str(outcome.ending), outcome.winners, outcome.details)
    assert text is not None, (game, outcome.ending, lang)
    return name_seats(text, {s: f"P{s}" for s in range(len(outcome.scores))})
