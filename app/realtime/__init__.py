"""Real time: the protocol's messages, connections, the room actor and the room registry."""
