"""Several processes joined through Redis: room leases, the directory and the relay."""
