"""The site's code cites what its reader can open: a decision record (docs/decisions/), a page
of docs/, a test, or the reason in plain words; never an issue number, which nobody reading a
clone can look up (docs/decisions/0055)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("app", "static", "templates")
TEXT = {".py", ".js", ".css", ".html", ".json", ".svg", ".txt", ".md", ".webmanifest"}
ISSUE = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
""""issue 7", "Issue 25, item 4", "issues 22", "issue #23"."""


def citations(text: str) -> list[str]:
    """The issue citations in ``text``, one per line that has one."""
    return [line.strip() for line in text.splitlines() if ISSUE.search(line)]


def test_the_pattern_finds_the_forms_an_issue_is_cited_in() -> None:
    assert citations("x (issue 7, item 5)\n# Issue 25\n/* issue #23 */\nissues 22 and 23\n") == [
        "x (issue 7, item 5)", "# Issue 25", "/* issue #23 */", "issues 22 and 23"]
    assert citations('color: #14101f; tokens.issue(claim); UTS #39; issued 3') == []


def test_no_file_of_the_site_cites_an_issue_number() -> None:
    found = [f"{path.relative_to(ROOT)}: {line}"
             for folder in PRODUCT for path in sorted((ROOT / folder).rglob("*"))
             if path.suffix in TEXT and "__pycache__" not in path.parts
             for line in citations(path.read_text(errors="replace"))]
    assert found == []
