"""The rules page quotes every entry of every table and names every space, from the engine's
own data (docs/games/panique.md, "Engine interface notes")."""

from __future__ import annotations

import html

from app.games.panique.board import SPACES
from app.games.panique.tables import ENTRIES, TABLES


def test_rules_page_shows_the_board_and_every_table_entry(server) -> None:
    with server.http() as http:
        page = html.unescape(http.get("/games/panique/rules").text)
    for space in SPACES:
        if not space.blank:
            assert space.name in page and space.text in page
    for table in TABLES.values():
        assert f'id="table-{table.id}"' in page and table.title in page
    for entry in ENTRIES.values():
        assert entry.text in page, entry.id
    words = " ".join(page.split())
    assert "Every roll has 10 seconds" in words and "with 20 seconds (a room option, 5 to 60)" in words
