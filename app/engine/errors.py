"""Errors an engine raises, named by their cause (as python-chess does).

The room turns each into an ``error`` frame for the sender only; none of them changes the state.
"""


class EngineError(Exception):
    """Base class: an action was refused. ``code`` is the protocol's error code."""

    code = "engine_error"


class MalformedAction(EngineError):
    """The action is not one this game knows, or its fields have the wrong shape."""

    code = "malformed_action"


class IllegalAction(EngineError):
    """The action is well formed but the rules forbid it now."""

    code = "illegal_action"


class NotYourTurn(IllegalAction):
    """The rules do not let this seat act now."""

    code = "not_your_turn"
