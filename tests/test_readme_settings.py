"""The README's "Configuration" table names every setting the site reads (app/config.py), with
its default: an operator finds there what can be set, and a setting added later without its row
fails here."""

from __future__ import annotations

import re
from pathlib import Path

from app.config import Settings

README = Path(__file__).resolve().parents[1] / "README.md"


def configuration_rows() -> list[tuple[list[str], str]]:
    """Each row of the table: the variables it names, and its default column."""
    section = README.read_text().split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            rows.append((re.findall(r"`([A-Z_]+)`", cells[0]), cells[1]))
    return rows


def test_every_setting_has_a_row_in_the_readme() -> None:
    named = {name for names, _ in configuration_rows() for name in names}
    missing = [name.upper() for name in Settings.model_fields if name.upper() not in named]
    assert missing == [], f"README's Configuration table lacks {missing}"
    assert named <= {name.upper() for name in Settings.model_fields}, "a row names no setting"


def test_the_defaults_the_readme_gives_as_numbers_or_booleans_are_the_codes() -> None:
    fields = Settings.model_fields
    checked = 0
    for names, column in configuration_rows():
        defaults = re.findall(r"`([^`]+)`", column)
        if len(defaults) != len(names):
            continue  # a default said in words ("unset", "found at start")
        for name, default in zip(names, defaults):
            value = fields[name.lower()].default
            if isinstance(value, bool):
                assert default == str(value).lower(), name
            elif isinstance(value, (int, float)):
                assert float(default) == float(value), name
            else:
                continue
            checked += 1
    assert checked >= 15
