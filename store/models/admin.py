"""The operator's audit log: one row per admin action, written in the transaction of the action's effect."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from store.models.base import Base, now


class AdminAction(Base):
    __tablename__ = "admin_actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, index=True)
    actor_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    """The operator's account that acted."""
    action: Mapped[str] = mapped_column(String(32))
    """``disable``, ``enable``, ``revoke_token``, ``pause_bot``, ``unpause_bot``, ``delete_bot``,
    ``cancel_tournament``."""
    target_kind: Mapped[str] = mapped_column(String(16))
    """``account``, ``bot`` or ``tournament``."""
    target_id: Mapped[int] = mapped_column(Integer)
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    """What the action did (the tournaments it cancelled, the bots' accounts it disabled...); never a token."""
