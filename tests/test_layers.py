"""The shape of app/: the import contracts of pyproject.toml hold (import-linter), no import
cycle is left anywhere (type-only and function-local imports included), and no folder holds
more than ``MAX_MODULES`` modules (docs/architecture.md, the map of the folders)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
MAX_MODULES = 15


def test_the_import_contracts_hold() -> None:
    """Run in a process of its own: import-linter imports the whole of app/ and changes the
    logging of the process it runs in (the collector's tests after it in the same process
    heard none of its log lines)."""
    linter = (shutil.which("lint-imports", path=str(Path(sys.executable).parent))
              or shutil.which("lint-imports"))
    assert linter, "import-linter is installed with the test dependencies"
    result = subprocess.run([linter, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def modules(root: Path = APP) -> dict[str, tuple[Path, bool]]:
    """Every module under ``root``: its dotted name, its file, whether it is a package."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def imports(found: Mapping[str, tuple[Path, bool]]) -> dict[str, set[str]]:
    """Each module's imports of other modules of ``found``, read from its source: every
    ``import`` statement counts, under ``if TYPE_CHECKING:`` or inside a function too."""

    def known(name: str) -> str | None:
        while name and name not in found:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, (path, package) in found.items():
        here = name if package else name.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(known(alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = here
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                source = (f"{base}.{node.module}" if node.module else base) if node.level \
                    else node.module or ""
                for alias in node.names:  # ``from package import module`` names the module
                    targets.add(known(f"{source}.{alias.name}")
                                if f"{source}.{alias.name}" in found else known(source))
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of more than one
    module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph.get(start, ())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle_through_a_type_only_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\nB = 1\n")
    (package / "c.py").write_text("def f():\n    from pkg import a\n")
    (package / "d.py").write_text("import pkg.a\n")
    graph = imports(modules(package))
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.d"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_no_import_cycle_anywhere_in_app() -> None:
    graph = imports(modules())
    assert "app.realtime.room.core" in graph and graph["app.realtime.room.core"]
    assert cycles(graph) == []


def test_no_folder_of_app_holds_more_than_fifteen_modules() -> None:
    folders: dict[Path, int] = {}
    for path in APP.rglob("*.py"):
        folders[path.parent] = folders.get(path.parent, 0) + 1
    crowded = {str(folder.relative_to(ROOT)): n for folder, n in folders.items()
               if n > MAX_MODULES}
    assert len(folders) > 10 and crowded == {}


def test_only_the_engine_replays_a_match() -> None:
    """A match is set up from its seed in one place outside app/engine: the live match
    (``MatchRun``); every replay of a stored match (restore, the match page, the draws, the
    arena) goes through app/engine/replay.py, so no other module calls a game's ``setup``."""
    callers = set()
    for name, (path, _) in modules().items():
        if name.startswith(("app.engine", "app.games")):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "setup":
                callers.add(name)
    assert callers == {"app.realtime.room.match"}
