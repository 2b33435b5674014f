"""The conformance suite: what every game must pass, checked over every registered game, found
through the registry (so Higher or Lower, the game that lives only in the tests, installed from
tests/game_packages/, is checked like the site's own: docs/adding-a-game.md).

- the interface: ids, titles, player counts, typed options (strict shape, lax values), actions
  whose senders the game names (``system_actions``, ``shared_actions``);
- legal lists: every listed action is accepted, and no action near them that is not listed is;
  a match never gets stuck with nobody able to act;
- strict actions: an integer sent as text, a float or a flag is malformed;
- views: JSON, and snapshots that later moves never change;
- secrecy: a seat's view and legal list are the same in every state it cannot tell apart
  (``Game.hidden_variant``), so no frame carries what its seat may not see;
- replay: a finished match replays from its seed, options and log to the same views and result;
- events: each has its wording in every language, with every placeholder filled;
- the room: bad actions never change a match or reach anyone but their sender, state frames carry
  exactly the engine's view, legal list, active seats and timers; bots finish a match;
- the real WebSocket: a match played over the protocol to its stored, replayable record.
"""
