"""The exact protocol of docs/games/panik-pilze.md: the action JSON (types, ranges, which error),
the system's legal actions, the order of a move's events, ``last_turn`` per kind of turn, and the
rulebook rules no other file names."""

import pytest

from app.engine import IllegalAction, MalformedAction, NotYourTurn, SeededRng
from app.games.panik_pilze import GAME
from app.games.panik_pilze.scoring import score_baskets

from .pilze_helpers import act, build, card, counts

DISPLAY = [("chef", "gifti"), ("panik", "chef"), ("chef", "knuddel"), ("gifti", "schlaubi")]


# --- the action JSON ------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [
    {"type": "collect", "card": "7"},
    {"type": "collect", "card": True},
    {"type": "collect", "card": 7.0},
    {"type": "collect", "card": 7, "flip": ["1"]},
    {"type": "collect", "card": 7, "flip": None},
    {"type": "collect", "card": 7, "flip": [1, 2, 3]},
    {"type": "collect", "card": 26},
    {"type": "collect", "card": -1},
    {"type": "party", "card": 20, "mushroom": "Chef"},
    {"type": "party", "card": 20},
    {"type": "steal", "card": 23, "victim": "1", "mushroom": "chef"},
    {"type": "steal", "card": 23, "victim": 5, "mushroom": "chef"},
    {"type": "steal", "card": 23, "victim": -1, "mushroom": "chef"},
    {"type": "swap", "cards": []},
    {"type": "swap", "cards": [1, 2, 3, 4]},
    {"type": "swap", "cards": [1, "2"]},
    {"type": "swap"},
    {"type": "timeout", "seat": 0},
    {"type": "pass"},
    {"card": 7},
])
def test_an_action_of_the_wrong_shape_or_json_type_is_malformed(raw: dict) -> None:
    """Every field has exactly its JSON type: no string or boolean read as a number."""
    with pytest.raises(MalformedAction):
        GAME.parse_action(raw)


def test_a_malformed_action_is_refused_before_the_turn_is_checked() -> None:
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises(MalformedAction):
        act(state, 1, {"type": "party", "card": "20", "mushroom": "chef"})
    with pytest.raises(NotYourTurn):
        act(state, 1, {"type": "party", "card": state.hands[1][0], "mushroom": "chef"})


def test_a_victim_seat_beyond_the_table_is_illegal_not_malformed() -> None:
    state = build([["steal", "party", "party"], ["party"], ["steal"]], display=DISPLAY,
                  baskets=[{}, {"chef": 1}, {}])
    with pytest.raises(IllegalAction, match="opponent"):
        act(state, 0, {"type": "steal", "card": card("steal", state, 0), "victim": 4,
                       "mushroom": "chef"})


def test_a_turn_card_naming_an_unknown_number_is_illegal() -> None:
    state = build([["chef-turn1", "steal", "steal"], ["party"]], display=DISPLAY)
    for bad in ([0], [-3], [5]):
        with pytest.raises(IllegalAction, match="not in the display"):
            act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0), "flip": bad})


def test_the_system_may_send_exactly_the_timers_timeout() -> None:
    """``legal_actions(state, None)``: the timer's action while the turn timer runs (the
    engine interface), nothing without the timer or after the end."""
    timed = build([["party", "steal", "steal"], ["party"]], display=DISPLAY, turn_seconds=30)
    assert GAME.legal_actions(timed, None) == [{"type": "timeout"}]
    untimed = build([["party", "steal", "steal"], ["party"]], display=DISPLAY)
    assert GAME.legal_actions(untimed, None) == []
    timed.phase = "over"
    assert GAME.legal_actions(timed, None) == []


def test_the_system_timeout_is_refused_when_no_turn_timer_runs() -> None:
    """Nothing runs out without the turn timer: the system's timeout is refused as it is not
    listed (docs/games/panik-pilze.md, "Actions"), and so is a player's action from the system."""
    untimed = build([["party", "steal", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises(IllegalAction, match="no turn timer"):
        act(untimed, None, {"type": "timeout"})
    with pytest.raises(IllegalAction, match="only a player"):
        act(untimed, None, {"type": "party", "card": card("party", untimed, 0),
                            "mushroom": "gifti"})
    timed = build([["party", "steal", "steal"], ["party"]], display=DISPLAY, turn_seconds=30)
    assert [e.kind for e in act(timed, None, {"type": "timeout"})][0] == "timeout"


# --- the order of a move's events -------------------------------------------------------------

def test_a_collect_turns_events_come_in_play_order() -> None:
    """Laying out (the card's action), then the collection, then the refills: the action draw
    (with its reshuffle) before the display's lay-outs."""
    state = build([["chef-draw1", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("knuddel", "panik"), ("schlaubi", "knuddel"), ("panik", "gifti"),
                        ("gifti", "chef")],
                  action_pile=["gifti-turn1"])
    played = card("chef-draw1", state, 0)
    events = act(state, 0, {"type": "collect", "card": played})
    # laid: chef (3 chef taken), two left; the last action card drawn: reshuffle; refill 2.
    assert [e.kind for e in events] == ["lay", "collect", "reshuffle", "lay", "lay"]
    assert [e.transient for e in events] == [True, False, False, True, True]
    assert GAME.view(state, 1)["last_turn"] == {
        "seat": 0, "kind": "collect", "card": played, "mushroom": "chef", "taken": 3,
        "flipped": [], "laid": [5, 6, 7]}


def test_a_turn_cards_flips_come_before_its_collection_and_the_end_last() -> None:
    state = build([["chef-turn2", "steal", "steal"], ["party"]], display=DISPLAY,
                  pile=[("panik", "schlaubi")])
    events = act(state, 0, {"type": "collect", "card": card("chef-turn2", state, 0),
                            "flip": [4, 1]})
    assert [e.kind for e in events] == ["flip", "flip", "collect", "lay", "end", "win"]
    assert [e.data["id"] for e in events[:2]] == [4, 1]  # in the order named
    assert events[-2].data == {"cause": "refill", "msg": "end_refill"}


def test_a_timeout_event_comes_first() -> None:
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY, turn_seconds=30)
    events = act(state, None, {"type": "timeout"})
    assert [e.kind for e in events] == ["timeout", "party"]
    assert events[0].seat == 0 and events[0].data == {}


# --- last_turn per kind ----------------------------------------------------------------------

def test_last_turn_has_exactly_the_documented_keys_per_kind() -> None:
    state = build([["party", "steal", "steal"], ["steal", "party", "party"]],
                  display=DISPLAY, baskets=[{}, {}])
    assert GAME.view(state, None)["last_turn"] is None  # before the first turn
    played = card("party", state, 0)
    act(state, 0, {"type": "party", "card": played, "mushroom": "chef"})
    assert GAME.view(state, 1)["last_turn"] == {
        "seat": 0, "kind": "party", "card": played, "mushroom": "chef", "taken": 2,
        "flipped": [], "laid": [5, 6]}
    steal = card("steal", state, 1)
    act(state, 1, {"type": "steal", "card": steal, "victim": 0, "mushroom": "chef"})
    assert GAME.view(state, 0)["last_turn"] == {
        "seat": 1, "kind": "steal", "card": steal, "mushroom": "chef", "victim": 0,
        "taken": 1, "flipped": [], "laid": []}
    act(state, 0, {"type": "swap", "cards": state.hands[0][:2]})
    assert GAME.view(state, None)["last_turn"] == {
        "seat": 0, "kind": "swap", "count": 2, "flipped": [], "laid": []}


def test_legal_steal_flag_is_about_targets_not_about_holding_a_steal_card() -> None:
    state = build([["party", "party", "chef-draw1"], ["party"]], display=DISPLAY,
                  baskets=[{}, {"chef": 1}])
    assert GAME.view(state, 0)["legal"] == {"play": True, "steal": True}
    assert GAME.view(state, 1)["legal"] == {"play": False, "steal": False}


# --- rulebook rules named nowhere else ---------------------------------------------------------

def test_collected_cards_go_onto_the_existing_stack_of_their_type() -> None:
    """Rulebook, "Mushroom basket": further cards of a type go openly onto its stack."""
    state = build([["party", "steal", "steal"], ["party"]], display=DISPLAY,
                  baskets=[{"chef": 2}, {}])
    below = list(state.baskets[0]["chef"])
    act(state, 0, {"type": "party", "card": card("party", state, 0), "mushroom": "chef"})
    assert state.baskets[0]["chef"][:2] == below and counts(state, 0) == {"chef": 4}
    assert all(state.up[c] == "chef" for c in state.baskets[0]["chef"])
    assert GAME.view(state, 1)["players"][0]["basket"]["chef"] == 4


def test_the_back_sides_of_collected_cards_are_not_scored() -> None:
    """Rulebook: "The mushrooms on the back sides of collected mushroom cards have no
    significance ... and are not scored": only a stack's type counts."""
    state = build([["steal"], ["steal"], ["party"]], display=DISPLAY, pile=0,
                  baskets=[{"chef": 2}, {"panik": 1}, {}])
    backs = [state.up[c] for c in state.baskets[0]["chef"]]
    assert backs == ["chef", "chef"]
    by_type = score_baskets([state.basket_counts(s) for s in range(3)])
    # Seat 0's cards carry other mushrooms underneath, yet only Chef scores for seat 0.
    assert [by_type[m][0] for m in by_type] == [0, 3, 0, 0, 0]
    assert by_type["panik"] == [0, 4, 0]


def test_the_remaining_action_cards_form_the_draw_pile_face_down() -> None:
    """Rulebook, "Setup": the action cards left after dealing are the draw pile; a view shows
    its size only, and the discard pile starts empty."""
    state = GAME.setup(5, GAME.parse_options({}), SeededRng(b"deal"))
    view = GAME.view(state, None)
    assert view["action_pile"] == 26 - 15 == len(state.action_pile)
    assert view["action_discard"] == {"count": 0, "top": None}


# --- options ---------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", [{"turn_seconds": 14}, {"turn_seconds": 301},
                                 {"turn_timer": False, "turn_seconds": 5}, {"timer": True}])
def test_options_out_of_range_or_unknown_are_refused_even_with_the_timer_off(raw: dict) -> None:
    with pytest.raises(MalformedAction):
        GAME.parse_options(raw)


def test_options_are_read_leniently_and_filled_in() -> None:
    parsed = GAME.parse_options({"memory_aid": "true", "turn_seconds": "30"})
    assert parsed.model_dump(mode="json") == {"memory_aid": True, "turn_timer": False,
                                              "turn_seconds": 30}
    state = GAME.setup(2, parsed, SeededRng(b"opts"))
    assert GAME.view(state, None)["turn_seconds"] == 0 and GAME.timers(state) == []
    timed = GAME.setup(2, GAME.parse_options({"turn_timer": True}), SeededRng(b"opts"))
    assert GAME.view(timed, None)["turn_seconds"] == 60
    [timer] = GAME.timers(timed)
    assert (timer.seconds, timer.label, timer.seats) == (60, "Turn", (timed.turn,))


# --- decisions 13 and 16 ---------------------------------------------------------------------

def test_the_opening_four_are_laid_out_without_events_and_numbered_one_to_four() -> None:
    """Decision 13: setup makes no events (no frame exists yet), so nobody sees the opening
    four's down sides; decision 14: they are display numbers 1 to 4."""
    state = GAME.setup(3, GAME.parse_options({}), SeededRng(b"opening"))
    view = GAME.view(state, 0)
    assert [e["id"] for e in view["display"]] == [1, 2, 3, 4]
    assert all(set(e) == {"id", "up"} for e in view["display"])
    assert view["last_turn"] is None and view["turn_number"] == 1


def test_lay_and_flip_events_are_transient_with_no_text_or_seat() -> None:
    """Decision 16: they are for the animation; the collect event tells the story."""
    state = build([["chef-turn1", "steal", "steal"], ["party"]], display=DISPLAY)
    events = act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0),
                            "flip": [4]})
    for event in events:
        if event.kind in ("lay", "flip"):
            assert event.transient and event.text == "" and event.seat is None
        else:
            assert not event.transient and event.text
    assert {e.kind for e in events} >= {"flip", "collect", "lay"}


def test_a_drawn_action_card_goes_to_the_end_of_the_hand() -> None:
    state = build([["steal", "party", "chef-draw1"], ["party"]], display=DISPLAY,
                  action_pile=["gifti-turn1", "panik-turn1"])
    keep = [card("steal", state, 0), card("chef-draw1", state, 0)]
    top = state.action_pile[-1]
    act(state, 0, {"type": "party", "card": card("party", state, 0), "mushroom": "chef"})
    assert [c["id"] for c in GAME.view(state, 0)["hand"]] == keep + [top]


# --- the action table's examples and the optional flip ------------------------------------------

def test_the_action_tables_example_cards_are_what_the_table_says() -> None:
    """docs/games/panik-pilze.md, "Actions": card 5 is a Draw card (Chef, Draw 2), 19 a Turn 2
    card, 22 a Mushroom Party, 24 a Steal (ids 4*t .. 4*t+3 per type, then 20..22, 23..25)."""
    from app.games.panik_pilze.cards import ACTION_CARDS

    assert (ACTION_CARDS[5].kind, ACTION_CARDS[5].mushroom, ACTION_CARDS[5].action,
            ACTION_CARDS[5].count) == ("collect", "chef", "draw", 2)
    assert (ACTION_CARDS[19].action, ACTION_CARDS[19].count) == ("turn", 2)
    assert ACTION_CARDS[22].kind == "party" and ACTION_CARDS[24].kind == "steal"
    for raw in ({"type": "collect", "card": 5, "flip": []}, {"type": "collect", "card": 5},
                {"type": "collect", "card": 19, "flip": [10, 11]},
                {"type": "party", "card": 22, "mushroom": "panik"},
                {"type": "steal", "card": 24, "victim": 2, "mushroom": "chef"},
                {"type": "swap", "cards": [3, 18]}):
        GAME.parse_action(raw)


def test_a_turn_card_without_flip_reads_as_no_numbers_and_is_illegal_not_malformed() -> None:
    """``flip`` is the one optional field: left out it is ``[]``."""
    state = build([["chef-turn1", "chef-draw1", "steal"], ["party"]], display=DISPLAY)
    with pytest.raises(IllegalAction):
        act(state, 0, {"type": "collect", "card": card("chef-turn1", state, 0)})
    act(state, 0, {"type": "collect", "card": card("chef-draw1", state, 0)})
    assert state.turn == 1


def test_legal_actions_list_each_turn_choice_in_every_order() -> None:
    """``legal_actions``: a Turn 2 card with each pair of display numbers in both orders (the
    order named is the order they turn), in the order of ``itertools.permutations`` over the
    display; every swap in every order (they go on the discard pile in the order named): exactly
    what is accepted (issue 25, item 3)."""
    state = build([["chef-turn2", "party", "steal"], ["party"]], display=DISPLAY)
    turn2 = card("chef-turn2", state, 0)
    legal = GAME.legal_actions(state, 0)
    flips = [a["flip"] for a in legal if a["type"] == "collect"]
    assert flips == [[1, 2], [1, 3], [1, 4], [2, 1], [2, 3], [2, 4], [3, 1], [3, 2], [3, 4],
                     [4, 1], [4, 2], [4, 3]]
    parties = [a["mushroom"] for a in legal if a["type"] == "party"]
    assert parties == ["schlaubi", "chef", "knuddel", "panik", "gifti"]
    a, b, c = state.hands[0]
    swaps = [x["cards"] for x in legal if x["type"] == "swap"]
    assert swaps == [[a], [b], [c], [a, b], [a, c], [b, a], [b, c], [c, a], [c, b],
                     [a, b, c], [a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]]
    assert [x["type"] for x in legal][-15:] == ["swap"] * 15
    act(state, 0, {"type": "collect", "card": turn2, "flip": [4, 1]})
    assert state.turn == 1


def test_a_swap_that_uses_up_the_action_pile_leaves_an_empty_discard_pile_in_the_view() -> None:
    """Rulebook: "If the action-card draw pile is used up, shuffle the discard pile": the swapped
    cards go back into the new draw pile, so the discard pile's top is no longer the last card
    named (docs/games/panik-pilze.md, "The view", ``last_turn`` of a swap)."""
    state = build([["steal", "party", "chef-draw1"], ["party"]], display=DISPLAY,
                  action_pile=["gifti-turn1"])
    gone = state.hands[0][:2]
    events = act(state, 0, {"type": "swap", "cards": gone})
    assert [e.kind for e in events] == ["swap", "reshuffle"]
    view = GAME.view(state, 1)
    assert view["action_discard"] == {"count": 0, "top": None}
    assert view["action_pile"] == len(state.action_pile) and set(gone) <= set(
        state.action_pile + state.hands[0])
    assert view["players"][0]["hand"] == 3
    assert view["last_turn"] == {"seat": 0, "kind": "swap", "count": 2, "flipped": [], "laid": []}
