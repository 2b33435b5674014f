"""The page's patch function (static/js/delta.js) agrees with the server's (app/realtime/delta.py):
for random pairs of JSON values, Node applies the server's ``diff`` and gets the new value, and
the page's tracker asks for the whole state again when a patch names another base."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from app.realtime.delta import diff
from tests.conftest import REQUIRE_BROWSER

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.fixture(autouse=True)
def _need_node() -> None:
    """Node.js runs static/js here; CI has it (npm installs axe-core for the browser tests), so
    with PANIC_PARTY_REQUIRE_BROWSER its absence fails rather than skips."""
    if NODE is None:
        if REQUIRE_BROWSER:
            pytest.fail("Node.js is required (static/js is run with it) but not installed")
        pytest.skip("needs Node.js to run static/js")


def _value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randrange(-3, 4)
    if kind == 2:
        return rng.choice(["", "a", "b"])
    if kind == 3:
        return rng.choice([0.5, 2.5])
    if kind in (4, 5):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {rng.choice(["a", "b", "c/d", "e~", ""]): _value(rng, depth + 1)
            for _ in range(rng.randrange(5))}


def _mutate(rng: random.Random, value):
    if isinstance(value, dict) and value and rng.random() < 0.7:
        out = dict(value)
        key = rng.choice(list(out))
        out[key] = _mutate(rng, out[key])
        if rng.random() < 0.3:
            out[rng.choice(["a", "b", "c/d", "e~", ""])] = _value(rng, 2)
        return out
    if isinstance(value, list) and value and rng.random() < 0.7:
        out = list(value)
        i = rng.randrange(len(out))
        choice = rng.randrange(3)
        if choice == 0:
            out[i] = _mutate(rng, out[i])
        elif choice == 1:
            del out[i]
        else:
            out.insert(i, _value(rng, 2))
        return out
    return _value(rng, 1)


def _run_node(tmp_path: Path, script: str, data) -> object:
    shutil.copy(ROOT / "static/js/delta.js", tmp_path / "delta.mjs")
    (tmp_path / "data.json").write_text(json.dumps(data))
    (tmp_path / "main.mjs").write_text(script)
    out = subprocess.run([NODE, str(tmp_path / "main.mjs")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def test_the_page_applies_the_servers_patches(tmp_path):
    rng = random.Random(11)
    cases = []
    for _ in range(400):
        old = {"view": _value(rng), "legal": _value(rng), "version": 1}
        new = _mutate(rng, old) if rng.random() < 0.8 else _value(rng)
        cases.append({"old": old, "ops": diff(old, new), "new": new})
    script = """
import { readFileSync } from "node:fs";
import { applyPatch } from "./delta.mjs";
const cases = JSON.parse(readFileSync("data.json", "utf8"));
const out = cases.map((c) => {
  const before = JSON.stringify(c.old);
  const got = applyPatch(c.old, c.ops);
  return { same: JSON.stringify(got) === JSON.stringify(c.new), untouched: JSON.stringify(c.old) === before };
});
console.log(JSON.stringify(out));
"""
    results = _run_node(tmp_path, script, cases)
    assert len(results) == len(cases)
    assert all(r["same"] for r in results), [c for c, r in zip(cases, results) if not r["same"]][:2]
    assert all(r["untouched"] for r in results)


def test_the_tracker_rebuilds_whole_frames_and_refuses_a_wrong_base(tmp_path):
    f0 = {"type": "state", "match": 1, "version": 0, "seat": 0, "view": {"hand": [1, 2]}}
    f1 = {**f0, "version": 1, "view": {"hand": [2]}}
    f2 = {**f0, "version": 2, "view": {"hand": [2, 3]}}
    frames = [
        f0,
        {"type": "state", "base": [1, 0], "patch": diff(f0, f1)},
        {"type": "state", "base": [1, 5], "patch": diff(f1, f2)},  # not what it holds
        {"type": "state", "base": [1, 1], "patch": diff(f1, f2)},  # dropped: waiting
        f2,
    ]
    script = """
import { readFileSync } from "node:fs";
import { StateTracker } from "./delta.mjs";
const t = new StateTracker();
const out = JSON.parse(readFileSync("data.json", "utf8")).map((f) => t.rebuild(f));
console.log(JSON.stringify(out));
"""
    assert _run_node(tmp_path, script, frames) == [f0, f1, None, None, f2]
