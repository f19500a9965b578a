"""Whether a finished game's deal is still secret: a game of a paired match shares its deal (its seed) with its twin,
the other game of its pair (``tournament/plans/matches.py``), and its seed, its replay and the hands it dealt tell
every card of the twin's deal, so they are shown only once the twin is over too (or will never be played: a
cancelled twin). The games of one deal are adjacent in play order (numbers ``2k`` and ``2k + 1``) and share the
seed; a round robin's games, each with its own seed, never have a twin.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.orm import Session, aliased

from store.models import Game, TournamentGame

NOT_OVER = ("pending", "running")

_TWIN = aliased(TournamentGame, name="deal_twin")


def twin_not_over(first_only: bool = False) -> ColumnElement[bool]:
    """``EXISTS``, correlated with the ``tournament_games`` row of the enclosing statement: it has a twin on its deal
    not over yet (``first_only``: the game before it, the first of its pair; the dispatch feeds a pair's second
    game only once its first is over). One lookup on either side along the tournament's ``(tournament_id,
    number)`` key."""
    numbers = (
        (TournamentGame.number - 1,) if first_only else (TournamentGame.number - 1, TournamentGame.number + 1)
    )
    return exists().where(
        _TWIN.tournament_id == TournamentGame.tournament_id,
        _TWIN.number.in_(numbers),
        _TWIN.seed == TournamentGame.seed,
        _TWIN.status.in_(NOT_OVER),
    )


def twin_in_play(session: Session, game_id: int) -> bool:
    """Whether the game (by its id in ``games``) is a tournament game whose twin on its deal is not over yet."""
    found = session.scalar(select(twin_not_over()).where(TournamentGame.game_id == game_id).limit(1))
    return bool(found)


def public(session: Session, game: Game) -> bool:
    """Whether everything of the game may be shown to everyone (its seed, replay and every seat's hand): it is over,
    and no twin on its deal is still to be played."""
    return game.status == "over" and not twin_in_play(session, game.id)
