"""Idempotency keys of create requests (``idempotency_keys``), as the service uses them (``service/idempotency.py``).

A key is claimed by the first request that sends it (an INSERT: the primary key ``(player_id, key)`` lets exactly one
of two concurrent requests in, on either database); the claim holds the request's hash and, once the request is
answered with a success, its response, which later requests with the key are given again. A request that fails
gives its claim back (:func:`release`), so that it may be sent again with the same key. Keys expire :data:`TTL` after
their first use: the maintenance deletes them (:func:`expire`), and a claim finds an expired key free.

Each operation is a short transaction of its own (the request's session, before its view runs and after it ends).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store.models import IdempotencyKey, now
from store.models.base import as_utc

TTL = timedelta(hours=24)
"""How long a key is remembered after its first use."""


@dataclass(frozen=True)
class Found:
    """A key another request claimed first: its request's hash, and its response (``status`` ``None``: that request
    is still in progress)."""

    request_hash: str
    status: int | None
    body: str | None


def _where(player_id: int, key: str) -> ColumnElement[bool]:
    return and_(IdempotencyKey.player_id == player_id, IdempotencyKey.key == key)


def claim(session: Session, player_id: int, key: str, request_hash: str) -> Found | None:
    """Claim ``key`` of ``player_id`` for a request of ``request_hash`` (committed): ``None`` when this request holds
    it now (it goes on), else what the request that holds it left (:class:`Found`)."""
    for _ in range(3):  # a key found expired is deleted and claimed again; one deleted meanwhile, claimed again
        moment = now()
        try:
            session.execute(
                insert(IdempotencyKey).values(
                    player_id=player_id, key=key, request_hash=request_hash, created_at=moment
                )
            )
            session.commit()
            return None
        except IntegrityError:
            session.rollback()
        row = session.execute(
            select(
                IdempotencyKey.request_hash, IdempotencyKey.status, IdempotencyKey.body, IdempotencyKey.created_at
            ).where(_where(player_id, key))
        ).one_or_none()
        session.commit()
        if row is None:
            continue
        if as_utc(row.created_at) > moment - TTL:
            return Found(row.request_hash, row.status, row.body)
        session.execute(
            delete(IdempotencyKey).where(_where(player_id, key), IdempotencyKey.created_at == row.created_at)
        )
        session.commit()
    raise RuntimeError(f"idempotency key of player {player_id} could not be claimed")


def answer(session: Session, player_id: int, key: str, status: int, body: str) -> None:
    """Keep the response of the request that holds ``key`` (committed): later requests with the key get it."""
    session.execute(
        update(IdempotencyKey)
        .where(_where(player_id, key), IdempotencyKey.status.is_(None))
        .values(status=status, body=body)
    )
    session.commit()


def release(session: Session, player_id: int, key: str) -> None:
    """Give back the claim of a request that failed (committed): the key may be sent again, with any request."""
    session.execute(delete(IdempotencyKey).where(_where(player_id, key), IdempotencyKey.status.is_(None)))
    session.commit()


def expire(session: Session, moment: datetime | None = None) -> int:
    """Delete the keys first used more than :data:`TTL` before ``moment`` (now), in the caller's transaction; how
    many."""
    cutoff = (moment or now()) - TTL
    deleted = session.execute(delete(IdempotencyKey).where(IdempotencyKey.created_at < cutoff))
    return int(deleted.rowcount)  # type: ignore[attr-defined]
