"""Alembic migrations of the service's database (``service.migrate`` runs them; see env.py)."""
