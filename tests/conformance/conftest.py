"""The example game's catalog entries and computer players, for the tests that need them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app import bots
from app.bots import RandomLegalBot
from app.i18n import catalog

from .example_game import CATALOG
from .example_game import GAME as EXAMPLE


@pytest.fixture(autouse=True)
def example_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """High Card's wordings, as a new game adds them to app/i18n/<lang>.json."""
    for lang, entries in CATALOG.items():
        for key, text in entries.items():
            monkeypatch.setitem(catalog(lang), key, text)


@pytest.fixture
def example_bots() -> Iterator[None]:
    """High Card's computer players: the random legal bot."""
    bots.register_policy(EXAMPLE.id, RandomLegalBot)
    try:
        yield
    finally:
        bots.unregister_policy(EXAMPLE.id)
