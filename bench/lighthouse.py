"""Lighthouse's mobile audit of the lobby, a room page and (given one) a match page.

    .venv/bin/python bench/lighthouse.py                      # a server of its own, on SQLite
    .venv/bin/python bench/lighthouse.py --match 12           # a finished match's page as well
    .venv/bin/python bench/lighthouse.py --long-match         # and a long Panika match's, made here
    .venv/bin/python bench/lighthouse.py --runs 5             # each page's median of 5 runs
    .venv/bin/python bench/lighthouse.py --url http://127.0.0.1:8000 --json lighthouse.jsonl

Starts the real app on a free 127.0.0.1 port (uvicorn, a fresh ``VAR_DIR`` in a temporary
folder) unless ``--url`` names a running one, creates a room (host "Ann", Panika) for the room
page, and runs Lighthouse on each page: its default mobile emulation (a mid-range phone, a
throttled 4G network), the four categories, each page in a fresh Chromium profile, so every
visit is a first visit. Prints a Markdown table: the four scores, the first visit's bytes
transferred (Lighthouse's ``total-byte-weight``), the paint and layout-shift metrics, and every
audit of the four categories that did not pass. ``--runs N`` audits each page N times and
keeps its median run by performance (the other three scores hardly move; the performance
score moves with the machine's load). ``--json FILE`` appends one line per page. A match page
is fetched once before its audits: the server builds a finished match's story and replay once
and keeps them (docs/decisions/0039), and the audit is of the page, not of that one-time build.
Each run of the room page has a room of its own (a room nobody joins closes after a while).

Lighthouse comes from the npm registry into ``.cache/npm`` (``--install`` installs it there
when it is missing): version 12.2.3, the last that runs on Node 20 (13 wants Node 22). Chromium
is Debian's (``CHROME_PATH``, default /usr/bin/chromium), headless, without a sandbox. A run
takes about 20 s a page on a quiet 2-core machine; the scores of a loaded machine are lower
(Lighthouse's simulated throttling starts from what it measured). docs/web.md keeps the results.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NPM_PREFIX = ROOT / ".cache" / "npm"
LIGHTHOUSE = NPM_PREFIX / "node_modules" / ".bin" / "lighthouse"
LIGHTHOUSE_VERSION = "12.2.3"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
METRICS = {"first-contentful-paint": "FCP", "largest-contentful-paint": "LCP",
           "total-blocking-time": "TBT", "cumulative-layout-shift": "CLS", "speed-index": "SI"}
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"


def install() -> None:
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed to install Lighthouse")
    subprocess.run([npm, "install", "--prefix", str(NPM_PREFIX), "--no-audit", "--no-fund",
                    "-E", f"lighthouse@{LIGHTHOUSE_VERSION}"], check=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(var_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The real app in a process of its own; returns it and its base URL once it answers."""
    port = free_port()
    env = {**os.environ, "VAR_DIR": str(var_dir), "LOG_LEVEL": "warning"}
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--host",
         "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit("the server exited at start")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return process, base
        except OSError:
            time.sleep(0.2)
    process.terminate()
    sys.exit("the server did not answer within 60 s")


def create_room(base: str) -> str:
    request = urllib.request.Request(
        f"{base}/api/rooms", data=json.dumps({"game": "panika", "nickname": "Ann"}).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(json.load(answer)["code"])


def store_long_match(var_dir: Path) -> int:
    """A whole Panika match of three computer players (about 280 moves: three pages of its move
    list), stored in the server's own database as a room stores it; its id."""
    sys.path.insert(0, str(ROOT))
    from app.db.database import Database
    from tests.finished_matches import finished_match, store

    seed = bytes([62]) * 32
    players, log, outcome = finished_match("panika", seed)
    db = Database(f"sqlite:///{var_dir / 'panic-party.sqlite3'}")
    try:
        return store(db, "panika", seed, players, log, outcome)
    finally:
        db.dispose()


def audit(url: str, out: Path) -> dict[str, Any]:
    """One Lighthouse run of ``url`` (mobile, the four categories); its report as JSON."""
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    command = [str(LIGHTHOUSE), url, "--output=json", f"--output-path={out}",
               f"--chrome-flags={CHROME_FLAGS}", "--quiet",
               f"--only-categories={','.join(CATEGORIES)}"]
    # A run Lighthouse gives up (on a loaded machine it now and then loses its Chromium) is
    # tried once more before the script stops.
    if subprocess.run(command, env=env).returncode != 0:
        subprocess.run(command, check=True, env=env)
    return json.loads(out.read_text())


def summary(name: str, report: dict[str, Any]) -> dict[str, Any]:
    """What the table shows of one report."""
    audits = report["audits"]
    failing = sorted(
        f"{key} ({a.get('displayValue') or a['score']})" for key, a in audits.items()
        if a.get("score") is not None and a["score"] < 1
        and a.get("scoreDisplayMode") in ("binary", "numeric", "metricSavings")
        and key not in METRICS)
    return {
        "page": name, "url": report["finalDisplayedUrl"],
        "lighthouse": report["lighthouseVersion"], "when": report["fetchTime"],
        "scores": {c: round(report["categories"][c]["score"] * 100) for c in CATEGORIES},
        "bytes": int(audits["total-byte-weight"]["numericValue"]),
        "metrics": {short: audits[key]["displayValue"] for key, short in METRICS.items()},
        "not passed": failing,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running site (default: start one)")
    parser.add_argument("--match", type=int, help="also audit /matches/ID")
    parser.add_argument("--long-match", action="store_true",
                        help="store a long Panika match in the server it starts, and audit its page")
    parser.add_argument("--runs", type=int, default=1,
                        help="audit each page this many times and keep the median run by "
                             "its performance score (Lighthouse's advice: 5)")
    parser.add_argument("--json", type=Path, help="append one JSON line per page")
    parser.add_argument("--install", action="store_true", help="install Lighthouse if missing")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        if not args.install:
            sys.exit(f"Lighthouse is not in {NPM_PREFIX}: run with --install")
        install()
    with tempfile.TemporaryDirectory() as scratch:
        server = None
        base = args.url.rstrip("/") if args.url else None
        if base is None:
            server, base = start_server(Path(scratch) / "var")
        try:
            # A room nobody joins closes after a while: each run of the room page gets a new one.
            pages = {"lobby": lambda: "/", "room page": lambda: f"/r/{create_room(base)}"}
            if args.long_match and server is not None:
                args.match = store_long_match(Path(scratch) / "var")
            if args.match is not None:
                match_path = f"/matches/{args.match}"
                pages["match page"] = lambda: match_path
                # A finished match's answers are built once, then kept: audit the page, not that.
                urllib.request.urlopen(base + match_path, timeout=60).read()
            rows = []
            for name, path in pages.items():
                runs = [summary(name, audit(base + path(), Path(scratch) / "report.json"))
                        for _ in range(args.runs)]
                runs.sort(key=lambda row: row["scores"]["performance"])
                rows.append({**runs[len(runs) // 2], "runs": len(runs),
                             "performance runs": [r["scores"]["performance"] for r in runs]})
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=30)
    print("| page | " + " | ".join(CATEGORIES) + " | first visit | "
          + " | ".join(METRICS.values()) + " |")
    print("| --- " * (len(CATEGORIES) + len(METRICS) + 2) + "|")
    for row in rows:
        print(f"| {row['page']} | " + " | ".join(str(row["scores"][c]) for c in CATEGORIES)
              + f" | {row['bytes'] / 1024:.0f} KB | "
              + " | ".join(row["metrics"].values()) + " |")
    for row in rows:
        print(f"{row['page']}: not passed: {', '.join(row['not passed']) or 'none'}")
        if row["runs"] > 1:
            print(f"{row['page']}: performance in {row['runs']} runs: {row['performance runs']}")
    print(f"Lighthouse {rows[0]['lighthouse']}, {rows[0]['when']}")
    if args.json:
        with args.json.open("a") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
