#!/usr/bin/env python3
"""Check the randomness of a finished Panic Party match yourself.

    python3 verify_match.py match.json
    python3 verify_match.py https://party.example.org/api/matches/42
    curl -s https://party.example.org/api/matches/42 | python3 verify_match.py -

It needs nothing but Python 3 (3.8 or newer) and its standard library, knows no game, and
follows the specification in docs/fairness.md, independently of the server's code:

1. the revealed ``seed`` hashes (SHA-256) to the ``seed_hash`` shown when the match began;
2. every chance step listed in ``draws`` (each shuffle, deal, roll and secret number, with the
   name the game gave it, in the order the match drew them) is exactly what that seed's
   generator gives for the same operation.

That the game's rules made exactly these draws for these moves, and the match's events and
outcome, only the game's own rules can tell: inside a clone of the site, run by its Python
environment (the site's code importable), it also runs the whole check (``python3 -m app
verify``: the match replayed through its rules, app/engine/proof.py); ``--alone`` skips it.

Prints what it checked and what it did not, and exits

- 0: fair: the seed, every draw and (the whole check) everything else the match claims agree;
- 1: a mismatch (each one is reported);
- 2: the input cannot be read or checked at all;
- 3: the seed and every draw agree, but the rest was not checked (alone): not called fair.

Whatever the match's text holds is printed escaped (as JSON), so a crafted match cannot write
to the terminal, and a draw larger than any game makes is reported rather than computed.
"""

import argparse
import hashlib
import hmac
import json
import re
import sys
import urllib.request

BLOCK_BITS = 256
MAX_ITEMS = 10000
"""The longest shuffle or choice checked (the games draw from at most 120 items)."""
MAX_BITS = 4096
"""The widest draw checked, in bits (the games draw at most 7 bits at a time)."""
MAX_BLOCKS = 100000
"""HMAC blocks computed at most (3.2 MB of the stream; a whole match uses a few dozen)."""
MAX_DRAWS = 1000000


class Stream:
    """The generator of docs/fairness.md: HMAC-SHA256 keyed with the seed over an 8-byte
    big-endian counter; blocks joined into one bit string read from its first bit on."""

    def __init__(self, seed):
        self.seed = seed
        self.counter = 0
        self.pool = 0  # the bits not used yet, as an integer of ``self.bits`` bits
        self.bits = 0

    def block(self):
        data = hmac.new(self.seed, self.counter.to_bytes(8, "big"), hashlib.sha256).digest()
        self.counter += 1
        return int.from_bytes(data, "big")

    def getrandbits(self, k):
        if k < 0:
            raise ValueError("k must not be negative")
        while self.bits < k:
            self.pool = (self.pool << BLOCK_BITS) | self.block()
            self.bits += BLOCK_BITS
        self.bits -= k
        value = self.pool >> self.bits
        self.pool &= (1 << self.bits) - 1
        return value

    def randbelow(self, n):
        if n <= 0:
            raise ValueError("n must be positive")
        k = n.bit_length()
        while True:
            value = self.getrandbits(k)
            if value < n:
                return value

    def randint(self, low, high):
        if high < low:
            raise ValueError("high must not be below low")
        return low + self.randbelow(high - low + 1)

    def choice(self, length):
        if length <= 0:
            raise ValueError("cannot choose from nothing")
        return self.randbelow(length)

    def shuffle(self, length):
        order = list(range(length))
        for i in range(length - 1, 0, -1):
            j = self.randbelow(i + 1)
            order[i], order[j] = order[j], order[i]
        return order


ARITY = {"getrandbits": 1, "randbelow": 1, "randint": 2, "choice": 1, "shuffle": 1}


def rederive(stream, op, args):
    """What the seed's generator gives for one draw (docs/fairness.md, "The chance log")."""
    if not isinstance(op, str) or op not in ARITY:
        raise ValueError("unknown operation %s" % short(op))
    if len(args) != ARITY[op] or not all(isinstance(a, int) and not isinstance(a, bool)
                                         for a in args):
        raise ValueError("%s takes %d integer argument(s), not %s" % (op, ARITY[op], short(args)))
    if op == "shuffle" and args[0] < 0:
        raise ValueError("a shuffle of %d items" % args[0])
    if op in ("shuffle", "choice") and args[0] > MAX_ITEMS:
        raise ValueError("%s of %s items: beyond any game (at most %d)"
                         % (op, short(args[0]), MAX_ITEMS))
    width = args[0] if op == "getrandbits" else (args[-1] - args[0] if op == "randint"
                                                 else args[0]).bit_length()
    if width > MAX_BITS:
        raise ValueError("%s of %s bits: beyond any game (at most %d)"
                         % (op, short(width), MAX_BITS))
    if stream.counter > MAX_BLOCKS:
        raise ValueError("more than %d blocks of the stream: beyond any game" % MAX_BLOCKS)
    return getattr(stream, op)(*args)


def short(value, limit=60):
    """A value of the match as JSON text (control characters and every non-ASCII character
    escaped: nothing in a match can move the cursor, colour or hide the report), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = "(unprintable)"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def whole_check(match):
    """The whole check (the match replayed through its game's rules: app/engine/proof.py) when
    this runs inside a clone of the site whose code imports (its own Python environment);
    ``None`` and why not, otherwise."""
    try:
        from app.engine.proof import check_match
        from app.games import load_all
    except Exception as error:  # noqa: BLE001 - no site here, or not its environment
        return None, "the site's code is not importable here (%s)" % short(str(error), 100)
    try:
        load_all()
        return check_match(match), None
    except Exception as error:  # noqa: BLE001 - a record the rules cannot even take
        return None, "the whole check failed: %s" % short(str(error), 100)


def verify(match):
    """(problems, notes): the mismatches of the seed and the chance steps, and what agreed."""
    problems, notes = [], []
    seed_hex, seed_hash = match.get("seed"), match.get("seed_hash")
    if not isinstance(seed_hex, str) or not re.fullmatch(r"(?:[0-9a-fA-F]{2})+", seed_hex):
        return (["the match has no revealed seed in hexadecimal (seed: %s)" % short(seed_hex)],
                notes)
    seed = bytes.fromhex(seed_hex)
    digest = hashlib.sha256(seed).hexdigest()
    if not isinstance(seed_hash, str) or digest != seed_hash.lower():
        problems.append("the seed does not match its hash: sha256(seed) = %s, the match showed %s"
                        % (digest, short(seed_hash, 80)))
    else:
        notes.append("the seed (%d bytes) hashes to the seed_hash shown when the match began"
                     % len(seed))
    draws = match.get("draws")
    if draws is None:
        problems.append("the match lists no draws (%s)"
                        % short(match.get("draws_error", "no 'draws'"), 200))
        return problems, notes
    if not isinstance(draws, list):
        return problems + ["'draws' is not a list"], notes
    if len(draws) > MAX_DRAWS:
        return (problems + ["%d draws: beyond any game (at most %d)" % (len(draws), MAX_DRAWS)],
                notes)
    problems += rederive_all(seed, draws, notes)
    return problems, notes


def rederive_all(seed, draws, notes):
    """Each chance step of ``draws`` against the seed's stream, in order: the problems."""
    problems = []
    stream = Stream(seed)
    counts = {}
    for index, draw in enumerate(draws):
        if not isinstance(draw, dict) or not isinstance(draw.get("args"), list):
            problems.append("draw %d is not an {name, op, args, result} object: %s"
                            % (index, short(draw)))
            return problems
        op, args = draw.get("op"), draw["args"]
        name = draw.get("name")
        if name is not None and not isinstance(name, str):
            problems.append("draw %d: its name %s is not a text" % (index, short(name)))
        try:
            expected = rederive(stream, op, args)
        except ValueError as error:
            problems.append("draw %d (%s %s): %s; the draws after it cannot be checked"
                            % (index, short(op), short(args), error))
            return problems
        counts[op] = counts.get(op, 0) + 1
        if draw.get("result") != expected:
            problems.append("draw %d (%s %s, %s): the match says %s, the seed gives %s"
                            % (index, op, short(args), short(name), short(draw.get("result")),
                               short(expected)))
    summary = ", ".join("%d %s" % (n, op) for op, n in sorted(counts.items())) or "none"
    notes.append("%d draws re-derived from the seed (%s), %d HMAC blocks used"
                 % (len(draws), summary, stream.counter))
    return problems


def load(source):
    """A match's JSON from a file, ``-`` (standard input), or an http(s) URL."""
    if source == "-":
        return json.load(sys.stdin)
    if re.match(r"https?://", source):
        # The match page's address works too: its JSON is at /api/matches/<id>.
        source = re.sub(r"(https?://[^/]+)/matches/(\d+)/?$", r"\1/api/matches/\2", source)
        request = urllib.request.Request(source, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - user's URL
            return json.load(response)
    with open(source, encoding="utf-8") as file:
        return json.load(file)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Check a Panic Party match's seed and every random draw it made.")
    parser.add_argument("match", nargs="?", default="-",
                        help="the match JSON: a file, an http(s) URL, or - for standard input")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every draw")
    parser.add_argument("--alone", action="store_true",
                        help="check the seed and the draws only, even inside a clone of the site")
    options = parser.parse_args(argv)
    try:
        match = load(options.match)
    except (OSError, ValueError) as error:
        print("cannot read the match: %s" % short(str(error), 200), file=sys.stderr)
        return 2
    except (RecursionError, MemoryError):
        print("cannot read the match: nested too deeply or too large", file=sys.stderr)
        return 2
    if not isinstance(match, dict):
        print("cannot read the match: not a JSON object", file=sys.stderr)
        return 2
    title = "match %s (%s)" % (short(match.get("id", "?")), short(match.get("game", "?")))
    try:
        problems, notes = verify(match)
    except (RecursionError, MemoryError):
        print("cannot check the match: nested too deeply or too large", file=sys.stderr)
        return 2
    unchecked = []
    verdict, why = (None, "--alone") if options.alone else whole_check(match)
    if verdict is None:
        unchecked.append(
            "that the game's rules made these draws, in this order, for these moves, and the "
            "match's events and outcome (%s): run the whole check, python3 -m app verify "
            "<match>, in a clone of the site" % why)
    else:
        notes += ["the whole check: %s" % line for line in verdict.checked]
        problems += ["the whole check: %s" % line for line in verdict.problems]
        unchecked += verdict.unchecked
    if options.verbose and isinstance(match.get("draws"), list):
        for index, draw in enumerate(match["draws"]):
            print("  %4d  %s" % (index, short(draw, 100)))
    for note in notes:
        print("ok: %s" % note)
    for line in unchecked:
        print("NOT CHECKED: %s" % line)
    for problem in problems:
        print("MISMATCH: %s" % problem)
    if problems:
        print("%s: %d problem(s) found" % (title, len(problems)))
        return 1
    if unchecked:
        print("%s: every draw follows from the revealed seed, but not everything the match "
              "claims was checked: not called fair" % title)
        return 3
    print("%s: fair, every draw follows from the revealed seed and the match replays through "
          "its rules exactly as recorded" % title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
