"""Finished matches as people read them again: every answer about one (its JSON with its draws,
its replay through any eyes, its page's move list), built once in a builder process of their own
and kept (answers.py, builds.py; docs/decisions/0039), from the one replay of a stored match
(replay.py) and its story in words (story.py)."""
