"""The game packages. Importing this module registers every game with the engine registry."""

from app.engine import registry

_loaded = False


def load_all() -> None:
    """Import and register each game package once."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for name in GAME_PACKAGES:
        module = importlib.import_module(f"app.games.{name}")
        registry.register(module.GAME)


GAME_PACKAGES = ["panika", "panika_counter", "panic_lab", "panik_pilze", "panique"]
"""Each package exposes ``GAME``, an instance of its ``app.engine.Game`` subclass."""

