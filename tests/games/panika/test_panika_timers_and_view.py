"""Turn timer, the absent player's bot, active seats, and what each seat sees."""

import json

import pytest

from app.engine import MalformedAction, SeededRng
from app.games.panika import GAME
from app.games.panika.cards import CARDS

from .panika_helpers import act, build, play, tap


def test_turn_seconds_option_default_30_range_10_to_120():
    assert GAME.parse_options({}).turn_seconds == 30
    assert GAME.parse_options({"turn_seconds": 10}).turn_seconds == 10
    for bad in (9, 121, "x"):
        with pytest.raises(MalformedAction):
            GAME.parse_options({"turn_seconds": bad})
    schema = GAME.Options.model_json_schema()
    assert schema["properties"]["turn_seconds"]["description"]


def test_turn_timer_names_the_seat_and_uses_the_option():
    state = GAME.setup(3, GAME.parse_options({"turn_seconds": 45}), SeededRng(b"t"))
    [timer] = GAME.timers(state)
    assert timer.seconds == 45 and timer.action == {"type": "timeout"}
    assert timer.seats == (state.turn,) and timer.visible and timer.key.startswith("turn:")


def test_turn_timer_key_changes_each_turn():
    state, _ = build([["0", "1", "1", "1"], ["0", "1", "1", "1"]], [5, 5])
    key = GAME.timers(state)[0].key
    play(state, 0, state.hands[0][0])
    assert GAME.timers(state)[0].key != key


def test_timeout_plays_the_card_with_fewest_taps():
    state, _ = build([["4", "carrot", "2", "3"], ["1"] * 4], [5, 5])
    two = state.hands[0][2]
    events = act(state, None, {"type": "timeout"})
    assert events[0].kind == "timeout" and state.discard[-1] == two
    assert state.tap_queue == [[0, 2]]


def test_timeout_prefers_a_special_card_no_taps():
    state, _ = build([["4", "tap", "2", "1"], ["1"] * 4], [5, 5])
    act(state, None, {"type": "timeout"})
    assert CARDS[state.discard[-1]].special == "tap"


def test_timeout_with_play_two_pending_plays_two_cards():
    state, _ = build([["4", "carrot", "carrot", "3"], ["1"] * 4], [5, 5], play_two=0)
    act(state, None, {"type": "timeout"})
    assert [CARDS[c].vegetable for c in state.last_play["cards"]] == ["carrot", "carrot"]
    assert state.counter == 0 and state.turn == 1


def test_timeout_is_rejected_while_tapping():
    from app.engine import IllegalAction
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5])
    play(state, 0, state.hands[0][0])
    with pytest.raises(IllegalAction):
        act(state, None, {"type": "timeout"})


def test_timeout_calls_last_card_for_the_absent_player():
    state, _ = build([["0", "2"], ["1"] * 4], [0, 5])
    act(state, None, {"type": "timeout"})
    assert state.window is None and state.last_card_called[0]


def test_timeout_calls_last_card_when_the_draw_takes_the_pile_s_last_card():
    # Seat 0 holds one card and one penalty card on its pile: the bot's play leaves one card in
    # all, which the draw takes into the hand, so the bot calls "Last card!" (rulebook, "End of
    # the Game"; docs/games/panika.md, decision 11: a timeout never costs a forgotten call).
    state, _ = build([["3"], ["1"] * 4], [["1"], 5])
    act(state, None, {"type": "timeout"})
    assert state.last_card_called[0]
    act(state, None, {"type": "auto_tap"})
    assert len(state.hands[0]) == 1 and not state.piles[0]
    assert state.window is None and state.last_card_called[0]
    assert not any(t.action == {"type": "close_last_card"} for t in GAME.timers(state))


def test_timeout_does_not_call_last_card_when_more_than_one_card_stays():
    state, _ = build([["0", "2", "3"], ["1"] * 4], [0, 5])
    act(state, None, {"type": "timeout"})
    assert not state.last_card_called[0] and state.window is None


def test_active_seats_is_the_player_then_the_tapper():
    state, _ = build([["tap", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5])
    assert GAME.active_seats(state) == [0]
    play(state, 0, state.hands[0][0])
    assert GAME.active_seats(state) == [1]
    tap(state, 1)
    assert GAME.active_seats(state) == [2]


def test_view_shows_own_hand_only_and_public_counts():
    state, _ = build([["3", "carrot", "tap", "1"], ["2"] * 4, ["1"] * 4], [5, 6, 7],
                     counter=12, burst_at=25)
    mine = GAME.view(state, 0)
    assert [c["id"] for c in mine["hand"]] == state.hands[0]
    assert mine["hand"][1] == {"id": state.hands[0][1], "kind": "vegetable",
                               "vegetable": "carrot"}
    assert mine["legal"] == {"play": True, "cards": 1, "taps": 0, "last_card_due": False}
    assert [p["pile"] for p in mine["players"]] == [5, 6, 7]
    assert [p["hand"] for p in mine["players"]] == [4, 4, 4]
    assert mine["counter"] == 12 and mine["turn"] == 0 and mine["direction"] == "clockwise"
    public = GAME.view(state, None)
    assert "hand" not in public and "legal" not in public
    assert GAME.view(state, 1)["legal"]["play"] is False
    for v in (mine, public, GAME.view(state, 1)):
        json.dumps(v)
        assert not {"burst_at", "burst", "secret", "piles"} & _all_keys(v)


def test_view_reveals_burst_number_only_after_the_burst():
    state, _ = build([["4", "1", "1", "1"], ["1"] * 4], [5, 5], counter=19, burst_at=23)
    play(state, 0, state.hands[0][0])
    tap(state, 0, 3)
    assert GAME.view(state, None)["last_burst"] is None
    tap(state, 0)
    view = GAME.view(state, None)
    assert view["last_burst"] == {"seat": 0, "number": 23, "round": 1}
    assert view["round"] == 2 and view["counter"] == 0


def test_view_shows_taps_owed_and_play_two():
    state, _ = build([["play2", "1", "1", "1"], ["3", "4", "1", "1"]], [5, 5])
    play(state, 0, state.hands[0][0])
    assert GAME.view(state, None)["play_two"] == 1
    assert GAME.view(state, 1)["legal"]["cards"] == 2
    play(state, 1, *state.hands[1][:2])
    view = GAME.view(state, 1)
    assert view["tapping"] == {"seat": 1, "owed": 7} and view["legal"]["taps"] == 7
    assert [c["value"] for c in view["last_play"]["cards"]] == [3, 4]
    assert view["discard_top"]["value"] == 4


def test_events_name_seats_with_placeholders():
    state, _ = build([["3", "1", "1", "1"], ["1"] * 4], [5, 5], counter=20, burst_at=22)
    events = play(state, 0, state.hands[0][0])
    assert events[0].text == "{seat:0} plays a 3 (3 taps)"
    events = tap(state, 0, 2)
    assert "{seat:0} bursts the counter at 22!" in [e.text for e in events]


def _all_keys(obj):
    if isinstance(obj, dict):
        return set(obj) | set().union(*(_all_keys(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(_all_keys(v) for v in obj)) if obj else set()
    return set()



def test_the_turn_after_a_burst_has_the_burst_shown_first():
    """docs/games/panika.md, "Turn timer": the next turn's clock starts once the burst has been
    shown, so its timer runs BURST_SHOW_SECONDS longer; the turn after it is a normal one."""
    from app.games.panika import rules

    state, _ = build([["2", "1", "1", "1"], ["1"] * 4, ["1"] * 4], [5, 5, 5], counter=19,
                     burst_at=20, turn_seconds=20)
    play(state, 0, state.hands[0][0])
    tap(state, 0)  # 20: the counter bursts
    assert state.last_burst is not None and state.phase == "play"
    [timer] = GAME.timers(state)
    assert timer.seats == (state.turn,) and timer.seconds == 20 + rules.BURST_SHOW_SECONDS
    play(state, state.turn, state.hands[state.turn][0])
    while state.phase == "tapping":
        tap(state, state.tap_queue[0][0])
    [timer] = GAME.timers(state)
    assert timer.seconds == 20
