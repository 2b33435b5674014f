"""Panik Pilze's computer player (docs/bots.md, "Panik Pilze")."""

from __future__ import annotations

from app.bots import make_bot
from app.bots.arena import play_match
from app.engine.registry import get_game
from app.games.panik_pilze.cards import ACTION_CARDS, MUSHROOMS, other_side


def card_id(mushroom: str, action: str, count: int) -> int:
    return next(c.id for c in ACTION_CARDS
                if c.mushroom == mushroom and c.action == action and c.count == count)


PARTY = next(c.id for c in ACTION_CARDS if c.kind == "party")
STEAL = next(c.id for c in ACTION_CARDS if c.kind == "steal")


def frame(display, baskets, legal, *, top="gifti", pile=30, events=()):
    empty = dict.fromkeys(MUSHROOMS, 0)
    view = {
        "phase": "play", "turn": 0, "display": [{"id": i, "up": up} for i, up in display],
        "pile": {"count": pile, "top": top},
        "players": [{"seat": s, "hand": 3, "basket": {**empty, **b}}
                    for s, b in enumerate(baskets)],
    }
    return {"type": "state", "seat": 0, "version": 1, "view": view, "legal": legal,
            "active": [0], "timers": [], "events": list(events)}


def lay(display_id: int, up: str, was: str) -> dict:
    return {"text": "", "seat": None, "kind": "lay", "transient": True,
            "data": {"id": display_id, "up": up, "was": was}}


def test_it_turns_the_card_whose_down_side_it_remembers():
    turn1 = card_id("panik", "turn", 1)
    display = [(1, "chef"), (2, "chef"), (3, "knuddel"), (4, "gifti")]
    legal = [{"type": "collect", "card": turn1, "flip": [i]} for i in (1, 2, 3, 4)]
    bot = make_bot("panik_pilze", 0, "hard", 1)
    first = frame(display, [{}, {}], legal, events=[lay(3, "knuddel", "panik")])
    bot.observe(first)
    assert bot.decide(first).action == {"type": "collect", "card": turn1, "flip": [3]}


def test_easy_forgets_some_down_sides():
    forgot = 0
    for seed in range(40):
        bot = make_bot("panik_pilze", 0, "easy", seed)
        bot.observe(frame([(3, "knuddel")], [{}, {}], [], events=[lay(3, "knuddel", "panik")]))
        forgot += 3 not in bot.down
    assert 5 < forgot < 35


def test_it_throws_the_party_for_the_biggest_haul_and_values_panik():
    display = [(1, "chef"), (2, "chef"), (3, "chef"), (4, "gifti")]
    legal = [{"type": "party", "card": PARTY, "mushroom": m} for m in MUSHROOMS]
    bot = make_bot("panik_pilze", 0, "hard", 1)
    assert bot.decide(frame(display, [{}, {}], legal)).action["mushroom"] == "chef"


def test_it_steals_where_the_steal_wins_a_majority():
    legal = [{"type": "steal", "card": STEAL, "victim": 1, "mushroom": m}
             for m in ("chef", "panik")]
    baskets = [{"panik": 2}, {"panik": 2, "chef": 5}]
    bot = make_bot("panik_pilze", 0, "hard", 1)
    assert bot.decide(frame([], baskets, legal)).action["mushroom"] == "panik"


def test_over_a_match_its_memory_of_down_sides_is_always_true(monkeypatch):
    game = get_game("panik_pilze")
    states = []
    original = type(game).view

    def view(self, state, seat):
        if seat == 0:
            states.append({state.serial[c]: other_side(c, state.up[c]) for c in state.display})
        return original(self, state, seat)

    monkeypatch.setattr(type(game), "view", view)
    bot = make_bot("panik_pilze", 0, "normal", 3)
    checked = []

    class Checking:
        def observe(self, frame):
            bot.observe(frame)
            truth = states[-1]
            for display_id, down in bot.down.items():
                assert truth[display_id] == down
            checked.append(len(bot.down))

        def decide(self, frame):
            return bot.decide(frame)

    others = [make_bot("panik_pilze", s, "normal", s) for s in (1, 2)]
    result = play_match("panik_pilze", [Checking(), *others], b"memory")
    assert result.outcome is not None
    assert max(checked) >= 2  # it did remember down sides along the way
