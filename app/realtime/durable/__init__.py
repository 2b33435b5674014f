"""Durable rooms: the journal of every change, the frame gate, and the room to and from its
rows."""
