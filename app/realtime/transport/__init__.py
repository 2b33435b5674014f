"""The WebSocket side: one client's connection, frames straight to the socket, the server's
limits."""
