"""The room's core: every decision of a room, pure (no socket, no clock, no task)."""
