#!/usr/bin/env python3
"""Check the randomness of a finished Panic Party match yourself.

    python3 verify_match.py match.json
    python3 verify_match.py https://party.example.org/api/matches/42
    curl -s https://party.example.org/api/matches/42 | python3 verify_match.py -

It needs nothing but Python 3 (3.8 or newer) and its standard library, and it follows the
specification in docs/fairness.md, independently of the server's code:

1. the revealed ``seed`` hashes (SHA-256) to the ``seed_hash`` shown when the match began;
2. every draw listed in ``draws`` (each shuffle, deal, roll and secret number, in the order the
   match made them) is exactly what that seed's generator gives for the same operation.

Prints what it checked; exits 0 when everything matches, 1 on any mismatch (each one is
reported), 2 when the input cannot be read or checked at all.
"""

import argparse
import hashlib
import hmac
import json
import re
import sys
import urllib.request

BLOCK_BITS = 256


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
    if op not in ARITY:
        raise ValueError("unknown operation %r" % (op,))
    if len(args) != ARITY[op] or not all(isinstance(a, int) and not isinstance(a, bool)
                                         for a in args):
        raise ValueError("%s takes %d integer argument(s), not %r" % (op, ARITY[op], args))
    if op == "shuffle" and args[0] < 0:
        raise ValueError("a shuffle of %d items" % args[0])
    return getattr(stream, op)(*args)


def short(value, limit=60):
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
                        % (digest, seed_hash))
    else:
        notes.append("the seed (%d bytes) hashes to the seed_hash shown when the match began"
                     % len(seed))
    draws = match.get("draws")
    if draws is None:
        problems.append("the match lists no draws (%s)" % match.get("draws_error", "no 'draws'"))
        return problems, notes
    if not isinstance(draws, list):
        return problems + ["'draws' is not a list"], notes
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
        print("cannot read the match: %s" % error, file=sys.stderr)
        return 2
    if not isinstance(match, dict):
        print("cannot read the match: not a JSON object", file=sys.stderr)
        return 2
    title = "match %s (%s)" % (match.get("id", "?"), match.get("game", "?"))
    problems, notes = verify(match)
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
