"""The hard Panique bot's choices: written by bench/panique_table.py, do not edit.

Derived from 6,000 matches of two heuristic players (11,429 choices met),
200 playouts per option, kept above 2.5 standard errors and 10 choices
(the method: bench/panique_table.py; the reading: docs/bots.md, "Panique").

situation (app.bots.panique.situation) -> (option, choices met, mean gain over the
heuristic's option in % of matches won, its standard error in %).
"""

HARD_CHOICES: dict[str, tuple[str, int, float, float]] = {
    'ally/V': ('B', 53, 3.05, 1.13),
    'ally/m1/o1': ('B', 194, 1.29, 0.3),
    'ally/oV': ('A', 72, 2.82, 0.48),
    'butler/L3/s0': ('decline', 93, 1.62, 0.6),
    'butler/L3/s1': ('decline', 150, 1.84, 0.49),
    'butler/L3/s2': ('decline', 215, 2.4, 0.43),
    'butler/V/L3': ('accept', 82, 11.2, 1.53),
}
