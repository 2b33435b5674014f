"""The rules of Panika as functions over ``PanikaState``.

Functions that change the state return the public ``Event``s they caused. Chance comes only from
the ``SeededRng`` passed in. ``check_play`` is the only legality test for a play, shared by
``validate`` and the helpers that list legal moves.
"""

from __future__ import annotations

from itertools import combinations, permutations

from app.engine import Event, IllegalAction, MalformedAction, NotYourTurn, SeededRng

from .cards import CARDS, DECK_SIZE, PLAY_TWO, REVERSE, TAP
from .state import AfterTaps, PanikaState

HAND_SIZE = 4
"""Rulebook, "Setup" and end of "Special Cards": draw up to 4 cards."""
BURST_MIN, BURST_MAX = 21, 30
"""Rulebook, "The Panika App": the counter bursts on a random number from 21 to 30."""
AUTO_TAP_SECONDS = 8
"""docs/games/panika.md, Tapping: after 8 s without a tap the rest complete by themselves."""
LAST_CARD_SECONDS = 3
BURST_SHOW_SECONDS = 3
"""The burst is shown this long (its number, who burst, the penalty) before the next turn's clock
starts: that turn's timer runs this much longer (docs/games/panika.md, "Turn timer")."""
"""docs/games/panika.md, Last card: the call may come up to 3 s after the turn."""
MAX_MOVES = 2_600
"""More moves than any match can have (docs/games/panika.md, "The bound"): a card played goes
to the discard pile for good, so a match has at most 120 plays; each owes at most 15 taps (its
own 10, one from each of 5 others after a Tap!); each play ends at most one turn and opens at
most one "Last card!" window, closed once (a call, the timer, or a void play); a turn has at
most one call of its own. So at most 120 plays, 120 void plays, 1,800 taps, 120 windows closed
by their timer, 120 calls in a window and 241 calls in turns: 2,521 moves."""


# --- setup and rounds ------------------------------------------------------------------------

def new_state(players: int, turn_seconds: int, rng: SeededRng) -> PanikaState:
    """Rulebook, "Setup": shuffle, deal all 120 cards equally as face-down piles, draw 4 each.

    The first player is a seeded random choice (DECIDED in docs/games/panika.md: "whoever has the
    smallest hands" cannot be judged online). The rng is used in this order: shuffle, first
    burst number, first player.
    """
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck, step="deck")
    per = DECK_SIZE // players
    state = PanikaState(
        players=players,
        turn_seconds=turn_seconds,
        hands=[[] for _ in range(players)],
        piles=[deck[i * per:(i + 1) * per] for i in range(players)],
        last_card_called=[False] * players,
        penalty_cards=[0] * players,
    )
    for seat in range(players):
        _draw_up(state, seat)
    start_round(state, rng)
    begin_turn(state, rng.randbelow(players, step="first_player"), rng)
    return state


def start_round(state: PanikaState, rng: SeededRng) -> None:
    """A new round: counter 0, a new secret burst number drawn uniformly from 21..30, clockwise.

    Rulebook, "End of the Round" and "Reverse" ("A new round always begins in the clockwise
    direction"); docs/games/panika.md: a new number each round from the match's generator.
    """
    state.round += 1
    state.counter = 0
    state.burst_at = rng.randint(BURST_MIN, BURST_MAX, step="burst_number")
    state.direction = 1
    state.play_two = None


def begin_turn(state: PanikaState, seat: int, rng: SeededRng) -> list[Event]:
    """``seat`` is to play. A Play Two victim holding one card cannot play: penalty, the counter
    stays, and the next player plays as usual (rulebook, "Play Two", last bullet)."""
    state.phase = "play"
    state.turn = seat
    state.tap_queue = []
    state.turn_serial += 1
    if state.play_two == seat and len(state.hands[seat]) < 2:
        state.play_two = None
        events = [Event("{seat:%d} has one card and cannot play two" % seat, seat, "play_two",
                    {"msg": "cannot_play_two"})]
        events += give_penalty(state, seat, rng)
        if check_win(state, events):
            return events
        return events + begin_turn(state, state.next_seat(seat), rng)
    return []


def play_two_stranded(state: PanikaState) -> bool:
    """Whether the player choosing a card owes Play Two but holds fewer than two cards (a
    "Last card!" penalty took one from their hand): the rulebook's "Play Two" case of a player
    who cannot play two cards (docs/games/panika.md, decision 10)."""
    return (state.phase == "play" and state.play_two is not None
            and state.play_two == state.turn and len(state.hands[state.turn]) < 2)


# --- plays -----------------------------------------------------------------------------------

def play_effect(cards: list[int]) -> tuple[int, int | None]:
    """The taps a play owes and the special card (id) that acts after them.

    Rulebook, "Vegetable Cards" and "Play Two"; docs/games/panika.md: numbers at face value,
    vegetables 5 each, two identical vegetables 0 (two different: 10); with a special the taps
    come first; with two specials only the second acts.
    """
    played = [CARDS[c] for c in cards]
    plain = [c for c in played if c.kind != "special"]
    specials = [c for c in played if c.kind == "special"]
    if len(plain) == 2 and all(c.kind == "vegetable" for c in plain) \
            and plain[0].vegetable == plain[1].vegetable:
        taps = 0
    else:
        taps = sum(c.taps for c in plain)
    special = specials[-1].id if specials else None
    return taps, special


def check_play(state: PanikaState, seat: int, cards: list[int]) -> None:
    """Raise unless ``seat`` may play ``cards`` now (the order of ``cards`` is kept)."""
    if state.phase == "tapping":
        raise IllegalAction("wait: the counter is being tapped")
    if seat != state.turn:
        raise NotYourTurn("it is not your turn")
    if len(set(cards)) != len(cards):
        raise MalformedAction("the same card twice")
    hand = state.hands[seat]
    for card in cards:
        if card not in hand:
            raise IllegalAction(f"card {card} is not in your hand")
    if state.play_two == seat:
        if len(cards) != 2:
            raise IllegalAction("Play Two: you must play exactly two cards")
        return
    if len(cards) == 2:
        a, b = CARDS[cards[0]], CARDS[cards[1]]
        if not (a.kind == b.kind == "vegetable" and a.vegetable == b.vegetable):
            raise IllegalAction("only two identical vegetables may be played together")


def play(state: PanikaState, seat: int, cards: list[int], rng: SeededRng) -> list[Event]:
    """``seat`` plays ``cards`` (already checked): onto the discard, then its taps or effect."""
    hand = state.hands[seat]
    for card in cards:
        hand.remove(card)
        state.discard.append(card)
    taps, special = play_effect(cards)
    if state.play_two == seat:
        state.play_two = None
    state.last_play = {"seat": seat, "cards": list(cards), "taps": taps}
    events = [Event(_play_text(seat, cards, taps), seat, "play",
                    {"cards": list(cards), "taps": taps, **_play_words(cards, taps)})]
    if taps > 0:
        state.phase = "tapping"
        state.tap_queue = [[seat, taps]]
        state.tap_serial += 1
        state.after_taps = AfterTaps("own", seat, special)
        return events
    return events + _finish_own(state, seat, special, rng)


def _play_text(seat: int, cards: list[int], taps: int) -> str:
    names = [CARDS[c].name for c in cards]
    if len(names) == 1:
        what = names[0]
    elif names[0] == names[1]:
        what = f"two {CARDS[cards[0]].plural}"
    else:
        what = f"{names[0]} and {names[1]}"
    article = "a " if len(cards) == 1 and CARDS[cards[0]].kind != "special" else ""
    text = "{seat:%d} plays %s%s" % (seat, article, what)
    return text + (f" ({taps} tap{'' if taps == 1 else 's'})" if taps else "")


def _play_words(cards: list[int], taps: int) -> dict[str, object]:
    """The play event's message id and parameters for the catalogs (``event.panika.<msg>``):
    the wording of ``_play_text`` as data (docs/games/panika.md, "Events")."""
    terms = [CARDS[c].term for c in cards]
    if len(cards) == 1:
        msg = "play_special" if CARDS[cards[0]].kind == "special" else "play_one"
    else:
        msg = "play_pair" if terms[0] == terms[1] else "play_mixed"
    words: dict[str, object] = {"msg": msg + ("_taps" if taps else ""), "card": terms[0]}
    if len(cards) == 2:
        words["card2"] = terms[1]
    if taps:
        words["n"] = taps
    return words


def _finish_own(state: PanikaState, seat: int, special: int | None,
                rng: SeededRng) -> list[Event]:
    """``seat``'s own taps are done without a burst: draw, then the special acts.

    The player draws before the special acts, so a Tap! player draws before the others tap
    (rulebook, the Tap! example: "She does not tap ... and draws a card").
    """
    events = draw_step(state, seat)
    effect = CARDS[special].special if special is not None else None
    if effect == TAP:
        state.phase = "tapping"
        state.tap_queue = [[state.next_seat(seat, k), 1] for k in range(1, state.players)]
        state.tap_serial += 1
        state.after_taps = AfterTaps("tap_card", seat)
        events.append(Event("Everyone else taps once", seat, "tap_card"))
        return events
    if effect == REVERSE and state.players > 2:
        state.direction = -state.direction
        events.append(Event("The direction reverses", seat, "reverse"))
    nxt = state.next_seat(seat)
    if effect == PLAY_TWO:
        state.play_two = nxt
        events.append(Event("{seat:%d} must play two cards" % nxt, nxt, "play_two"))
    if check_win(state, events):
        return events
    return events + begin_turn(state, nxt, rng)


def draw_step(state: PanikaState, seat: int) -> list[Event]:
    """End of the turn: draw up to 4 (rulebook, end of "Special Cards"), then the "Last card!"
    duty: one card in hand and an empty pile opens the window unless already called."""
    _draw_up(state, seat)
    if len(state.hands[seat]) == 1 and not state.piles[seat]:
        if not state.last_card_called[seat]:
            state.window = seat
            state.window_serial += 1
    else:
        state.last_card_called[seat] = False
    return []


def _draw_up(state: PanikaState, seat: int) -> None:
    hand, pile = state.hands[seat], state.piles[seat]
    while len(hand) < HAND_SIZE and pile:
        hand.append(pile.pop())


# --- taps and bursts -------------------------------------------------------------------------

def tap(state: PanikaState, count: int, rng: SeededRng, auto: bool = False) -> list[Event]:
    """The current tapper taps ``count`` times (1, or all it owes for ``auto_tap``).

    docs/games/panika.md: the counter bursts on the tap that reaches the number; the rest are void.
    """
    entry = state.tap_queue[0]
    seat = entry[0]
    events: list[Event] = []
    if auto:
        events.append(Event("{seat:%d}'s taps complete by themselves" % seat, seat, "auto_tap"))
    for _ in range(count):
        state.counter += 1
        state.total_taps += 1
        entry[1] -= 1
        if state.counter >= state.burst_at:
            return events + burst(state, seat, rng)
    state.tap_serial += 1
    events.append(
        Event("{seat:%d} taps" % seat, seat, "tap", {"counter": state.counter}, transient=True)
    )
    if entry[1] > 0:
        return events
    state.tap_queue.pop(0)
    if state.tap_queue:
        return events
    after = state.after_taps
    assert after is not None
    state.after_taps = None
    if after.kind == "own":
        return events + _finish_own(state, after.seat, after.special, rng)
    if check_win(state, events):
        return events
    return events + begin_turn(state, after.seat, rng)


def burst(state: PanikaState, seat: int, rng: SeededRng) -> list[Event]:
    """``seat`` burst the counter: penalty cards, then a new round begun by the burster's left
    neighbour (rulebook, "End of the Round"). A player who burst on their own play draws up
    after taking the penalty, as at the end of any turn; a pending special does not act."""
    number = state.burst_at
    state.last_burst = {"seat": seat, "number": number, "round": state.round}
    after = state.after_taps
    state.after_taps = None
    state.tap_queue = []
    events = [Event("{seat:%d} bursts the counter at %d!" % (seat, number), seat, "burst",
                    {"number": number})]
    events += give_penalty(state, seat, rng)
    if after is not None and after.kind == "own" and after.seat == seat:
        events += draw_step(state, seat)
    if check_win(state, events):
        return events
    start_round(state, rng)
    first = (seat + 1) % state.players
    events.append(Event("Round %d: {seat:%d} begins" % (state.round, first), first, "round",
                        {"round": state.round}))
    events += begin_turn(state, first, rng)
    state.burst_turn = state.turn_serial  # its clock starts once the burst has been shown
    return events


def give_penalty(state: PanikaState, receiver: int, rng: SeededRng) -> list[Event]:
    """Rulebook, "Penalty Cards": each other player (clockwise from the receiver's left) gives the
    top card of their pile, else a random hand card, else nothing; the cards go on top of the
    receiver's pile."""
    got = 0
    for k in range(1, state.players):
        giver = (receiver + k) % state.players
        if state.piles[giver]:
            card = state.piles[giver].pop()
        elif state.hands[giver]:
            hand = state.hands[giver]
            card = hand.pop(rng.randbelow(len(hand), step="penalty_hand_card"))
        else:
            continue
        state.piles[receiver].append(card)
        got += 1
    state.penalty_cards[receiver] += got
    state.last_card_called[receiver] = False
    plural = "card" if got == 1 else "cards"
    return [Event("{seat:%d} takes %d penalty %s" % (receiver, got, plural), receiver, "penalty",
                  {"cards": got, "n": got})]


# --- "Last card!" ----------------------------------------------------------------------------

def last_card_counts(state: PanikaState, seat: int,
                     plays: list[list[int]] | None = None) -> bool:
    """Whether a "Last card!" call by ``seat`` counts now (docs/games/panika.md, decision 10;
    docs/games/panika.md "Last card": "during the turn or within 3 s after it").

    It counts while ``seat``'s window is open, or during ``seat``'s own turn (choosing a card,
    or tapping for its own play) when that turn can still end with exactly one card in hand and
    an empty pile, whatever the pile holds at the press: the draw at the end of the turn may take
    the pile's last card into the hand. Since the draw keeps hand + pile, that end is possible
    when a play the seat may make leaves exactly one card in all (or, tapping for its play, when
    one card is left). A second call in the same turn, or any other call, is false. ``plays``:
    ``legal_plays(state, seat)`` when the caller has it already (``legal_actions``).
    """
    if state.phase == "over":
        return False
    if state.window == seat:
        return True
    if state.last_card_called[seat]:
        return False
    left = state.cards_left(seat)
    if state.phase == "play" and state.turn == seat:
        if plays is None:
            plays = legal_plays(state, seat)
        return any(left - len(p) == 1 for p in plays)
    own_taps = (state.phase == "tapping" and state.after_taps is not None
                and state.after_taps.kind == "own" and state.after_taps.seat == seat)
    return own_taps and left == 1


def call_last_card(state: PanikaState, seat: int) -> list[Event]:
    """Rulebook, "End of the Game"; docs/games/panika.md "Last card". ``seat``'s call, which counts
    (``last_card_counts``; the engine refuses a false call, so it is never logged): in the
    window it settles the duty; during the turn it is remembered for the end of the turn, where
    it is dropped if it turned out not to be needed (``draw_step``)."""
    if state.window == seat:
        state.window = None
    state.last_card_called[seat] = True
    return [Event("{seat:%d} calls Last card!" % seat, seat, "last_card")]


def close_window(state: PanikaState, rng: SeededRng) -> list[Event]:
    """The "Last card!" window closes without a call: penalty cards, the counter stays."""
    seat = state.window
    if seat is None:
        return []
    state.window = None
    events = [Event("{seat:%d} forgot to call Last card!" % seat, seat, "last_card_forgotten")]
    events += give_penalty(state, seat, rng)
    check_win(state, events)
    return events


# --- the end ---------------------------------------------------------------------------------

def check_win(state: PanikaState, events: list[Event]) -> bool:
    """Everyone with no cards wins together (rulebook, "End of the Game"). A player still tapping
    for their own play has not finished it, so cannot win yet (docs/games/panika.md: "after a
    play fully resolves")."""
    resolving = state.after_taps.seat if state.after_taps is not None else None
    winners = [s for s in range(state.players)
               if s != resolving and not state.hands[s] and not state.piles[s]]
    if not winners:
        return False
    state.phase = "over"
    state.winners = winners
    state.tap_queue = []
    state.after_taps = None
    state.window = None
    state.play_two = None
    for s in winners:
        events.append(Event("{seat:%d} wins!" % s, s, "win"))
    return True


# --- the absent player's bot -----------------------------------------------------------------

def bot_play(state: PanikaState, seat: int) -> list[int]:
    """The play made for a player whose turn timer ran out: the fewest taps, ties to the lowest
    card ids; with Play Two pending, the two cards (in id order) with the fewest taps."""
    hand = sorted(state.hands[seat])
    if state.play_two == seat:
        pairs = [list(p) for p in combinations(hand, 2)]
        return min(pairs, key=lambda p: (play_effect(p)[0], p))
    return [min(hand, key=lambda c: (CARDS[c].taps, c))]


def legal_plays(state: PanikaState, seat: int) -> list[list[int]]:
    """Every play ``seat`` may make now, exactly as ``check_play`` accepts them: each card
    alone, then every ordered pair that may go together (two identical vegetables in both
    orders, since either order is accepted and puts the second on top of the discard; under
    Play Two every ordered pair, where the order decides which special acts). docs/games/
    panika.md, "Legal actions"."""
    if state.phase != "play" or seat != state.turn:
        return []
    hand = state.hands[seat]
    if state.play_two == seat:
        return [list(p) for p in permutations(hand, 2)]
    plays = [[c] for c in hand]
    for a, b in permutations(hand, 2):
        ca, cb = CARDS[a], CARDS[b]
        if ca.kind == cb.kind == "vegetable" and ca.vegetable == cb.vegetable:
            plays.append([a, b])
    return plays
