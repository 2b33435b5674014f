#!/usr/bin/env python3
"""Check the randomness of a finished Panic Party match yourself.

    python3 verify_match.py match.json
    python3 verify_match.py https://party.example.org/api/matches/42
    curl -s https://party.example.org/api/matches/42 | python3 verify_match.py -

It needs nothing but Python 3 (3.8 or newer) and its standard library, and it follows the
specification in docs/fairness.md, independently of the server's code:

1. the revealed ``seed`` hashes (SHA-256) to the ``seed_hash`` shown when the match began;
2. every draw listed in ``draws`` (each shuffle, deal, roll and secret number, in the order the
   match made them) is exactly what that seed's generator gives for the same operation;
3. the draws are the ones the game's documented rules make (docs/fairness.md, "The order of the
   draws in each game"): its setup draw by draw, from the number of players and the options,
   and during play the draws its moves make (as far as the action log tells them).

Prints what it checked; exits 0 when everything matches, 1 on any mismatch (each one is
reported), 2 when the input cannot be read or checked at all. Whatever the match's text holds
is printed escaped (as JSON), so a crafted match cannot write to the terminal, and a draw larger
than any game makes is reported rather than computed.
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


# --- the draws each game's rules make (docs/fairness.md, "The order of the draws") ------------
PANIC_LAB_TILES = {"standard": 25, "no_mutations": 22, "no_mutations_no_vents": 19}
PILZE_MUSHROOM_CARDS = 60
PILZE_ACTION_CARDS = 26
PILZE_HAND = 3


def setup_draws(game, players, options):
    """The draws the game's documented setup makes, in order (op, args); None for a game this
    checker does not know."""
    if game == "panika":
        return [("shuffle", [120]), ("randint", [21, 30]), ("randbelow", [players])]
    if game == "panika_counter":
        return [("randint", [21, 30])]
    if game == "panic_lab":
        variant = options.get("variant", "standard") if isinstance(options, dict) else None
        if variant not in PANIC_LAB_TILES:
            raise ValueError("Panic Lab has no variant %s" % short(variant))
        return [("shuffle", [PANIC_LAB_TILES[variant]])]
    if game == "panik_pilze":
        return ([("shuffle", [PILZE_MUSHROOM_CARDS])]
                + [("randbelow", [2])] * PILZE_MUSHROOM_CARDS
                + [("shuffle", [PILZE_ACTION_CARDS]), ("randbelow", [players])])
    if game == "panique":
        return []
    return None


def _kind(move):
    action = move.get("action") if isinstance(move, dict) else None
    return action.get("type") if isinstance(action, dict) else None


def pilze_reshuffles(players, actions):
    """The action pile's reshuffles the documented rules make over the moves (decision 8 of
    docs/games/panik-pilze.md): each move puts its card (a swap: its 1 to 3 cards) on the
    discard pile and draws as many; the moment the draw pile is used up after a draw, the
    discard pile is shuffled into a new one (``shuffle [its size]``). Returns the draws each
    move makes; the last move may end the game by a Draw card before any draw (either is
    accepted for it: see ``play_problems``)."""
    pile, discard = PILZE_ACTION_CARDS - PILZE_HAND * players, 0
    per_move = []
    for move in actions:
        action = move.get("action") if isinstance(move, dict) else None
        cards = action.get("cards") if isinstance(action, dict) else None
        k = len(cards) if _kind(move) == "swap" and isinstance(cards, list) else 1
        discard += k
        drawn = []
        for _ in range(k):
            if pile == 0 and discard:
                drawn.append(("shuffle", [discard]))
                pile, discard = discard, 0
            pile -= 1
            if pile == 0 and discard:
                drawn.append(("shuffle", [discard]))
                pile, discard = discard, 0
        per_move.append(drawn)
    return per_move


def play_problems(game, players, actions, played):
    """Problems with the draws after the setup (``played``: (op, args) in order), against what
    the game's moves make; None when the checker cannot tell for this game."""
    def count(kind):
        return sum(1 for m in actions if _kind(m) == kind)

    if game == "panika_counter":
        expected = [("randint", [21, 30])] * count("new_round")
        return _compare(played, [expected], "a new round's burst number per new_round")
    if game == "panic_lab":
        expected = [("randbelow", [6])] * (4 * count("reveal"))
        return _compare(played, [expected], "four dice per reveal")
    if game == "panik_pilze":
        per_move = pilze_reshuffles(players, actions)
        full = [d for drawn in per_move for d in drawn]
        options = [full]
        if actions and _kind(actions[-1]) in ("collect", "timeout"):
            options.append([d for drawn in per_move[:-1] for d in drawn])
        return _compare(played, options, "the action pile's reshuffles")
    if game == "panique":
        rolls = [m for m in actions if _kind(m) == "roll"]
        system = sum(1 for m in rolls if m.get("seat") is None)
        low, high = len(rolls), len(rolls) - system + players * system
        problems = ["draw after the setup %s: Panique draws only randint [1, 8] (a die)"
                    % short([op, args]) for op, args in played if (op, args) != ("randint", [1, 8])]
        if not low <= len(played) <= high:
            problems.append("%d dice drawn for %d rolls (%d by the system): the rules draw %d to %d"
                            % (len(played), len(rolls), system, low, high))
        return problems
    if game == "panika":
        return ["draw after the setup %s: Panika then draws only randbelow [1..4] (a hand card "
                "given as a penalty) or randint [21, 30] (a round's number)" % short([op, args])
                for op, args in played
                if not ((op == "randbelow" and len(args) == 1 and 1 <= args[0] <= 4)
                        or (op, args) == ("randint", [21, 30]))][:5]
    return None


def _compare(played, options, what):
    if any(played == [[op, list(args)] for op, args in expected] for expected in options):
        return []
    best = options[0]
    for index, (got, want) in enumerate(zip(played, best)):
        if got != [want[0], list(want[1])]:
            return ["draw %d after the setup is %s; %s gives %s here"
                    % (index, short(got), what, short([want[0], want[1]]))]
    return ["%d draws after the setup; %s gives %d" % (len(played), what, len(best))]


def rules_problems(match, draws):
    """(problems, note) of the draws against the game's documented rules."""
    game = match.get("game")
    players = match.get("players")
    players = len(players) if isinstance(players, list) else 0
    try:
        setup = setup_draws(game, players, match.get("options") or {})
    except ValueError as error:
        return ["cannot follow the rules: %s" % error], None
    if setup is None:
        return [], ("this checker knows no rules of the game %s: only the seed was checked "
                    "against each draw" % short(game))
    listed = [[d.get("op"), d.get("args")] for d in draws if isinstance(d, dict)]
    problems = []
    for index, (op, args) in enumerate(setup):
        if index >= len(listed) or listed[index] != [op, args]:
            got = short(listed[index]) if index < len(listed) else "nothing"
            problems.append("draw %d: the documented setup of %s draws %s here, the match drew %s"
                            % (index, game, short([op, args]), got))
            return problems, None
    actions = match.get("actions")
    if not isinstance(actions, list):
        return ["the match has no action log: the draws after the setup cannot be followed"], None
    later = play_problems(game, players, actions, listed[len(setup):])
    problems += later or []
    if problems:
        return problems, None
    return [], ("the draws are those of %s's documented setup (%d) and moves (%d)"
                % (game, len(setup), len(listed) - len(setup)))


def verify(match):
    """(problems, notes): a list of mismatches, and what was checked."""
    problems, notes = [], []
    seed_hex, seed_hash = match.get("seed"), match.get("seed_hash")
    if not isinstance(seed_hex, str) or not re.fullmatch(r"(?:[0-9a-fA-F]{2})+", seed_hex):
        return ["the match has no revealed seed in hexadecimal (seed: %s)" % short(seed_hex)], notes
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
        return problems + ["%d draws: beyond any game (at most %d)" % (len(draws), MAX_DRAWS)], \
            notes
    stream = Stream(seed)
    counts = {}
    for index, draw in enumerate(draws):
        if not isinstance(draw, dict) or not isinstance(draw.get("args"), list):
            problems.append("draw %d is not an {op, args, result} object: %s"
                            % (index, short(draw)))
            break
        op, args = draw.get("op"), draw["args"]
        try:
            expected = rederive(stream, op, args)
        except ValueError as error:
            problems.append("draw %d (%s %s): %s; the draws after it cannot be checked"
                            % (index, op, short(args), error))
            break
        counts[op] = counts.get(op, 0) + 1
        if draw.get("result") != expected:
            problems.append("draw %d (%s %s): the match says %s, the seed gives %s"
                            % (index, op, short(args), short(draw.get("result")), short(expected)))
    else:
        summary = ", ".join("%d %s" % (n, op) for op, n in sorted(counts.items())) or "none"
        notes.append("%d draws re-derived from the seed (%s), %d HMAC blocks used"
                     % (len(draws), summary, stream.counter))
    followed, note = rules_problems(match, draws)
    problems += followed
    if note:
        notes.append(note)
    return problems, notes


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
    if options.verbose and isinstance(match.get("draws"), list):
        for index, draw in enumerate(match["draws"]):
            print("  %4d  %s" % (index, short(draw, 100)))
    for note in notes:
        print("ok: %s" % note)
    for problem in problems:
        print("MISMATCH: %s" % problem)
    if problems:
        print("%s: %d problem(s) found" % (title, len(problems)))
        return 1
    print("%s: fair, every draw follows from the revealed seed" % title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
