"""Real time: the rooms. ``actor.py`` (one asyncio task per room), ``registry.py`` (the rooms of
this process) and ``endpoint.py`` (the WebSocket) compose four sub-packages: ``room`` (the pure
core), ``transport``, ``durable`` and ``cluster`` (the arrows allowed between them: the import
contracts in pyproject.toml)."""
