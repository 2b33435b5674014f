"""The rules of Panique as functions over ``PaniqueState`` (docs/games/panique.md).

Every die is rolled by a person: a ``roll`` move by the seat the game waits on (or by the system
when that seat's 10 s run out); the value is drawn from the match's ``SeededRng`` inside the move.
Every choice the tables offer is a ``choose`` move of the active player. Functions that change
the state return the public ``Event``s they caused.
"""

from __future__ import annotations

from app.engine import Event, SeededRng

from .board import ENTER, LEAVE, SLIME_PIT, SPACES
from .state import MAX_LIFE, Heir, PaniqueState, Pending, Purpose
from .tables import ALLY_OPTIONS, BUTLER_OPTIONS, ENCOUNTER, TABLES, Entry, Op

ROLL_SECONDS = 10
"""docs/games/panique.md: a roll not made within 10 s is made for the roller."""
MAX_MOVES = 2_000
"""The last move a match may have (docs/games/panique.md, "The bound"): the dice promise no end
(ties, steps back, lost turns and rests can delay it without limit, however unlikely). A match
of five heirs takes about 135 moves (bench/panique_sim.py); the longest of 3,000 simulated
took 278."""

CHOICES = ("butler", "ally", "rest")
DEFAULTS = {"butler": "decline", "ally": "A", "rest": "stay"}
"""What a choice becomes when its timer runs out (docs/games/panique.md, decision 11)."""
OPTIONS = {"butler": ("accept", "decline"), "ally": ("A", "B", "C"), "rest": ("rest", "stay")}
TARGETED = frozenset({"B", "C"})
REST_LABELS = {"rest": "Rest: forgo your next turn, gain 1 Life Point", "stay": "Keep going"}
REST_FULL_LABEL = "Rest: forgo your next turn (already at 3 Life Points)"
"""The ``rest`` label for an heir already at 3 Life Points (decision 9: nothing to gain)."""
ALLY_LABELS = ALLY_OPTIONS
BUTLER_LABELS = BUTLER_OPTIONS


def d8(rng: SeededRng) -> int:
    return rng.randint(1, 8, step="die")


# --- setup and waiting -----------------------------------------------------------------------

def new_state(players: int, choice_seconds: int) -> PaniqueState:
    """Rulebook, "Getting ready to play": every heir on Enter with 3 Life Points. With two or
    more, everyone rolls for the first turn; alone, the heir goes first and the Circle of Life is
    rolled."""
    state = PaniqueState(players, choice_seconds, [Heir() for _ in range(players)])
    if players == 1:
        state.phase = "play"
        state.first = 0
        wait(state, "circle", [roller(state, 0)], heir=0)
    else:
        wait(state, "order", list(range(players)))
    return state


def wait(state: PaniqueState, purpose: Purpose, seats: list[int], table: str | None = None,
         heir: int | None = None) -> None:
    """The game now waits on ``seats`` for a roll or a choice (a new timer each time)."""
    state.serial += 1
    state.pending = Pending(purpose, list(seats), table, heir)


def roller(state: PaniqueState, heir: int) -> int:
    """Who rolls the encounter dice for ``heir``: the player on its left (the next seat; alone,
    the heir's own player), or, once an heir is out, the first player eliminated (rulebook,
    "Playing the game")."""
    if state.first_out is not None:
        return state.first_out
    return (heir + 1) % state.players


def is_choice(pending: Pending | None) -> bool:
    return pending is not None and pending.purpose in CHOICES


def allowed_options(state: PaniqueState) -> tuple[str, ...]:
    """The options of the pending choice. The Ally's B and C need another living heir
    (docs/games/panique.md: with none, only A is offered)."""
    pending = state.pending
    assert pending is not None
    if pending.purpose == "ally" and not ally_targets(state):
        return ("A",)
    return OPTIONS[pending.purpose]


def ally_targets(state: PaniqueState) -> list[int]:
    """The other heirs still in the house (the Ally's B and C move one of them back)."""
    return [s for s in state.living() if s != state.turn]


# --- rolls -----------------------------------------------------------------------------------

def roll(state: PaniqueState, seat: int | None, rng: SeededRng) -> list[Event]:
    """The pending roll is made: by ``seat``, or by the system (``None``) for every seat that
    has not rolled yet."""
    pending = state.pending
    assert pending is not None and pending.purpose not in CHOICES
    if pending.purpose == "order":
        return _roll_order(state, seat, rng)
    who = pending.seats[0]
    value = d8(rng)
    auto = " (automatically)" if seat is None else ""
    sfx = "_auto" if seat is None else ""
    if pending.purpose == "circle":
        state.circle = value
        _note_roll(state, who, "circle", value, "circle")
        events = [Event("{seat:%d} rolls the Circle of Life%s: %d" % (who, auto, value), who,
                        "roll", {"die": "circle", "value": value, "purpose": "circle",
                                 "msg": "roll_circle" + sfx})]
        return events + start_turn(state, state.first if state.first is not None else 0)
    heir = pending.heir
    assert heir is not None
    if pending.purpose == "move":
        _note_roll(state, who, "own", value, "move")
        return _move_roll(state, heir, value, auto)
    if pending.purpose == "encounter":
        state.circle = value
        _note_roll(state, who, "circle", value, "encounter")
        events = [Event("{seat:%d} rolls the Circle of Life for {seat:%d}%s: %d"
                        % (who, heir, auto, value), who, "roll",
                        {"die": "circle", "value": value, "purpose": "encounter", "heir": heir,
                         "msg": "roll_encounter" + sfx})]
        return events + resolve_entry(state, heir, ENCOUNTER.entry_for(value), value, who, rng)
    table = TABLES[pending.table or ""]
    _note_roll(state, who, "detail", value, "table")
    events = [Event("{seat:%d} rolls again for {seat:%d}%s: %d" % (who, heir, auto, value), who,
                    "roll", {"die": "detail", "value": value, "purpose": "table",
                             "table": table.id, "heir": heir, "msg": "roll_table" + sfx})]
    return events + resolve_entry(state, heir, table.entry_for(value), value, who, rng)


def _note_roll(state: PaniqueState, seat: int, die: str, value: int, purpose: str) -> None:
    state.last_roll = {"seat": seat, "die": die, "value": value, "purpose": purpose,
                       "serial": state.serial}


def _roll_order(state: PaniqueState, seat: int | None, rng: SeededRng) -> list[Event]:
    """docs/games/panique.md: everyone rolls, the highest goes first, the tied roll again."""
    pending = state.pending
    assert pending is not None
    events: list[Event] = []
    for s in ([seat] if seat is not None else list(pending.seats)):
        value = d8(rng)
        state.order_rolls[s] = value
        pending.seats.remove(s)
        _note_roll(state, s, "own", value, "order")
        auto = " (automatically)" if seat is None else ""
        events.append(Event("{seat:%d} rolls %d for the first turn%s" % (s, value, auto), s,
                            "roll", {"die": "own", "value": value, "purpose": "order",
                                     "msg": "roll_order" + ("_auto" if auto else "")}))
    if pending.seats:
        return events
    top = max(state.order_rolls.values())
    tied = sorted(s for s, v in state.order_rolls.items() if v == top)
    if len(tied) > 1:
        markers = ["{seat:%d}" % s for s in tied]
        names = ", ".join(markers[:-1]) + " and " + markers[-1]
        events.append(Event(f"{names} tie with {top}: they roll again", None, "order",
                            {"tied": tied, "top": top, "msg": "tie"}))
        state.order_rolls = {}
        wait(state, "order", tied)
        return events
    first = tied[0]
    state.first = first
    state.phase = "play"
    events.append(Event("{seat:%d} goes first" % first, first, "order", {"first": first, "msg": "first"}))
    wait(state, "circle", [roller(state, first)], heir=first)
    return events


def _move_roll(state: PaniqueState, heir: int, value: int, auto: str) -> list[Event]:
    """Rulebook, "Playing the game"; docs/games/panique.md: move forward by the difference
    between your die and the Circle of Life; on a tie stay and meet an encounter on the spot
    ("Panique!")."""
    circle = state.circle or 0
    diff = abs(value - circle)
    events = [Event("{seat:%d} rolls %d against the Circle's %d%s" % (heir, value, circle, auto),
                    heir, "roll", {"die": "own", "value": value, "purpose": "move",
                                   "circle": circle, "steps": diff,
                                   "msg": "roll_move" + ("_auto" if auto else "")})]
    if diff == 0:
        events.append(Event("Panique! {seat:%d} stays put and meets an encounter" % heir, heir,
                            "panique"))
        return events + start_encounter(state, heir)
    events += move(state, heir, diff)
    if state.phase == "over" or state.heirs[heir].status != "in":
        return events + finish_turn(state)
    return events + land(state, heir)


# --- spaces and encounters -------------------------------------------------------------------

def land(state: PaniqueState, heir: int) -> list[Event]:
    """The movement roll put ``heir`` on its space: the space's instruction, or an encounter on
    a blank space."""
    space = SPACES[state.heirs[heir].space]
    if space.blank:
        return start_encounter(state, heir)
    events = [Event("{seat:%d} lands on the %s: %s" % (heir, space.name, space.text), heir,
                    "space", {"space": space.index})]
    if space.roll is not None:
        table = TABLES[space.roll]
        open_card(state, heir, table.id)
        wait(state, "table", [roller(state, heir)], table=table.id, heir=heir)
        return events
    events += apply_ops(state, heir, space.effect)
    return events + finish_turn(state)


def start_encounter(state: PaniqueState, heir: int) -> list[Event]:
    """The player on the heir's left rolls the Circle of Life on the Encounter Table."""
    open_card(state, heir, ENCOUNTER.id)
    wait(state, "encounter", [roller(state, heir)], heir=heir)
    return []


def open_card(state: PaniqueState, heir: int, table: str) -> None:
    """A new encounter card for ``heir``: its lines come with each roll, its outcome at the end.
    ``table``: the id of the table that names the card (``title``, its English title)."""
    h = state.heirs[heir]
    state.card = {"heir": heir, "table": table, "title": TABLES[table].title, "space": h.space,
                  "lines": [], "done": False, "outcome": None}
    state.card_before = (h.life, h.space, h.lost_turns)


def close_card(state: PaniqueState) -> None:
    """The encounter is over: its outcome for the heir it was about (Life Points gained or lost,
    spaces moved, turns to lose added, vampire, out or escaped)."""
    card = state.card
    if card is None or card["done"]:
        return
    card["done"] = True
    if state.card_before is None:
        return
    life, space, lost = state.card_before
    h = state.heirs[card["heir"]]
    card["outcome"] = {"life": h.life - life, "steps": h.space - space,
                       "lost_turns": max(0, h.lost_turns - lost), "vampire": h.vampire,
                       "status": h.status}


def resolve_entry(state: PaniqueState, heir: int, entry: Entry, value: int, rolled_by: int,
                  rng: SeededRng) -> list[Event]:
    """An entry of a table was rolled: quote it, then roll again, offer its choice, or do it."""
    table_id = entry.id.rsplit(".", 1)[0]
    table = TABLES[table_id]
    card = state.card
    if card is not None:
        if entry.roll is not None and table_id == "encounter":
            card["table"] = entry.roll
            card["title"] = TABLES[entry.roll].title
        card["lines"].append({"entry": entry.id, "table": table_id, "roll": value,
                              "roller": rolled_by, "text": entry.text})
    events = [Event(entry.text, heir, "encounter",
                    {"entry": entry.id, "table": table_id, "title": table.title, "roll": value,
                     "quote": entry.text})]
    if entry.roll is not None:
        wait(state, "table", [roller(state, heir)], table=entry.roll, heir=heir)
        return events
    if entry.choice is not None:
        wait(state, entry.choice, [heir], heir=heir)  # type: ignore[arg-type]
        return events
    events += apply_ops(state, heir, entry.effect)
    return events + finish_turn(state)


# --- choices ---------------------------------------------------------------------------------

def choose(state: PaniqueState, option: str, target: int | None, timed_out: bool = False
           ) -> list[Event]:
    """The pending choice is made (already validated)."""
    pending = state.pending
    assert pending is not None and pending.heir is not None
    heir = pending.heir
    how = " (time ran out)" if timed_out else ""
    late = "_late" if timed_out else ""
    events: list[Event] = []
    if pending.purpose == "butler":
        if option == "accept":
            events.append(Event("{seat:%d} accepts the Butler's offer%s" % (heir, how), heir,
                                "choice", {"option": option, "msg": "butler_accept" + late}))
            wait(state, "table", [roller(state, heir)], table="butler.1-4", heir=heir)
            return events
        events.append(Event("{seat:%d} refuses the Butler's offer%s" % (heir, how), heir,
                            "choice", {"option": option, "msg": "butler_refuse" + late}))
        events += apply_ops(state, heir, (("lose_turn", 1),))
        return events + finish_turn(state)
    if pending.purpose == "ally":
        data: dict = {"option": option, "msg": "ally" + late}
        if target is not None:
            data.update(target=target, msg="ally_target" + late)
        who = " on {seat:%d}" % target if target is not None else ""
        events.append(Event("{seat:%d} chooses %s%s%s" % (heir, option, who, how), heir, "choice",
                            data))
        if option == "A":
            events += apply_ops(state, heir, (("move", 2),))
        elif option == "B":
            assert target is not None
            events += apply_ops(state, target, (("move", -2),))
        else:
            assert target is not None
            events += apply_ops(state, heir, (("move", 1),))
            if state.phase != "over" and state.heirs[heir].status == "in":
                # An heir out in the middle of an effect (a vampire's forward step onto Leave
                # the House) drops the rest of it: no heir is moved back (decision 12).
                events += apply_ops(state, target, (("move", -1),))
        return events + finish_turn(state)
    # The shared-space rest (rulebook, "Playing the game"; docs/games/panique.md).
    if option == "rest" and state.heirs[heir].life >= MAX_LIFE:
        # Already at 3 Life Points (decision 9): the turn is forgone, nothing is gained, and no
        # `life` event follows (the rest event says so).
        events.append(Event("{seat:%d} rests%s: forgoes the next turn (already at 3 Life Points)"
                            % (heir, how), heir, "rest", {"msg": "rest_full" + late}))
        events += apply_ops(state, heir, (("lose_turn", 1),))
    elif option == "rest":
        events.append(Event("{seat:%d} rests%s: forgoes the next turn and gains 1 Life Point"
                            % (heir, how), heir, "rest", {"msg": "rest" + late}))
        events += apply_ops(state, heir, (("life", 1), ("lose_turn", 1)))
    else:
        events.append(Event("{seat:%d} does not rest%s" % (heir, how), heir, "choice",
                            {"option": option, "msg": "no_rest" + late}))
    return events + _next_rest_or_turn(state)


# --- effects ---------------------------------------------------------------------------------

def apply_ops(state: PaniqueState, heir: int, ops: tuple[Op, ...]) -> list[Event]:
    """Do an effect's operations in order; stop when the heir leaves the board or the match
    ends."""
    h = state.heirs[heir]
    events: list[Event] = []
    for kind, n in ops:
        if h.status != "in" or state.phase == "over":
            break
        if kind == "life":
            events += change_life(state, heir, n)
        elif kind == "move":
            events += move(state, heir, n)
            if h.space == SLIME_PIT and h.status == "in" and state.phase != "over":
                # Sent into the Slime Pit by an effect: no Life Point, the next turn is lost
                # (docs/games/panique.md, decision 5).
                h.lost_turns += 1
                events.append(Event("{seat:%d} ends up in the Slime Pit: the next turn is lost "
                                    "(%d to lose)" % (heir, h.lost_turns), heir, "lost_turn",
                                    {"lost_turns": h.lost_turns, "space": SLIME_PIT,
                                     "msg": "slime_moved"}))
        elif kind == "lose_turn":
            h.lost_turns += n
            events.append(Event("{seat:%d} will lose a turn (%d to lose)" % (heir, h.lost_turns),
                                heir, "lost_turn", {"lost_turns": h.lost_turns}))
        elif kind == "go_to":
            h.space = n
            events.append(Event("{seat:%d} goes back to %s" % (heir, SPACES[n].name), heir,
                                "move", {"space": n, "msg": "go_to"}))
        elif kind == "slime":
            h.space = SLIME_PIT
            h.lost_turns += 1
            events.append(Event("{seat:%d} is sent to the Slime Pit: no Life Point lost, the next "
                                "turn is lost" % heir, heir, "move",
                                {"space": SLIME_PIT, "lost_turns": h.lost_turns, "msg": "slime"}))
        elif kind == "vampire":
            h.vampire = True
            h.life = MAX_LIFE
            events.append(Event("{seat:%d} was bested by the vampire: restored to 3 Life Points, "
                                "and the sun will be fatal" % heir, heir, "vampire",
                                {"life": h.life}))
        else:
            raise ValueError(f"unknown operation {kind!r}")
    return events


def change_life(state: PaniqueState, heir: int, n: int) -> list[Event]:
    """Life Points stay between 0 and 3 (rulebook, "The Lethal Encounter Tables"); at 0 the heir
    is out."""
    h = state.heirs[heir]
    before = h.life
    h.life = max(0, min(MAX_LIFE, h.life + n))
    if h.life > before:
        text, msg = "{seat:%d} gains 1 Life Point (%d)" % (heir, h.life), "life_gain"
    elif h.life < before:
        text, msg = "{seat:%d} loses 1 Life Point (%d)" % (heir, h.life), "life_lose"
    else:
        text, msg = "{seat:%d} already has 3 Life Points" % heir, "life_full"
    events = [Event(text, heir, "life", {"life": h.life, "change": h.life - before, "msg": msg})]
    if h.life == 0:
        events += eliminate(state, heir)
    return events


def move(state: PaniqueState, heir: int, n: int) -> list[Event]:
    """Forward (n > 0) or back; never below Enter; reaching Leave the House escapes
    (docs/games/panique.md)."""
    h = state.heirs[heir]
    start = h.space
    h.space = max(ENTER, min(LEAVE, h.space + n))
    word = "forward" if n > 0 else "back"
    events = [Event("{seat:%d} moves %s %d to %s" % (heir, word, abs(n), SPACES[h.space].name),
                    heir, "move", {"from": start, "space": h.space, "steps": n, "n": abs(n),
                                   "msg": "move_forward" if n > 0 else "move_back"})]
    if h.space == LEAVE:
        events += escape(state, heir)
    return events


def escape(state: PaniqueState, heir: int) -> list[Event]:
    """Rulebook, "Special Victory Condition": a vampire heir at Leave the House drops to 0 Life
    Points and is out; anyone else escapes and wins."""
    h = state.heirs[heir]
    if h.vampire:
        h.life = 0
        events = [Event("{seat:%d} reaches the door, but the sunrise destroys the vampire!"
                        % heir, heir, "sunrise")]
        return events + eliminate(state, heir)
    h.status = "escaped"
    state.winners = [heir]
    end(state, "solo_escape" if state.players == 1 else "escape")
    return [Event("{seat:%d} leaves the house and sees the sunrise: {seat:%d} wins!"
                  % (heir, heir), heir, "win", {"msg": "escape"})]


def eliminate(state: PaniqueState, heir: int) -> list[Event]:
    """At 0 Life Points the heir is out; the first heir out takes over the encounter rolls; the
    last heir alive wins (docs/games/panique.md)."""
    state.heirs[heir].status = "out"
    state.out_order.append(heir)
    events = [Event("{seat:%d} is out of the game" % heir, heir, "out")]
    living = state.living()
    if state.players == 1:
        end(state, "solo_death")
        events.append(Event("{seat:%d} did not survive the night" % heir, heir, "lose"))
        return events
    if len(living) == 1:
        state.winners = living
        end(state, "last_alive")
        events.append(Event("{seat:%d} is the last heir alive and wins!" % living[0], living[0],
                            "win", {"msg": "last_alive"}))
        return events
    if len(state.out_order) == 1:
        events.append(Event("{seat:%d} makes every encounter roll from now on" % heir, heir,
                            "roller"))
    return events


def dawn(state: PaniqueState) -> list[Event]:
    """The match's last move (``MAX_MOVES``) was played with heirs still in the house: the
    night ends, nobody escaped and nobody wins; the heirs rank by how far they got, as at any
    end (docs/games/panique.md, "The bound")."""
    end(state, "dawn")
    return [Event("Dawn breaks after %d moves: nobody escaped the house" % MAX_MOVES, None,
                  "dawn", {"n": MAX_MOVES})]


def end(state: PaniqueState, ending: str) -> None:
    state.phase = "over"
    state.ending = ending
    state.pending = None
    state.rest_queue = []
    close_card(state)


# --- turns -----------------------------------------------------------------------------------

def start_turn(state: PaniqueState, seat: int) -> list[Event]:
    state.turn = seat
    state.turns += 1
    wait(state, "move", [seat], heir=seat)
    return []


def finish_turn(state: PaniqueState) -> list[Event]:
    """The turn's moves and Life Points are done. Heirs sharing the active heir's space may
    rest (rulebook: forgo the next turn, regain 1 Life Point up to 3); each living heir there is
    asked in turn, from the active heir, whatever their Life Points (decision 9)."""
    close_card(state)
    if state.phase == "over":
        return []
    assert state.turn is not None
    active = state.heirs[state.turn]
    queue: list[int] = []
    if active.status == "in":
        sharing = [s for s in state.living() if state.heirs[s].space == active.space]
        if len(sharing) >= 2:
            order = [(state.turn + k) % state.players for k in range(state.players)]
            queue = [s for s in order if s in sharing]
    state.rest_queue = queue
    return _next_rest_or_turn(state)


def _next_rest_or_turn(state: PaniqueState) -> list[Event]:
    if state.rest_queue:
        seat = state.rest_queue.pop(0)
        wait(state, "rest", [seat], heir=seat)
        return []
    return next_turn(state)


def next_turn(state: PaniqueState) -> list[Event]:
    """Play passes to the left (the next seat). An heir with turns to lose loses one now and is
    passed over (they stack: one per turn)."""
    assert state.turn is not None
    events: list[Event] = []
    seat = state.turn
    while True:
        seat = (seat + 1) % state.players
        h = state.heirs[seat]
        if h.status != "in":
            continue
        if h.lost_turns > 0:
            h.lost_turns -= 1
            events.append(Event("{seat:%d} loses this turn (%d more to lose)" % (seat, h.lost_turns),
                                seat, "skip", {"lost_turns": h.lost_turns}))
            continue
        return events + start_turn(state, seat)
