"""The one replay (app/engine/replay.py): a log back to its states, and a log the rules refuse."""

from __future__ import annotations

import pytest

import app.games
from app.engine import EngineError, Move, SeededRng, all_games
from app.engine.replay import Replay, replay

app.games.load_all()


def _random_log(game, seed: bytes, moves: int = 40) -> list[Move]:  # type: ignore[no-untyped-def]
    """A match played by the first legal action of whoever may act (players, then the system)."""
    run = Replay(game, game.min_players, None, seed)
    log: list[Move] = []
    chooser = SeededRng(b"chooser")
    for i in range(moves):
        if game.outcome(run.state) is not None:
            break
        options = [(seat, a) for seat in range(game.min_players)
                   for a in game.legal_actions(run.state, seat)]
        options += [(None, a) for a in game.legal_actions(run.state, None)]
        if not options:
            break
        seat, action = options[chooser.randbelow(len(options))]
        move = Move(seat, action, at_ms=100 * i)
        run.step(move)
        log.append(move)
    return log


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_a_replay_rebuilds_the_state_the_moves_made(game) -> None:  # type: ignore[no-untyped-def]
    seed = b"replay-seed" * 3
    log = _random_log(game, seed)
    done = replay(game, game.min_players, None, seed, log)
    again = Replay(game, game.min_players, None, seed)
    for move in log:
        again.step(move)
    assert done.applied == again.applied == len(log)
    for seat in [None, *range(game.min_players)]:
        assert game.view(done.state, seat) == game.view(again.state, seat)
    assert done.refused is None


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_a_refused_move_stops_the_replay_there_when_asked(game) -> None:  # type: ignore[no-untyped-def]
    seed = b"refused-seed" * 3
    log = _random_log(game, seed)
    assert log, "the game offers a first move"
    bad = Move(0, {"type": "no_such_action"}, at_ms=1)
    cut = len(log) // 2
    broken = [*log[:cut], bad, *log[cut:]]
    with pytest.raises(EngineError):
        replay(game, game.min_players, None, seed, broken)
    done = replay(game, game.min_players, None, seed, broken, stop_at_refusal=True)
    assert done.applied == cut
    assert done.refused is not None and done.refused[0] == cut
    expected = replay(game, game.min_players, None, seed, log[:cut])
    assert game.view(done.state, None) == game.view(expected.state, None)
