"""The hard Panique bot's choices: written by bench/panique_table.py, do not edit.

Derived from 6,000 matches of two heuristic players (19,506 choices met),
200 playouts per option, kept above 2.5 standard errors and 10 choices
(the method: bench/panique_table.py; the reading: docs/bots.md, "Panique").

situation (app.games.panique.bots.situation) -> (option, choices met, mean gain over the
heuristic's option in % of matches won, its standard error in %).
"""

HARD_CHOICES: dict[str, tuple[str, int, float, float]] = {
    'ally/V': ('B', 59, 2.9, 1.15),
    'ally/m1/o1': ('B', 196, 1.43, 0.31),
    'ally/oV': ('A', 75, 2.72, 0.47),
    'butler/L3/s0': ('decline', 93, 1.59, 0.62),
    'butler/L3/s1': ('decline', 151, 1.89, 0.5),
    'butler/L3/s2': ('decline', 216, 2.25, 0.43),
    'butler/V/L3': ('accept', 76, 11.55, 1.64),
    'rest/V/L3': ('rest', 316, 5.65, 0.56),
}
