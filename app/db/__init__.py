"""Persistence: SQLAlchemy models, the database handle, and the functions that read and write."""
