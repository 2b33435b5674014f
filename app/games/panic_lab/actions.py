"""Panic Lab's room options and actions (pydantic models; the lobby renders the options form)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, RootModel

from app.engine import ActionModel, GameOptions
from app.engine.interface import EXPERT


class PanicLabOptions(GameOptions):
    variant: Literal["standard", "no_mutations", "no_mutations_no_vents"] = Field(
        "standard",
        description="Tiles on the ring: all 25; without mutation rooms (22); "
        "without mutation rooms and vents (19), for first games and young players.",
    )
    target_tokens: int = Field(5, ge=1, le=10, description="Tokens needed to win the match.")
    countdown_seconds: int = Field(
        3, ge=2, le=5, description="Seconds of countdown before each roll is revealed.",
        json_schema_extra=EXPERT,
    )
    search_seconds: int = Field(
        60, ge=15, le=120, description="Seconds to find the amoeba before the answer is shown.",
        json_schema_extra=EXPERT,
    )
    latency_fair: bool = Field(
        False,
        description="The quickest reaction wins, not the first claim to arrive: each player's "
        "connection delay (up to 0.3 s) is taken off. Best among friends: a player could "
        "pretend to have a slow connection.",
        json_schema_extra=EXPERT,
    )




class ClaimAction(ActionModel):
    """A player puts a hand on tile ``tile`` (a ring index)."""

    type: Literal["claim"]
    tile: int = Field(ge=0)


class RevealAction(ActionModel):
    """System: the countdown ended; roll and show the dice."""

    type: Literal["reveal"]


class TimeoutAction(ActionModel):
    """System: the search time ran out."""

    type: Literal["timeout"]


class SettleAction(ActionModel):
    """System (latency-fair mode): the window for quicker correct claims closed."""

    type: Literal["settle"]


class NextRoundAction(ActionModel):
    """System: the result has been shown long enough; start the next countdown."""

    type: Literal["next_round"]


SYSTEM_ACTIONS = (RevealAction, TimeoutAction, SettleAction, NextRoundAction)

AnyAction = Annotated[
    ClaimAction | RevealAction | TimeoutAction | SettleAction | NextRoundAction,
    Field(discriminator="type"),
]


class PanicLabAction(RootModel[AnyAction]):
    pass
