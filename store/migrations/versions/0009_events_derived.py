"""events derived from the action log: the ``events`` table goes

A game's events are a function of its kind, settings, seed and actions (``store/eventlog.py`` replays them), so
the table that stored them (three quarters of the bytes of a move on PostgreSQL) is dropped with its unique index.
A downgrade makes the table again and fills it by replaying every game's actions with the engine, as the code of
0008 wrote it.

Revision ID: 0009
Revises: '0008'
Create Date: 2026-11-26 07:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

import engine

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 200
"""Games replayed per statement batch while the events of a downgrade are written."""


def upgrade() -> None:
    op.drop_table("events")


def downgrade() -> None:
    events = op.create_table(
        "events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("to_seat", sa.Integer(), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_events_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_events_game_id_seq")),
    )
    assert events is not None
    connection = op.get_bind()
    games = sa.table(
        "games",
        sa.column("id", sa.Integer()),
        sa.column("game", sa.String()),
        sa.column("settings", sa.JSON()),
        sa.column("seed", sa.BigInteger()),
    )
    after = 0
    while True:
        batch = connection.execute(
            sa.select(games).where(games.c.id > after).order_by(games.c.id).limit(BATCH)
        ).all()
        if not batch:
            return
        rows = []
        for game_id, kind, settings, seed in batch:
            actions = connection.execute(
                sa.text("SELECT seat, action FROM actions WHERE game_id = :game_id ORDER BY ply"),
                {"game_id": game_id},
            ).all()
            rows += replayed(game_id, kind, settings, seed, actions)
        if rows:
            connection.execute(events.insert(), rows)
        after = batch[-1][0]


def replayed(
    game_id: int, kind: str, settings: engine.Json, seed: int, actions: Sequence[Any]
) -> list[dict[str, Any]]:
    """The event rows of one game, numbered as they happened (the opening's with ply 0, an action's at ply ``p``
    with ply ``p + 1``)."""
    state = engine.new_game(kind, settings, seed)
    made = [(0, event) for event in engine.opening_events(state)]
    for ply, (seat, action) in enumerate(actions):
        made += [(ply + 1, event) for event in engine.apply(state, action, seat)]
    return [
        {"game_id": game_id, "seq": seq, "ply": ply, "to_seat": event.get("to"), "payload": event}
        for seq, (ply, event) in enumerate(made)
    ]
