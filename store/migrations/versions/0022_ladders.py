"""ladders: ladders, ladder_entries, ladder_games, ladder_seats, ladder_pairs, ladder_points

Continuous rated arenas (``store/models/ladders.py``): new tables only, so the downgrade drops them (and with them
every ladder; the games they played stay, as their tournaments' rows).

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-29 20:08:45.041820
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("budget_per_hour", sa.Integer(), nullable=False),
        sa.Column("max_in_play", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_ladders_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ladders")),
        sa.UniqueConstraint("tournament_id", name=op.f("uq_ladders_tournament_id")),
    )
    with op.batch_alter_table("ladders", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ladders_status"), ["status"], unique=False)

    op.create_table(
        "ladder_entries",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("paused", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("pause_reason", sa.String(length=255), nullable=True),
        sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version_id", sa.Integer(), nullable=True),
        sa.Column("prior_version_id", sa.Integer(), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), server_default="0", nullable=False),
        sa.Column("seat_counts", sa.JSON(), nullable=False),
        sa.Column("busy", sa.Integer(), server_default="0", nullable=False),
        sa.Column("free_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("fault_streak", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_game_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_ladder_entries_bot_id_bots")),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_entries_ladder_id_ladders"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("ladder_id", "bot_id", name=op.f("pk_ladder_entries")),
    )
    with op.batch_alter_table("ladder_entries", schema=None) as batch_op:
        batch_op.create_index("ix_ladder_entries_rating", ["ladder_id", "mu"], unique=False)

    op.create_table(
        "ladder_games",
        sa.Column("tournament_game_id", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("bot_ids", sa.JSON(), nullable=False),
        sa.Column("settled", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_games_ladder_id_ladders"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_game_id"],
            ["tournament_games.id"],
            name=op.f("fk_ladder_games_tournament_game_id_tournament_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_game_id", name=op.f("pk_ladder_games")),
    )
    with op.batch_alter_table("ladder_games", schema=None) as batch_op:
        batch_op.create_index("ix_ladder_games_made", ["ladder_id", "made_at"], unique=False)

    op.create_table(
        "ladder_pairs",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("low", sa.Integer(), nullable=False),
        sa.Column("high", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_pairs_ladder_id_ladders"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("ladder_id", "low", "high", name=op.f("pk_ladder_pairs")),
    )
    op.create_table(
        "ladder_points",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_points_ladder_id_ladders"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("ladder_id", "bot_id", "number", name=op.f("pk_ladder_points")),
    )
    op.create_table(
        "ladder_seats",
        sa.Column("tournament_game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name=op.f("fk_ladder_seats_ladder_id_ladders"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tournament_game_id"],
            ["tournament_games.id"],
            name=op.f("fk_ladder_seats_tournament_game_id_tournament_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_game_id", "seat", name=op.f("pk_ladder_seats")),
    )
    with op.batch_alter_table("ladder_seats", schema=None) as batch_op:
        batch_op.create_index("ix_ladder_seats_made", ["ladder_id", "bot_id", "made_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("ladder_seats", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_seats_made")

    op.drop_table("ladder_seats")
    op.drop_table("ladder_points")
    op.drop_table("ladder_pairs")
    with op.batch_alter_table("ladder_games", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_games_made")

    op.drop_table("ladder_games")
    with op.batch_alter_table("ladder_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_ladder_entries_rating")

    op.drop_table("ladder_entries")
    with op.batch_alter_table("ladders", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ladders_status"))

    op.drop_table("ladders")
