"""The database in a Flask app: the engine and caches of an app, a session and a fast lane per request.

The engine, the fast lane and the group-commit writer are the data floor's (``store/``), shared with the workers;
this module only binds them to the app (``init_app``) and to the request (:func:`session`, :func:`lane`).
"""

from __future__ import annotations

from flask import Flask, current_app, g
from sqlalchemy.orm import Session

from service.caches import Caches
from store.database import MAX_OVERFLOW, POOL_SIZE, make_engine, sessions
from store.fastlane import Lane, Statements


def init_app(app: Flask, url: str, pool_size: int = POOL_SIZE, max_overflow: int = MAX_OVERFLOW) -> None:
    engine = make_engine(url, pool_size, max_overflow)
    app.extensions["db_engine"] = engine
    app.extensions["db_sessions"] = sessions(engine)
    app.extensions["db_statements"] = Statements(engine)
    app.extensions["caches"] = Caches()  # what this process knows of the database's unchanging rows

    @app.teardown_appcontext
    def _close_session(_: BaseException | None) -> None:
        session = g.pop("db_session", None)
        if session is not None:
            session.close()
        lane = g.pop("db_lane", None)
        if lane is not None:
            lane.release()  # back to the pool, which rolls back whatever is left open


def session() -> Session:
    """The request's session, opened on first use and closed when the request ends.

    A request holds one pooled connection at a time: opening the session gives back the fast lane's (which has
    only read by then), so that requests never wait for a second connection while holding a first.
    """
    if "db_session" not in g:
        if "db_lane" in g:
            g.db_lane.release()
        g.db_session = current_app.extensions["db_sessions"]()
    current: Session = g.db_session
    return current


def lane() -> Lane:
    """The request's fast lane, opened on first use and released when the request ends."""
    found: Lane | None = g.get("db_lane")
    if found is None:
        found = g.db_lane = Lane(current_app.extensions["db_statements"])
    return found
