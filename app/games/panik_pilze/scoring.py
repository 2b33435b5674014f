"""Majority scoring (rulebook, "Scoring" and "Two-Player Game"; docs/games/panik-pilze.md,
decision 9).

Per mushroom type, players with at least one card of it are placed by how many they have;
tied players share the place and the next player takes the place after the tied group
(3, 3, 1). With 3 to 5 players places 1, 2, 3 score 3, 2, 1, and Panik's first place scores 4.
With 2 players only first place scores: 1, or 2 for Panik. Zero cards of a type score 0.
"""

from __future__ import annotations

from .cards import MUSHROOMS, PANIK

PLACE_POINTS = (3, 2, 1)
TWO_PLAYER_POINTS = (1,)
PANIK_BONUS = 1


def place_points(players: int, mushroom: str, place: int) -> int:
    """The points for ``place`` (1 is best) of ``mushroom`` at a table of ``players``."""
    table = TWO_PLAYER_POINTS if players == 2 else PLACE_POINTS
    if place > len(table):
        return 0
    points = table[place - 1]
    if place == 1 and mushroom == PANIK:
        points += PANIK_BONUS
    return points


def score_type(counts: list[int], mushroom: str) -> list[int]:
    """Points of each seat for one type, from each seat's number of cards of that type."""
    players = len(counts)
    out = []
    for mine in counts:
        if mine == 0:
            out.append(0)
            continue
        place = 1 + sum(1 for other in counts if other > mine)
        out.append(place_points(players, mushroom, place))
    return out


def score_baskets(counts: list[dict[str, int]]) -> dict[str, list[int]]:
    """Per type, each seat's points, from each seat's ``{type: count}``."""
    return {m: score_type([c[m] for c in counts], m) for m in MUSHROOMS}


def totals(by_type: dict[str, list[int]], players: int) -> list[int]:
    return [sum(points[s] for points in by_type.values()) for s in range(players)]
