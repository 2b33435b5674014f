"""Panika's computer player (docs/bots.md, "Panika")."""

from __future__ import annotations

from app.bots import make_bot
from app.bots.arena import frame_now, play_match
from app.games.panika.bots import burst_chance
from app.games.panika import GAME
from tests.games.panika.panika_helpers import act, build, play


def decide(state, seat=0, difficulty="hard", seed=0):
    bot = make_bot("panika", seat, difficulty, seed)
    frame = frame_now(GAME, state, seat)
    bot.observe(frame)
    return bot.decide(frame)


def played(decision) -> list[str]:
    from app.games.panika.cards import CARDS

    assert decision is not None and decision.action["type"] == "play"
    return [CARDS[c].name for c in decision.action["cards"]]


def test_burst_chance_knows_the_number_is_above_the_counter_and_uniform_on_21_to_30():
    assert burst_chance(0, 20) == 0.0  # never below 21
    assert burst_chance(20, 1) == 1 / 10
    assert burst_chance(25, 2) == 2 / 5  # 26..30 are left, 26 and 27 burst
    assert burst_chance(29, 1) == 1.0
    assert burst_chance(18, 5) == 3 / 10


def test_with_a_safe_counter_it_plays_a_number_and_keeps_its_specials():
    state, _ = build([["3", "reverse", "tap", "play2"], ["1", "1", "1", "1"]], [10, 10],
                     counter=4)
    for seed in range(5):
        assert played(decide(state, difficulty="normal", seed=seed)) == ["3"]
    # Hard knows a Tap! on a safe counter is a free extra turn; it keeps Reverse and Play Two.
    assert played(decide(state, difficulty="hard")) == ["Tap!"]
    state, _ = build([["3", "reverse", "1", "play2"], ["1", "1", "1", "1"]], [10, 10],
                     counter=4)
    assert played(decide(state, difficulty="hard")) in (["3"], ["1"])


def test_in_danger_it_plays_tap_or_reverse_rather_than_tapping():
    state, _ = build([["4", "tap", "2", "reverse"], ["1"] * 4, ["1"] * 4, ["1"] * 4],
                     [10] * 4, counter=27)
    for difficulty in ("normal", "hard"):
        for seed in range(5):
            assert played(decide(state, difficulty=difficulty, seed=seed)) in (["Tap!"],
                                                                               ["Reverse"])


def test_it_plays_a_vegetable_pair():
    state, _ = build([["tomato", "tomato", "1", "2"], ["1"] * 4], [10, 10], counter=6)
    assert played(decide(state)) == ["Tomato", "Tomato"]


def test_under_play_two_it_picks_the_two_cards_with_the_least_risk():
    state, _ = build([["4", "3", "0", "tap"], ["1"] * 4, ["1"] * 4], [10] * 3, counter=24,
                     play_two=0)
    assert sorted(played(decide(state))) == ["0", "Tap!"]


def test_it_taps_what_it_owes_one_tap_at_a_time():
    state, _ = build([["3", "1"], ["1"] * 4], [10, 10], counter=2)
    play(state, 0, state.hands[0][0])
    decision = decide(state)
    assert decision.action == {"type": "tap"} and decision.delay_ms <= 3000


def test_normal_calls_last_card_before_the_play_that_leaves_one_card():
    state, _ = build([["3", "1"], ["1"] * 4], [0, 10], counter=2)
    for seed in range(20):
        bot = make_bot("panika", 0, "normal", seed)
        frame = frame_now(GAME, state, 0)
        first = bot.decide(frame)
        assert first.action == {"type": "last_card"}
    act(state, 0, first.action)
    frame = frame_now(GAME, state, 0, version=2)
    assert bot.decide(frame).action["type"] == "play"


def test_easy_sometimes_forgets_last_card():
    state, _ = build([["3", "1"], ["1"] * 4], [0, 10], counter=2)
    first = [decide(state, difficulty="easy", seed=seed).action["type"] for seed in range(100)]
    assert 10 < first.count("play") < 60
    assert first.count("last_card") > 40


def test_no_decision_when_nothing_is_legal():
    state, _ = build([["3", "1"], ["1"] * 4], [10, 10], turn=1)
    assert decide(state, seat=0) is None


def count_events(kind: str, difficulty: str, matches: int) -> int:
    found = 0

    def hook(seat, frame):
        nonlocal found
        if seat == 0:
            found += sum(1 for e in frame["events"] if e["kind"] == kind and e["seat"] == 0)

    for m in range(matches):
        bots = [make_bot("panika", 0, difficulty, m), make_bot("panika", 1, "hard", m)]
        play_match("panika", bots, f"lc{m}".encode(), on_frame=hook)
    return found


def test_over_whole_matches_normal_never_forgets_last_card_and_easy_does():
    assert count_events("last_card", "normal", 20) > 0
    assert count_events("last_card_forgotten", "normal", 20) == 0
    assert count_events("last_card_forgotten", "easy", 40) > 0


def test_it_calls_last_card_when_the_draw_will_leave_it_one_card():
    # One card in hand, one in the pile: after the play it draws its last card.
    state, _ = build([["3"], ["1"] * 4], [1, 10], counter=2)
    assert decide(state, difficulty="normal").action == {"type": "last_card"}
