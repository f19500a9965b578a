"""Idempotency keys: a create request's key, remembered per account with its request's hash and, once answered, its
response (``store/idempotency.py`` writes them, ``service/idempotency.py`` uses them)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"

    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), primary_key=True)
    """The account that sent the key: keys of different accounts never meet."""
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    """The ``Idempotency-Key`` header: 1 to 255 printable ASCII characters."""
    request_hash: Mapped[str] = mapped_column(String(64))
    """SHA-256 (hex) of the request's method, path and body (its JSON in a canonical form)."""
    status: Mapped[int | None] = mapped_column(Integer)
    """The response's status code; ``None`` while the first request with the key is in progress."""
    body: Mapped[str | None] = mapped_column(Text)
    """The response's body once answered, sealed with a key the database does not hold (``service/sealing.py``: a
    new bot's token and secret are in it)."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, index=True)
    """When the key was first used: it expires 24 h later (``store.idempotency.TTL``)."""
