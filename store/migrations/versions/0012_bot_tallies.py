"""bot_tallies, tournament_fault_tallies and games.tallied: the bot and tournament pages read running counts

A finished game's faults by kind, answer times (by bucket) and tournament games and wins by seat are added to its
players' tallies once, and its faults to its tournament's (``store/bottallies.py``: the workers' and the embedded
service's upkeep fold the finished games not yet ``tallied``, found by a partial index of the games not tallied),
so that a bot's page and a tournament's read a few rows instead of every move of their games. The games finished
before this migration are not tallied yet: the upkeep folds them, a batch at a time, and the pages count the ones
still waiting from their moves meanwhile.

Revision ID: 0012
Revises: '0011'
Create Date: 2026-11-28 06:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNTALLIED = sa.text("NOT tallied")


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tallied", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_index(
        "ix_games_untallied",
        "games",
        ["status", "id"],
        unique=False,
        sqlite_where=UNTALLIED,
        postgresql_where=UNTALLIED,
    )
    op.create_table(
        "bot_tallies",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("measure", sa.String(length=16), nullable=False),
        sa.Column("key", sa.String(length=24), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_bot_tallies_player_id_players"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player_id", "measure", "key", name=op.f("pk_bot_tallies")),
    )
    op.create_table(
        "tournament_fault_tallies",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("fault", sa.String(length=16), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_fault_tallies_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_tournament_fault_tallies_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "player_id", "fault", name=op.f("pk_tournament_fault_tallies")),
    )


def downgrade() -> None:
    op.drop_table("tournament_fault_tallies")
    op.drop_table("bot_tallies")
    op.drop_index("ix_games_untallied", table_name="games", sqlite_where=UNTALLIED, postgresql_where=UNTALLIED)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("tallied")
