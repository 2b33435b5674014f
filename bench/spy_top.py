"""Summarise a py-spy ``--format raw`` (collapsed stacks) file: the functions with the most
samples, by self time and by inclusive time.

    .venv/bin/python bench/spy_top.py profile.txt [N]
"""

from __future__ import annotations

import sys
from collections import Counter


def main() -> None:
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    self_c: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = 0
    for line in open(path):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not stack:
            continue
        k = int(count)
        total += k
        frames = stack.split(";")
        self_c[frames[-1]] += k
        for f in set(frames):
            incl[f] += k
    print(f"{total} samples")
    print("-- self --")
    for f, k in self_c.most_common(n):
        print(f"{100 * k / total:5.1f}%  {f}")
    print("-- inclusive --")
    for f, k in incl.most_common(n):
        print(f"{100 * k / total:5.1f}%  {f}")


if __name__ == "__main__":
    main()
