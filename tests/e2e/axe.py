"""axe-core in the page under test: zero serious or critical accessibility violations.

axe-core comes from the npm registry (``python3 -m app test`` installs it into
``.cache/npm``; this module installs it the same way when it is missing and npm exists). No CDN:
the script is read from disk and injected into the page.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NPM_PREFIX = ROOT / ".cache" / "npm"
AXE_JS = NPM_PREFIX / "node_modules" / "axe-core" / "axe.min.js"
AXE_PACKAGE = "axe-core@4"


def install_axe() -> Path:
    """``npm install --prefix .cache/npm axe-core@4`` when the file is missing (once: the
    test processes of a parallel run take a lock on it)."""
    if not AXE_JS.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("axe-core is missing and npm is not installed: install Node.js and npm")
        NPM_PREFIX.mkdir(parents=True, exist_ok=True)
        with open(NPM_PREFIX / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not AXE_JS.exists():
                subprocess.run([npm, "install", "--prefix", str(NPM_PREFIX), "--no-audit",
                                "--no-fund", AXE_PACKAGE], check=True, capture_output=True)
    return AXE_JS


@cache
def axe_source() -> str:
    return install_axe().read_text(encoding="utf-8")


_RUN = """async (exclude) => {
  const context = exclude.length ? { exclude: exclude.map((s) => [s]) } : document;
  const rules = Object.fromEntries(axe._audit.rules
    .filter((r) => r.impact === "minor" || r.impact === "moderate")
    .map((r) => [r.id, { enabled: false }]));
  const result = await axe.run(context, { resultTypes: ["violations"], rules });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact}: ${v.id} (${v.help}) at ` +
      v.nodes.slice(0, 4).map((n) => n.target.join(" ") + (n.failureSummary ? ` [${n.failureSummary.replace(/\\s+/g, " ").slice(0, 160)}]` : "")).join("; "));
}"""


def serious_violations(page, exclude: tuple[str, ...] = ()) -> list[str]:  # type: ignore[no-untyped-def]
    """axe-core's serious and critical violations in the page as it is now. The rules whose
    impact is minor or moderate are not run: axe gives every violation of a rule that has an
    impact that impact (its ``finalizeRuleResult``), so they could only find what is not
    reported, and they were about a quarter of each run (the landmark and region rules walk
    the whole page; docs/decisions/0048)."""
    load_axe(page)
    return page.evaluate(_RUN, list(exclude))


def load_axe(page) -> None:  # type: ignore[no-untyped-def]
    """axe-core in ``page`` (once per document)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated as a script by the browser's debugging protocol, which the page's
        # Content-Security-Policy does not govern; an inline <script> it refuses.
        page.evaluate(axe_source())


def assert_accessible(page, label: str = "", exclude: tuple[str, ...] = ()) -> None:  # type: ignore[no-untyped-def]
    """axe-core finds no serious or critical violation in the page as it is now."""
    found = serious_violations(page, exclude)
    assert not found, f"axe-core on {label or page.url}:\n" + "\n".join(found)
