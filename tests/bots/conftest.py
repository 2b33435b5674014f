"""Every game registered for the bot tests (the arena finds games by id)."""

from app.games import load_all

load_all()
