"""What reading one ``action`` frame and logging its move costs, per game, three ways
(docs/decisions/0031-one-strict-decode-of-an-action.md):

- ``two passes``: the path before decision 31: orjson, pydantic's model of every client frame
  (``action`` a plain object), then the game's action model (``parse_action``), then
  ``Move.logged`` (``model_dump``) and ``MoveLog.append`` (orjson again);
- ``pydantic, one pass``: pydantic's fastest path, one ``TypeAdapter`` per game over the frame
  with the game's action inside, ``validate_json`` from the bytes, the text by ``model_dump_json``,
  handed on as the room gets it (an ``Action`` carrying a ``ValidAction``);
- ``msgspec, one pass``: what the room does now, ``parse_client_frame(text, game)`` (one strict
  msgspec pass, the game's model built from it) and ``MoveLog.append_text``.

    .venv/bin/python bench/parse.py                # every game, about 30 s
    .venv/bin/python bench/parse.py --number 2000  # quicker

The frames are each game's actions as its ``legal_actions`` list them over a seeded random
match, as a client sends them. Times are the thread's CPU time per frame (best of ``--repeat``
runs of ``--number`` frames each), so another process's load shows less than in wall time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Annotated, Any, cast

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import Field, TypeAdapter  # noqa: E402

from app.engine import Move, MoveLog, SeededRng, all_games  # noqa: E402
from app.engine.interface import ValidAction  # noqa: E402
from app.games import load_all  # noqa: E402
from app.realtime.room import protocol  # noqa: E402


def frames_of(game: Any, count: int, seed: int) -> list[bytes]:
    """Up to ``count`` player actions of a seeded random match, as ``action`` frames."""
    rng = random.Random(seed)
    state = game.setup(game.max_players, game.parse_options({}), SeededRng(b"bench"))
    frames: list[bytes] = []
    for step in range(2000):
        if game.outcome(state) is not None or len(frames) >= count:
            break
        people: list[tuple[int | None, Any]] = [
            (s, a) for s in range(game.max_players) for a in game.legal_actions(state, s)]
        choices = people or [(None, a) for a in game.legal_actions(state, None)]
        if not choices:
            break
        seat, action = rng.choice(choices)
        if seat is not None:
            frames.append(orjson.dumps({"type": "action", "action": action, "ref": step}))
        game.step(state, Move(seat, game.parse_action(action), 100 * step), SeededRng(b"x"))
    return frames


def two_passes(game: Any) -> Any:
    def run(text: bytes, log: MoveLog) -> None:
        message = protocol.parse_client_frame(text)
        log.append(Move(0, game.parse_action(message.action), 1200, 35).logged())
    return run


def pydantic_one_pass(game: Any) -> Any:
    root = game.Action.model_fields.get("root")
    inner = Annotated[root.annotation, Field(discriminator="type")] if root else game.Action

    class GameActionFrame(protocol.ActionFrame):
        action: inner  # type: ignore[valid-type]

    union = Annotated[GameActionFrame | protocol.Join | protocol.Chat,  # the frame union's shape
                      Field(discriminator="type")]
    adapter: TypeAdapter[Any] = TypeAdapter(union)

    def run(text: bytes, log: MoveLog) -> None:
        frame = adapter.validate_json(text)
        # What the room is handed, as the msgspec way hands it.
        valid = ValidAction(frame.action, frame.action.model_dump_json())
        message = protocol.Action(action=valid, ref=frame.ref)
        handed = cast(ValidAction, message.action)
        log.append_text(Move(0, handed.model, 1200, 35), handed.text)
    return run


def msgspec_one_pass(game: Any) -> Any:
    def run(text: bytes, log: MoveLog) -> None:
        message = protocol.parse_client_frame(text, game)
        log.append_text(Move(0, message.action.model, 1200, 35), message.action.text)
    return run


WAYS = [("two passes", two_passes), ("pydantic, one pass", pydantic_one_pass),
        ("msgspec, one pass", msgspec_one_pass)]


def measure(run: Any, frames: list[bytes], number: int, repeat: int) -> float:
    """Best CPU time per frame, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        log = MoveLog()
        batch = [frames[i % len(frames)] for i in range(number)]
        t0 = time.thread_time()
        for text in batch:
            run(text, log)
        best = min(best, (time.thread_time() - t0) / number)
    return best * 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--number", type=int, default=10000, help="frames per run")
    ap.add_argument("--repeat", type=int, default=5, help="runs per way: the best is shown")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    load_all()
    print(f"us of CPU per action frame (read, validated, its move logged); best of "
          f"{args.repeat} x {args.number}; Python {sys.version.split()[0]}; "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}")
    print()
    print("| game | frames | " + " | ".join(name for name, _ in WAYS) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in WAYS) + " |")
    for game in sorted(all_games(), key=lambda g: g.id):
        frames = frames_of(game, 200, args.seed)
        if not frames:
            continue
        cells = []
        for _, way in WAYS:
            run = way(game)
            for text in frames:  # every way reads every frame the same
                run(text, MoveLog())
            cells.append(f"{measure(run, frames, args.number, args.repeat):.2f}")
        print(f"| {game.id} | {len(frames)} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
