"""A pool's stored table as the API and the pages show it: each bot's latest rated version (``service.versions``),
its group (``ratings.pool``: bots that never met, directly or through others, are fitted and shown apart) and, beside
its rating, its reliability: the forfeit rate the fit stored and its faults per 100 moves
(``store.bottallies.fault_rates``, read when shown). And the sentences that say how to read the table: how
forfeited games were rated (``SORRY_ARENA_RATE_FORFEITS`` of the process that fitted it) and, for a pool of more
than one group, that ratings compare within a group only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.orm import Session

from ratings import pool
from service.versions import latest_versions
from store import bottallies
from store.models import RatingPool

RATED = "forfeited games are rated as losses"
NOT_RATED = "forfeited games are not rated"
APART = "{groups} groups of bots that never met, directly or through others: ratings compare within a group only"


def shown_rows(session: Session, table: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rows of each bot's latest version in the stored ``table``'s order (group by group, best first), each
    with its ``faults_per_100_moves`` (``None``: no move of it counted yet)."""
    latest = latest_versions(table)
    rates = bottallies.fault_rates(session, {int(row["bot_id"]) for row in latest})
    return [{**row, "faults_per_100_moves": rates.get(int(row["bot_id"]))} for row in latest]


def notes(stored: RatingPool) -> list[str]:
    """The table's sentences (English): how forfeited games are rated, and that groups do not compare."""
    groups = pool.groups(stored.table)
    said = [RATED if stored.forfeits_rated else NOT_RATED]
    return said + ([APART.format(groups=groups)] if groups > 1 else [])
