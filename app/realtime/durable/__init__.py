"""Durable rooms: the journal of every change, the frame gate, and the room rebuilt from its rows."""
