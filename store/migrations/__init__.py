"""Alembic migrations of the service's database (``store.migrate`` runs them; see env.py)."""
