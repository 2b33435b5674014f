"""The tests of chance's one statistic, with SciPy imported only when a test first asks for it:
importing ``scipy.stats`` costs a test process over a second of CPU, and most processes of a
parallel run never need it (docs/testing.md)."""

from __future__ import annotations

from collections.abc import Iterable


def uniform_p(counts: Iterable[float]) -> float:
    """The p-value of Pearson's chi-square test of ``counts`` against equal expected counts."""
    from scipy.stats import chisquare

    return float(chisquare(list(counts)).pvalue)
