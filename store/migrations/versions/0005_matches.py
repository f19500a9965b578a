"""matches: bot A against bot B on paired deals, stopped by a sequential probability ratio test

- ``matches``: a match's test settings (``elo0``, ``elo1``, ``alpha``, ``beta``, the Elo model, ``max_games``),
  its bots (A, B, the fillers of a larger table) and the test's state after its last completed pair (pentanomial
  ``counts``, ``llr``, ``verdict``); its games are the rows of its tournament (``tournament_id``), a gauntlet's
  matches share a ``gauntlet_id``.

Revision ID: 0005
Revises: '0004'
Create Date: 2026-11-24 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("bot_a", sa.Integer(), nullable=False),
        sa.Column("bot_b", sa.Integer(), nullable=False),
        sa.Column("fillers", sa.JSON(), nullable=False),
        sa.Column("elo0", sa.Float(), nullable=False),
        sa.Column("elo1", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("model", sa.String(length=16), nullable=False),
        sa.Column("max_games", sa.Integer(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("llr", sa.Float(), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("games_counted", sa.Integer(), nullable=False),
        sa.Column("gauntlet_id", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["bot_a"], ["bots.id"], name=op.f("fk_matches_bot_a_bots")),
        sa.ForeignKeyConstraint(["bot_b"], ["bots.id"], name=op.f("fk_matches_bot_b_bots")),
        sa.ForeignKeyConstraint(["owner_id"], ["players.id"], name=op.f("fk_matches_owner_id_players")),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_matches_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("tournament_id", name=op.f("uq_matches_tournament_id")),
    )
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_matches_gauntlet_id"), ["gauntlet_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_matches_owner_id"), ["owner_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_matches_owner_id"))
        batch_op.drop_index(batch_op.f("ix_matches_gauntlet_id"))
    op.drop_table("matches")
