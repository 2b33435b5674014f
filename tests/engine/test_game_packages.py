"""A game is one folder, found through its entry point (app/games/__init__.py, app/engine/package.py,
docs/decisions/0050): the site registers every entry point of ``panic_party.games`` in the lobby's
order, leaves out (and logs) a package that does not load or fails its checks, ships every file of
a game's folder, and names no game outside that game's own folder."""

from __future__ import annotations

import glob
import logging
import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from app.engine import ENTRY_POINT_GROUP, GamePackage, all_packages, get_package, registry
from app.games import check_package, load_entry

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("app", "static", "templates")
"""The site's shared code: everything of these but a game's own folder must name no game."""
TEXT_SUFFIXES = {".py", ".js", ".css", ".html", ".json", ".svg", ".md", ".txt", ".toml"}


def _mentions(game_id: str) -> re.Pattern[str]:
    """The id as a word, or as the docs spell it in a file name (``panic-lab``): letters,
    digits, ``_`` and ``-`` around it make another word (``panika_counter`` and
    ``panika-counter`` are not ``panika``)."""
    forms = "|".join(re.escape(form) for form in {game_id, game_id.replace("_", "-")})
    return re.compile(rf"(?<![\w-])(?:{forms})(?![\w-])")


def _site_files() -> list[Path]:
    files = []
    for top in SCANNED:
        for path in sorted((ROOT / top).resolve().rglob("*")):
            if path.is_file() and path.suffix in TEXT_SUFFIXES and "__pycache__" not in \
                    path.parts:
                files.append(path)
    return files


def test_no_file_of_the_site_outside_a_games_folder_names_it() -> None:
    """For every registered game: app/ (but that game's folder), static/ and templates/, the
    site's catalogs among them, never name its id; the failure names the file and line."""
    packages = [p for p in all_packages() if p.folder is not None]
    assert len(packages) >= 6  # the site's five and the game that lives only in the tests
    texts = {path: path.read_text(encoding="utf-8") for path in _site_files()}
    found = []
    for package in packages:
        own = package.folder.resolve() if package.folder else None
        pattern = _mentions(package.id)
        for path, text in texts.items():
            if not pattern.search(text) or (own is not None and path.is_relative_to(own)):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number} names {package.id}: "
                                 f"{line.strip()[:100]}")
    assert found == []


def test_the_scan_finds_a_game_named_outside_its_folder() -> None:
    """What the scan counts as naming a game, and what not."""
    assert _mentions("panika").search('import("/static/js/games/panika.js")')
    assert _mentions("panic_lab").search("see docs/games/panic-lab.md")
    assert not _mentions("panika").search("panika_counter and docs/games/panika-counter.md")
    assert not _mentions("panika").search("Panika, the card game")


def test_every_entry_point_registers_its_package_in_the_lobbys_order() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][
        ENTRY_POINT_GROUP]
    for name, target in declared.items():
        package = get_package(name)
        assert package is not None and isinstance(package, GamePackage), name
        module, _, attribute = target.partition(":")
        assert package is getattr(sys.modules[module], attribute)
        assert package.folder == ROOT / "app" / "games" / name
    # The order is the packages' positions, whichever was installed first; the test-only game
    # (installed apart) comes after the site's.
    order = [p.id for p in all_packages() if p.folder is not None]
    assert order[:5] == list(declared)
    assert order.index("higher_lower") == 5


def test_the_site_served_from_this_checkout_never_has_the_test_only_game() -> None:
    """``python3 -m app serve`` runs without the tests' folder on its path: the game that lives
    only in the tests is not among its games (here: a process of this environment without the
    tests' ``PYTHONPATH``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    listed = subprocess.run(
        [sys.executable, "-c", "from importlib.metadata import entry_points; print(' '.join("
         f"sorted(e.name for e in entry_points(group={ENTRY_POINT_GROUP!r}))))"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert listed == ["panic_lab", "panik_pilze", "panika", "panika_counter", "panique"]
    assert get_package("higher_lower") is not None  # while the tests have it


def test_the_lobbys_order_is_the_packages_positions_not_their_registration_order() -> None:
    from higher_lower.game import HigherLowerGame

    def package(game_id: str, position: int) -> GamePackage:
        game = type(f"Game_{game_id}", (HigherLowerGame,), {"id": game_id})()
        return GamePackage(game, None, None, position=position)

    try:
        for made in (package("late_b", 500), package("late_a", 500), package("early", 1)):
            registry.register_package(made)
        ids = [p.id for p in all_packages()]
        assert ids.index("early") < ids.index("panika") < ids.index("higher_lower") \
            < ids.index("late_a") < ids.index("late_b")
    finally:
        for game_id in ("late_a", "late_b", "early"):
            registry.unregister(game_id)


def _package_folder(tmp_path: Path, name: str, texts: str = '{"game.%s.pitch": "A game"}') -> Path:
    """A game package of its own in ``tmp_path``, importable as ``name``: the test game's rules
    under another id, and every file a package must hold."""
    folder = tmp_path / name
    for part in ("page", "texts", "rules"):
        (folder / part).mkdir(parents=True)
    for file in ("page/page.js", "page/style.css", "page/picture.svg", "rules/en.html",
                 "rules/de.html"):
        (folder / file).write_text("x")
    for lang in ("en", "de"):
        (folder / "texts" / f"{lang}.json").write_text(texts.replace("%s", name))
    (folder / "__init__.py").write_text(
        "from pathlib import Path\n"
        "from app.engine import GamePackage\n"
        "from higher_lower.game import HigherLowerGame\n"
        f"class Game(HigherLowerGame):\n    id = {name!r}\n"
        "PACKAGE = GamePackage(Game(), None, Path(__file__).resolve().parent)\n")
    return folder


def _entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)


def test_a_package_that_passes_its_checks_is_registered(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _package_folder(tmp_path, "good_game")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        package = load_entry(_entry("good_game", "good_game:PACKAGE"))
        assert package is not None and get_package("good_game") is package
    finally:
        registry.unregister("good_game")


@pytest.mark.parametrize(("name", "value", "texts", "why"), [
    ("no_module", "no_such_module_here:PACKAGE", None, "does not import"),
    ("wrong_type", "higher_lower:GAME", None, "not a GamePackage"),
    ("other_name", "higher_lower:PACKAGE", None, "not the entry point's name"),
    ("stray_key", "stray_key:PACKAGE", '{"game.%s.pitch": "A", "room.start": "Go"}',
     "keys outside game.stray_key."),
    ("bad_texts", "bad_texts:PACKAGE", "[1, 2]", "not a JSON object"),
])
def test_a_broken_package_is_logged_and_left_out(
        name: str, value: str, texts: str | None, why: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """One bad plugin never takes the site down: it is left out with a line that says why, and
    every other game stays."""
    if texts is not None:
        _package_folder(tmp_path, name, texts)
        monkeypatch.syspath_prepend(str(tmp_path))
    before = [p.id for p in all_packages()]
    with caplog.at_level(logging.ERROR, logger="app.games"):
        assert load_entry(_entry(name, value)) is None
    assert get_package(name) is None and [p.id for p in all_packages()] == before
    assert any(why in record.getMessage() and name in record.getMessage()
               for record in caplog.records), caplog.text


def test_a_package_missing_a_file_or_a_language_is_refused(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _package_folder(tmp_path, "half_game")
    (tmp_path / "half_game" / "rules" / "de.html").unlink()
    (tmp_path / "half_game" / "page" / "picture.svg").unlink()
    monkeypatch.syspath_prepend(str(tmp_path))
    import half_game  # type: ignore[import-not-found]

    with pytest.raises(Exception, match=r"missing page/picture.svg, rules/de.html"):
        check_package(half_game.PACKAGE, "half_game")


def test_a_package_whose_replay_marks_have_no_label_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark the replay can jump to (``Game.replay_marks``) is a button: its label is the
    game's text ``game.<id>.replay.<mark>`` in every language."""
    folder = _package_folder(tmp_path, "marked_game")
    init = folder / "__init__.py"
    init.write_text(init.read_text().replace(
        "    id = 'marked_game'\n", "    id = 'marked_game'\n    replay_marks = ('turn',)\n"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import marked_game  # type: ignore[import-not-found]

    with pytest.raises(Exception, match=r"does not name its replay's marks: "
                                        r"game\.marked_game\.replay\.turn"):
        check_package(marked_game.PACKAGE, "marked_game")


def test_the_package_data_globs_cover_every_file_of_every_games_folder() -> None:
    """``pip install .`` (the Dockerfile's) ships a game's page, texts and rules pages: the
    wheel takes the files that pyproject.toml's package-data globs name, and these name every
    file under app/games that is not Python. (A built wheel was checked once to hold them:
    building one here would take the suite too long.)"""
    games = ROOT / "app" / "games"
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["app.games"]
    shipped = {Path(name) for pattern in globs
               for name in glob.glob(pattern, root_dir=games, recursive=True)
               if (games / name).is_file()}
    data = {path.relative_to(games) for path in games.rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc")}
    assert data and data <= shipped, sorted(map(str, data - shipped))


@pytest.mark.parametrize("levels", [("easy", "hard"), ("normal", "expert")])
def test_bots_without_the_normal_level_or_with_a_level_the_engine_lacks_are_refused(
        levels: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A dropped player's stand-in is the normal bot, and the room only knows the engine's
    levels: a policy listing others would break a room (docs/bots.md, "Levels")."""
    from dataclasses import replace

    from higher_lower.bots import HigherLowerBot  # type: ignore[import-not-found]

    _package_folder(tmp_path, "odd_levels")
    monkeypatch.syspath_prepend(str(tmp_path))
    import odd_levels  # type: ignore[import-not-found]

    odd = type("OddBot", (HigherLowerBot,), {"levels": levels})
    with pytest.raises(Exception, match=r"levels .* are not among"):
        check_package(replace(odd_levels.PACKAGE, bots=odd), "odd_levels")
