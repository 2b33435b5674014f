"""The accessibility check of the browser tests (tests/e2e/axe.py) runs only axe-core's rules
whose impact is serious or critical, and still reports all it reported when it ran every rule:
a serious or critical finding fails a page, a minor or moderate one does not (those rules are
not run at all: docs/testing.md, "Keeping it fast")."""

from __future__ import annotations

import pytest

from tests.e2e.axe import serious_violations

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html lang="en"><head><title>axe</title></head><body>
<main><h1>Check</h1>{body}</main></body></html>"""

EVERY_RULE = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
  .map((v) => v.impact + ": " + v.id)"""


def _findings(new_page, body: str) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    page = new_page()
    page.set_content(PAGE.format(body=body))
    checked = serious_violations(page)
    return checked, page.evaluate(EVERY_RULE)


def test_the_check_finds_every_serious_or_critical_finding_of_all_rules(new_page) -> None:  # type: ignore[no-untyped-def]
    body = ('<button></button><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
            '<p style="color:#777;background:#888">faint</p><h3>skipped a level</h3>'
            '')
    checked, every = _findings(new_page, body)
    serious = sorted(f for f in every if f.startswith(("serious", "critical")))
    assert {"critical: button-name", "critical: image-alt", "serious: color-contrast"} <= set(serious)
    assert sorted(line.split(" (")[0] for line in checked) == serious
    assert any(f.startswith(("moderate", "minor")) for f in every)  # found by all rules only


def test_a_page_with_only_minor_findings_passes(new_page) -> None:  # type: ignore[no-untyped-def]
    checked, every = _findings(new_page, "<h3>skipped a level</h3>")
    assert every and all(f.startswith(("moderate", "minor")) for f in every), every
    assert checked == []
