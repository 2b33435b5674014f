"""The rules of Panik Pilze as functions over ``PilzeState`` (docs/games/panik-pilze.md).

Every function here is pure apart from mutating the state it is given; chance comes only from
the ``SeededRng`` passed in. ``game.py`` validates before calling ``play_*``.
"""

from __future__ import annotations

from app.engine import Event, IllegalAction, SeededRng

from .cards import (
    ACTION_CARDS, ACTION_DECK, DISPLAY_SIZE, HAND_SIZE, MUSHROOM_CARDS, MUSHROOM_DECK,
    MUSHROOM_NAMES, MUSHROOMS, other_side,
)
from .state import EndCause, PilzeState

MAX_TURNS = 300
"""The last turn a match may have (docs/games/panik-pilze.md, "The bound"): swaps, steals and
parties lay out no card, so turns that empty no pile could go on for ever. A game takes about
40 turns; 300 are seven games' worth."""

def new_state(players: int, memory_aid: bool, turn_seconds: int, rng: SeededRng) -> PilzeState:
    """Setup (rulebook, "Setup"): shuffle the mushroom cards (each lands either side up: a coin
    from the rng, decision 3), lay out the top four flipped, shuffle the action cards, deal three
    to each player; a random start player (docs/games/panik-pilze.md, decision 4)."""
    pile = list(range(MUSHROOM_DECK))
    rng.shuffle(pile, step="mushroom_pile")
    up = [MUSHROOM_CARDS[c][rng.randbelow(2, step="mushroom_side")] for c in range(MUSHROOM_DECK)]
    actions = list(range(ACTION_DECK))
    rng.shuffle(actions, step="action_pile")
    state = PilzeState(
        players=players, memory_aid=memory_aid, turn_seconds=turn_seconds, up=up, pile=pile,
        baskets=[{m: [] for m in MUSHROOMS} for _ in range(players)],
        hands=[[actions.pop() for _ in range(HAND_SIZE)] for _ in range(players)],
        action_pile=actions,
    )
    for _ in range(DISPLAY_SIZE):
        lay_out(state)
    state.turn = rng.randbelow(players, step="start_seat")
    state.turn_serial = 1
    return state


# --- the mushroom cards ----------------------------------------------------------------------

def lay_out(state: PilzeState) -> Event:
    """Move the pile's top card into the display, flipped over (rulebook: "placed into the
    display with their back sides facing up"): the side everyone saw on the pile goes down.

    Returns a transient ``lay`` event whose data names both sides: the moment the card leaves
    the pile is the moment everyone sees both (decision 5); views never show the down side.
    """
    card = state.pile.pop()
    seen = state.up[card]
    state.up[card] = other_side(card, seen)
    state.laid += 1
    state.serial[card] = state.laid
    state.display.append(card)
    return Event("", None, "lay", {"id": state.laid, "up": state.up[card], "was": seen},
                 transient=True)


def flip(state: PilzeState, serial: int) -> Event:
    """Turn one display card over (a collect card's "turn" action): its new up side is public."""
    card = state.display_by_serial()[serial]
    state.up[card] = other_side(card, state.up[card])
    return Event("", None, "flip", {"id": serial, "up": state.up[card]}, transient=True)


def take_from_display(state: PilzeState, seat: int, mushroom: str) -> int:
    """Every display card showing ``mushroom`` goes onto the seat's stack of that type (zero is
    allowed, decision 6). Returns how many."""
    taken = [c for c in state.display if state.up[c] == mushroom]
    if taken:
        state.display = [c for c in state.display if state.up[c] != mushroom]
        for card in taken:
            del state.serial[card]
        state.baskets[seat][mushroom].extend(taken)
    return len(taken)


# --- the action cards ------------------------------------------------------------------------

def draw_action(state: PilzeState, seat: int, rng: SeededRng) -> list[Event]:
    """The seat draws one action card. The moment the draw pile is used up, the discard pile is
    shuffled into a new draw pile (rulebook, last line of "The Game Begins!"; decision 8)."""
    events = _reshuffle(state, rng) if not state.action_pile else []
    state.hands[seat].append(state.action_pile.pop())
    if not state.action_pile:
        events += _reshuffle(state, rng)
    return events


def _reshuffle(state: PilzeState, rng: SeededRng) -> list[Event]:
    if not state.action_discard:
        return []
    state.action_pile = state.action_discard
    state.action_discard = []
    rng.shuffle(state.action_pile, step="action_reshuffle")
    return [Event("The action discard pile is shuffled into a new draw pile", None, "reshuffle")]


def discard_from_hand(state: PilzeState, seat: int, card: int) -> None:
    state.hands[seat].remove(card)
    state.action_discard.append(card)


# --- a turn ----------------------------------------------------------------------------------

def check_card(state: PilzeState, seat: int, card: int, kind: str) -> None:
    if card not in state.hands[seat]:
        raise IllegalAction("that action card is not in your hand")
    if ACTION_CARDS[card].kind != kind:
        raise IllegalAction(f"that card is not a {kind} card")


def check_collect(state: PilzeState, seat: int, card: int, flips: list[int]) -> None:
    """A collect card: "turn N" names exactly N different display cards; "draw N" names none."""
    check_card(state, seat, card, "collect")
    spec = ACTION_CARDS[card]
    if spec.action == "draw":
        if flips:
            raise IllegalAction("a draw card turns no cards over")
        return
    if len(flips) != spec.count or len(set(flips)) != len(flips):
        raise IllegalAction(f"choose {spec.count} different display card(s) to turn over")
    shown = state.display_by_serial()
    if any(f not in shown for f in flips):
        raise IllegalAction("that card is not in the display")


def check_steal(state: PilzeState, seat: int, card: int, victim: int, mushroom: str) -> None:
    """Steal: the top card of one opponent's stack (decision 7); refused with no such card."""
    check_card(state, seat, card, "steal")
    if not steal_targets(state, seat):
        raise IllegalAction("no opponent has a mushroom to steal: play another card or swap")
    if victim == seat or not 0 <= victim < state.players:
        raise IllegalAction("steal from an opponent")
    if not state.baskets[victim][mushroom]:
        raise IllegalAction(f"that player has no {MUSHROOM_NAMES[mushroom]}")


def check_swap(state: PilzeState, seat: int, cards: list[int]) -> None:
    if len(set(cards)) != len(cards):
        raise IllegalAction("name each card once")
    if any(c not in state.hands[seat] for c in cards):
        raise IllegalAction("that action card is not in your hand")


def steal_targets(state: PilzeState, seat: int) -> list[tuple[int, str]]:
    """Every (opponent, type) with a card to steal, in seat order from the next seat."""
    out = []
    for step in range(1, state.players):
        victim = (seat + step) % state.players
        out += [(victim, m) for m in MUSHROOMS if state.baskets[victim][m]]
    return out


def play_collect(
    state: PilzeState, seat: int, card: int, flips: list[int], rng: SeededRng
) -> list[Event]:
    """A collect card: its action first, then take every display card of its type (rulebook,
    "Collect card"). A draw that lays out the pile's last card ends the game after this
    collection (decision 10)."""
    spec = ACTION_CARDS[card]
    mushroom = str(spec.mushroom)
    discard_from_hand(state, seat, card)
    events: list[Event] = []
    laid: list[int] = []
    if spec.action == "draw":
        for _ in range(min(spec.count, len(state.pile))):
            events.append(lay_out(state))
            laid.append(state.laid)
    else:
        events += [flip(state, f) for f in flips]
    taken = take_from_display(state, seat, mushroom)
    events.append(Event(
        "{seat:%d} plays %s, and takes %d %s" % (seat, spec.name, taken, MUSHROOM_NAMES[mushroom]),
        seat, "collect", {"card": card, "mushroom": mushroom, "taken": taken, "n": taken,
                          "action": spec.action, "count": spec.count},
    ))
    state.last_turn = {"seat": seat, "kind": "collect", "card": card, "mushroom": mushroom,
                       "taken": taken, "flipped": list(flips), "laid": laid}
    if not state.pile:
        return events + end_game(state, "draw")
    return events + finish_turn(state, seat, 1, rng)


def play_party(state: PilzeState, seat: int, card: int, mushroom: str,
               rng: SeededRng) -> list[Event]:
    """Mushroom Party: take every display card of the chosen type (rulebook, "Special card")."""
    discard_from_hand(state, seat, card)
    taken = take_from_display(state, seat, mushroom)
    events = [Event(
        "{seat:%d} throws a Mushroom Party for %s and takes %d"
        % (seat, MUSHROOM_NAMES[mushroom], taken),
        seat, "party", {"card": card, "mushroom": mushroom, "taken": taken, "n": taken},
    )]
    state.last_turn = {"seat": seat, "kind": "party", "card": card, "mushroom": mushroom,
                       "taken": taken, "flipped": [], "laid": []}
    return events + finish_turn(state, seat, 1, rng)


def play_steal(state: PilzeState, seat: int, card: int, victim: int, mushroom: str,
               rng: SeededRng) -> list[Event]:
    """Steal: the top card of the victim's stack goes onto the thief's stack of that type, the
    same side up (rulebook, "Steal card")."""
    discard_from_hand(state, seat, card)
    state.baskets[seat][mushroom].append(state.baskets[victim][mushroom].pop())
    events = [Event(
        "{seat:%d} steals a %s from {seat:%d}" % (seat, MUSHROOM_NAMES[mushroom], victim),
        seat, "steal", {"card": card, "mushroom": mushroom, "victim": victim},
    )]
    state.last_turn = {"seat": seat, "kind": "steal", "card": card, "mushroom": mushroom,
                       "victim": victim, "taken": 1, "flipped": [], "laid": []}
    return events + finish_turn(state, seat, 1, rng)


def play_swap(state: PilzeState, seat: int, cards: list[int], rng: SeededRng) -> list[Event]:
    """Swap: 1 to 3 hand cards onto the discard pile, then draw as many (rulebook, "Swap action
    cards"; decision 8: discard first, then draw)."""
    for card in cards:
        discard_from_hand(state, seat, card)
    n = len(cards)
    events = [Event("{seat:%d} swaps %d action card%s" % (seat, n, "" if n == 1 else "s"),
                    seat, "swap", {"count": n, "n": n})]
    state.last_turn = {"seat": seat, "kind": "swap", "count": n, "flipped": [], "laid": []}
    return events + finish_turn(state, seat, n, rng)


def finish_turn(state: PilzeState, seat: int, draws: int, rng: SeededRng) -> list[Event]:
    """The refills (rulebook, end of "The Game Begins!"): the hand back to three, then the
    display back to four; if the pile runs out during the refill the game ends at once
    (decision 10). Then the next seat clockwise (increasing seat number)."""
    events: list[Event] = []
    for _ in range(draws):
        events += draw_action(state, seat, rng)
    while len(state.display) < DISPLAY_SIZE and state.pile:
        events.append(lay_out(state))
        if state.last_turn is not None:
            state.last_turn["laid"].append(state.laid)
        if not state.pile:
            return events + end_game(state, "refill")
    if state.turns_played + 1 >= MAX_TURNS:
        return events + end_game(state, "limit")
    state.turns_played += 1
    state.turn = (seat + 1) % state.players
    state.turn_serial += 1
    return events


def end_game(state: PilzeState, cause: EndCause) -> list[Event]:
    """The game ends as soon as the last card has been laid out from the pile (rulebook, "End
    of the Game and Scoring"), or with the last turn a match may have (``MAX_TURNS``, after that
    turn's refills): scored the same way."""
    state.phase = "over"
    state.end_cause = cause
    state.turns_played += 1
    if cause == "limit":
        return [Event(f"The game reached its limit of {MAX_TURNS} turns: the game ends", None,
                      "end", {"cause": cause, "n": MAX_TURNS, "msg": "end_limit"})]
    when = "by a draw action" if cause == "draw" else "in the refill"
    return [Event(f"The last mushroom card left the pile {when}: the game ends", None, "end",
                  {"cause": cause, "msg": "end_draw" if cause == "draw" else "end_refill"})]
