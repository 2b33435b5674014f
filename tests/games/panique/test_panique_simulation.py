"""The simulation script (bench/panique_sim.py) runs and plays real games: a few games per
player count, the same engine path and the same policy as the 10,000-game figures in
docs/games/panique.md."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "panique_sim.py"


def load_sim():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("panique_sim", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_simulated_games_end_with_the_figures_the_doc_reads() -> None:
    sim = load_sim()
    for players in range(1, 6):
        endings = set()
        for i in range(40):
            state, rounds, moves = sim.play(players, b"t:%d:%d" % (players, i))
            assert state.phase == "over" and rounds >= 1 and moves >= state.turns
            endings.add(state.ending)
        expected = {"solo_escape", "solo_death"} if players == 1 else {"escape", "last_alive"}
        assert endings <= expected and endings


def test_the_script_prints_the_table(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sim = load_sim()
    monkeypatch.setattr("sys.argv", ["panique_sim.py", "--games", "5"])
    sim.main()
    out = capsys.readouterr().out
    assert "5 games per player count" in out
    assert len([line for line in out.splitlines() if line.strip()[:1].isdigit()]) == 5
