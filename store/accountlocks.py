"""A lock per account for the rest of a transaction: what an account may still create (its quotas) is counted and
the new rows are written under it, so that requests of one account that come at once are counted one after another.

On PostgreSQL it is a transaction-level advisory lock keyed by the account (released by the commit or rollback):
another request of the same account waits for it, and its count, made after, sees what the first one committed.
On SQLite it is the database's write lock, taken at once (``BEGIN IMMEDIATE``) instead of at the first write:
every writer waits for it (SQLite has one writer at a time anyway), for the few milliseconds of a count and insert.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

NAMESPACE = 0x5A0A
"""The first key of the accounts' advisory locks (the second is the account's id), apart from other locks."""


def lock_account(session: Session, account_id: int) -> None:
    """Hold the account's lock until ``session``'s transaction ends (a wait while another request holds it)."""
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(
            text("SELECT pg_advisory_xact_lock(:space, :account)"), {"space": NAMESPACE, "account": account_id}
        )
        return
    driver = connection.connection.driver_connection
    if driver is not None and not driver.in_transaction:  # in one, it has written: it holds the write lock already
        connection.exec_driver_sql("BEGIN IMMEDIATE")
