"""sorry-arena's REST game service (Flask + flask-smorest, SQLAlchemy): imports engine, never tournament."""
