"""A turn: collect cards, special cards, swapping, the refills (rulebook "The Game Begins!";
docs/games/panik-pilze.md, decisions 5 to 8)."""

import pytest

from app.engine import IllegalAction, MalformedAction, NotYourTurn

from .pilze_helpers import act, build, card, counts, display_ups, serial_of

DISPLAY = [("chef", "gifti"), ("panik", "chef"), ("chef", "knuddel"), ("gifti", "schlaubi")]


def test_collect_draw_one_lays_a_card_flipped_then_takes_every_card_of_the_type() -> None:
    state = build([["chef-draw1", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("schlaubi", "knuddel"), ("gifti", "chef")])
    events = act(state, 0, {"type": "collect", "card": card("chef-draw1", state, 0)})
    # The pile's top showed gifti; laid out it shows chef and is taken with the two others.
    assert counts(state, 0) == {"chef": 3}
    assert all(state.up[c] == "chef" for c in state.baskets[0]["chef"])
    lay = [e for e in events if e.kind == "lay"]
    assert lay[0].data == {"id": 5, "up": "chef", "was": "gifti"}
    collect = next(e for e in events if e.kind == "collect")
    assert collect.text == "{seat:0} plays Chef, draw 1, and takes 3 Chef"


def test_collect_draw_two_lays_two_cards() -> None:
    state = build([["panik-draw2", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("schlaubi", "knuddel"), ("panik", "gifti"), ("knuddel", "panik")])
    act(state, 0, {"type": "collect", "card": card("panik-draw2", state, 0)})
    # Shown on the pile: knuddel, then panik; laid out flipped: panik, then gifti.
    assert counts(state, 0) == {"panik": 2}
    assert display_ups(state) == ["chef", "chef", "gifti", "gifti"]
    assert len(state.pile) == 1


def test_collect_turn_one_flips_the_chosen_card_first() -> None:
    state = build([["chef-turn1", "steal", "steal"], ["party"]], display=DISPLAY)
    act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0),
                   "flip": [serial_of(state, 1)]})
    assert counts(state, 0) == {"chef": 3}


def test_collect_turn_two_flips_two_different_cards() -> None:
    state = build([["gifti-turn2", "steal", "steal"], ["party"]], display=DISPLAY)
    act(state, 0, {"type": "collect", "card": card("gifti-turn2", state, 0),
                   "flip": [serial_of(state, 0), serial_of(state, 3)]})
    # chef/gifti flipped shows gifti (taken); gifti/schlaubi flipped shows schlaubi (stays).
    assert counts(state, 0) == {"gifti": 1}
    assert display_ups(state)[:3] == ["panik", "chef", "schlaubi"]


@pytest.mark.parametrize("flip", [[], [1], [1, 1], [1, 2, 3]])
def test_turn_two_needs_exactly_two_different_display_cards(flip: list[int]) -> None:
    state = build([["gifti-turn2", "steal", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises((IllegalAction, MalformedAction)):
        act(state, 0, {"type": "collect", "card": card("gifti-turn2", state, 0), "flip": flip})


def test_turn_names_cards_in_the_display_only_and_draw_names_none() -> None:
    state = build([["chef-turn1", "chef-draw1", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises(IllegalAction, match="not in the display"):
        act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0), "flip": [99]})
    with pytest.raises(IllegalAction, match="turns no cards"):
        act(state, 0, {"type": "collect", "card": card("chef-draw1", state, 0), "flip": [1]})


def test_collecting_zero_mushrooms_is_allowed() -> None:
    state = build([["knuddel-turn1", "steal", "steal"], ["party"]], display=DISPLAY)
    act(state, 0, {"type": "collect", "card": card("knuddel-turn1", state, 0),
                   "flip": [serial_of(state, 0)]})
    assert counts(state, 0) == {} and state.turn == 1


def test_a_card_not_in_hand_or_of_the_wrong_kind_is_refused() -> None:
    state = build([["chef-turn1", "steal", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises(IllegalAction, match="not in your hand"):
        act(state, 0, {"type": "party", "card": state.hands[1][0], "mushroom": "chef"})
    with pytest.raises(IllegalAction, match="not a party card"):
        act(state, 0, {"type": "party", "card": card("chef-turn1", state, 0), "mushroom": "chef"})


def test_only_the_player_whose_turn_it_is_acts() -> None:
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises(NotYourTurn):
        act(state, 1, {"type": "party", "card": state.hands[1][0], "mushroom": "chef"})
    with pytest.raises(IllegalAction, match="only the system"):
        act(state, 0, {"type": "timeout"})


def test_mushroom_party_takes_every_card_of_the_chosen_type() -> None:
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY)
    act(state, 0, {"type": "party", "card": card("party", state, 0), "mushroom": "chef"})
    assert counts(state, 0) == {"chef": 2}
    act(state, 1, {"type": "party", "card": card("party", state, 1), "mushroom": "knuddel"})
    assert counts(state, 1) == {}  # zero is allowed


def test_steal_takes_the_top_card_of_the_chosen_stack_same_side_up() -> None:
    state = build([["steal", "party", "party"], ["party"], ["steal"]], display=DISPLAY,
                  baskets=[{}, {"panik": 2}, {"chef": 1}])
    top = state.baskets[1]["panik"][-1]
    events = act(state, 0, {"type": "steal", "card": card("steal", state, 0), "victim": 1,
                            "mushroom": "panik"})
    assert state.baskets[0]["panik"] == [top] and state.up[top] == "panik"
    assert counts(state, 1) == {"panik": 1}
    assert events[0].text == "{seat:0} steals a Panik from {seat:1}"


def test_steal_onto_an_existing_stack_of_that_type() -> None:
    state = build([["steal", "party", "party"], ["party"]], display=DISPLAY,
                  baskets=[{"chef": 2}, {"chef": 1}])
    act(state, 0, {"type": "steal", "card": card("steal", state, 0), "victim": 1,
                   "mushroom": "chef"})
    assert counts(state, 0) == {"chef": 3} and counts(state, 1) == {}


def test_steal_from_yourself_or_an_empty_stack_is_refused() -> None:
    state = build([["steal", "party", "party"], ["party"]], display=DISPLAY,
                  baskets=[{"chef": 1}, {"gifti": 1}])
    steal = card("steal", state, 0)
    with pytest.raises(IllegalAction, match="opponent"):
        act(state, 0, {"type": "steal", "card": steal, "victim": 0, "mushroom": "chef"})
    with pytest.raises(IllegalAction, match="no Chef"):
        act(state, 0, {"type": "steal", "card": steal, "victim": 1, "mushroom": "chef"})


def test_steal_with_no_opponent_card_is_not_playable_but_swap_is() -> None:
    from app.games.panik_pilze import GAME

    state = build([["steal", "steal", "steal"], ["party"]], display=DISPLAY,
                  baskets=[{"chef": 3}, {}])
    with pytest.raises(IllegalAction, match="no opponent has a mushroom"):
        act(state, 0, {"type": "steal", "card": state.hands[0][0], "victim": 1,
                       "mushroom": "chef"})
    legal = GAME.legal_actions(state, 0)
    assert legal and all(a["type"] == "swap" for a in legal)
    assert GAME.view(state, 0)["legal"] == {"play": True, "steal": False}


@pytest.mark.parametrize("n", [1, 2, 3])
def test_swap_one_two_or_three_action_cards(n: int) -> None:
    state = build([["steal", "party", "chef-draw1"], ["party"]], display=DISPLAY,
                  action_pile=["gifti-turn1", "panik-turn1", "knuddel-turn1", "chef-turn2"])
    before = list(state.hands[0])
    gone = before[:n]
    discard_before = len(state.action_discard)
    events = act(state, 0, {"type": "swap", "cards": gone})
    assert len(state.hands[0]) == 3
    assert not set(gone) & set(state.hands[0])
    assert state.action_discard[-n:] == gone
    assert len(state.action_discard) == discard_before + n
    assert events[0].kind == "swap" and events[0].data == {"count": n, "n": n}
    assert state.turn == 1 and display_ups(state) == [u for u, _ in DISPLAY]


def test_swap_refuses_a_card_twice_or_not_in_hand_or_none() -> None:
    state = build([["steal", "party", "chef-draw1"], ["party"]], display=DISPLAY)
    h = state.hands[0]
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "swap", "cards": [h[0], h[0]]})
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "swap", "cards": [state.hands[1][0]]})
    with pytest.raises(MalformedAction):
        act(state, 0, {"type": "swap", "cards": []})


def test_after_a_card_is_played_the_hand_refills_to_three_from_the_action_pile() -> None:
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY,
                  action_pile=["gifti-turn1", "panik-draw2"])
    played = card("party", state, 0)
    act(state, 0, {"type": "party", "card": played, "mushroom": "chef"})
    assert len(state.hands[0]) == 3 and state.action_discard[-1] == played


def test_the_display_refills_to_four_only_when_below_four() -> None:
    state = build([["schlaubi-draw2", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("chef", "gifti"), ("panik", "knuddel"), ("chef", "knuddel")])
    act(state, 0, {"type": "collect", "card": card("schlaubi-draw2", state, 0)})
    # Two laid (chef, then panik seen on the pile; both show knuddel): no schlaubi to take,
    # six cards stay, more than four: no refill and no upper limit.
    assert display_ups(state) == ["chef", "panik", "chef", "gifti", "knuddel", "knuddel"]
    assert len(state.pile) == 1


def test_the_action_pile_is_reshuffled_from_the_discards_when_used_up() -> None:
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY,
                  action_pile=["gifti-turn1"])
    discards = set(state.action_discard)
    played = card("party", state, 0)
    events = act(state, 0, {"type": "party", "card": played, "mushroom": "chef"})
    # Played card discarded, the last pile card drawn: the pile is used up, so the discard pile
    # (the played card included) becomes the new, shuffled draw pile at once.
    assert [e.kind for e in events if e.kind == "reshuffle"] == ["reshuffle"]
    assert state.action_discard == []
    assert set(state.action_pile) == discards | {played}
    assert len(state.hands[0]) == 3


def test_turns_pass_clockwise_by_seat_number() -> None:
    state = build([["party"] * 1 + ["steal"] * 2, ["party"], ["steal"]], display=DISPLAY,
                  turn=2)
    act(state, 2, {"type": "swap", "cards": [state.hands[2][0]]})
    assert state.turn == 0
