"""Dependencies shared by the routers, as ``Annotated`` aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates

from app.config import Settings
from app.db.database import Database
from app.realtime.registry import RoomRegistry

from .finished.answers import MatchAnswers


def _registry(request: Request) -> RoomRegistry:
    return request.app.state.registry


def _database(request: Request) -> Database:
    return request.app.state.db


def _settings(request: Request) -> Settings:
    return request.app.state.settings


def _templates(request: Request) -> Jinja2Templates:
    return request.app.state.templates


def _match_answers(request: Request) -> MatchAnswers:
    return request.app.state.match_answers


Registry = Annotated[RoomRegistry, Depends(_registry)]
Db = Annotated[Database, Depends(_database)]
AppSettings = Annotated[Settings, Depends(_settings)]
Templates = Annotated[Jinja2Templates, Depends(_templates)]
Answers = Annotated[MatchAnswers, Depends(_match_answers)]
