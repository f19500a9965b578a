"""Matches: bot A against bot B on paired or independent deals, stopped by the SPRT of ``ratings/sprt.py``.

A match is a tournament whose schedule comes in *pairs*: the two games of a pair have the same fillers in the same
seats, and A and B swap seats between them. On *paired deals* the two games share one deal (the same seed); only a
match whose every bot is its maker's own is paired (``Match.paired``: a bot that held a deal could remember it, and
in the twin game know the hand of the bot now in its seat), and its twins are played one after the other, never at
once (``tournament/dispatch/feed.py``), the seed shown once both are over. Any other match plays *independent
deals*: each game its own seed. At 2 seats pair ``k`` is ``(A, B)``
then ``(B, A)``. At 3 or 4 seats the pairs walk through the seat pairs ``{i, j}`` (``i < j``) in turn, A in seat
``i`` and B in seat ``j`` in the first game, swapped in the second, the fillers in the other seats in a rotating
order: over ``C(n, 2)`` pairs A and B each take every seat ``n - 1`` times. Each game scores A against B by their
ranks alone (1 ahead, 0.5 tied, 0 behind: the fillers' places do not count); on paired deals a pair's outcome is
the sum, one of the five pentanomial bins, and on independent deals each game is a trinomial count on its own. The schedule and the count are pure (``tournament/plans/pairs.py``: ``sorry-arena match`` plays
local bots' matches with them, without a database).

The schedule is laid out whole (``max_games``, rounded up to whole pairs; pair ``k`` is round ``k + 1``) and fed to
the queue a few games at a time like any tournament's (``tournament/dispatch/feed.py``), so the games played are the first
pairs, in order. After each result, the worker that wrote it recounts the completed pairs (or the games) from the stored
results (:func:`refresh`, from ``tournament/standings/tables.py``) and stores the counts and the LLR if they count
more games than what is stored. Once the LLR leaves the bounds the match stops: its verdict is stored, its games not
finished are cancelled (those being played stop at their next step, as a cancelled tournament's do, and write no
result) and its tournament is marked done. A match whose every game is in without a verdict is ``inconclusive``.
A gauntlet's matches test with Holm's step-down (:func:`bounds_of`, ``ratings/gauntlet.py``): each match's
bounds are read, after each of its results, with the other matches' verdicts stored by then. A void game (``tournament/play/voids.py``: a seat forfeited for a reason on the service's side) counts in no test:
on paired deals its pair is never complete, on independent deals it is left out.
"""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ratings.gauntlet import gauntlet_bounds
from ratings.sprt import Sprt
from ratings.sprt import verdict as verdict_of
from store.fastlane import param
from store.models import Result, Tournament, TournamentGame, now
from store.models.matches import Match, gauntlet_tally
from tournament.plans.pairs import Count, count, pairs_of, schedule, seatings
from tournament.plans.schedule import Pairing

__all__ = [
    "Count",
    "bounds_of",
    "count",
    "pairings",
    "pairs_of",
    "refresh",
    "schedule",
    "seatings",
    "stop",
    "test_of",
]


def pairings(session: Session, tournament: Tournament) -> list[Pairing]:
    """The games of the tournament if it plays a match, in pairs (else none: it is a round robin)."""
    match = session.scalar(select(Match).where(Match.tournament_id == tournament.id))
    if match is None:
        return []
    return schedule(
        match.bot_a,
        match.bot_b,
        match.fillers,
        match.max_games,
        tournament.seed,
        tournament.seed_salt,
        match.paired,
    )


def test_of(match: Match) -> Sprt:
    return Sprt(match.elo0, match.elo1, match.alpha, match.beta, match.model)  # type: ignore[arg-type]


def bounds_of(session: Session, match: Match) -> tuple[float, float]:
    """The match's bounds now: Wald's for a match of its own, Holm's step-down for a gauntlet's (the H1 bound at
    ``alpha / (k - r)``, ``r`` its other matches that accepted H1: ``ratings/gauntlet.py``)."""
    k, rejected = gauntlet_tally(session, match)
    return gauntlet_bounds(match.alpha, match.beta, k, rejected)


_UNDECIDED = select(Match.id).where(Match.tournament_id == param("tournament_id"), Match.verdict == "continue")
"""The tournament's match, if it plays one still undecided: one compiled statement after every result."""


def refresh(session: Session, tournament_id: int) -> str | None:
    """After a result of the tournament: if it plays a match still undecided, recount its completed pairs (or games,
    on independent deals), store the counts and LLR if they count more games than stored, and stop the match on a
    verdict. Returns the verdict
    stored (``None``: not a match, or nothing new)."""
    if session.connection().execute(_UNDECIDED, {"tournament_id": tournament_id}).first() is None:
        return None  # not a match (most tournaments), or decided
    match = session.scalar(select(Match).where(Match.tournament_id == tournament_id))
    if match is None or match.verdict != "continue":
        return None
    rows = session.execute(
        select(TournamentGame.round, Result.bot_ids, Result.ranks, Result.void_reason)
        .join(TournamentGame, TournamentGame.id == Result.tournament_game_id)
        .where(Result.tournament_id == tournament_id)
    ).all()
    # a void game counts in no test; once every game is in (void ones too), an undecided match is inconclusive
    results = [(round_, bot_ids, ranks) for round_, bot_ids, ranks, void_reason in rows if void_reason is None]
    everything_in = len(rows) >= (
        session.scalar(select(Tournament.games_total).where(Tournament.id == tournament_id)) or 0
    )
    counted = count(match.bot_a, match.bot_b, results, match.paired)
    if counted.games <= match.games_counted and not everything_in:
        session.rollback()
        return None
    test = test_of(match)
    llr = test.llr(counted.counts)
    lower, upper = bounds_of(session, match)
    verdict: str = verdict_of(llr, lower, upper)
    if verdict == "continue" and (everything_in or counted.games >= 2 * pairs_of(match.max_games)):
        verdict = "inconclusive"
    newer = Match.games_counted <= counted.games if everything_in else Match.games_counted < counted.games
    stored = session.execute(
        update(Match)
        .where(Match.id == match.id, Match.verdict == "continue", newer)
        .values(
            pairs=counted.pairs,
            counts=counted.counts,
            llr=llr,
            verdict=verdict,
            games_counted=counted.games,
            updated_at=now(),
        )
    )
    if not stored.rowcount:  # type: ignore[attr-defined]
        session.rollback()
        return None
    if verdict != "continue":
        stop(session, tournament_id)
    session.commit()
    return verdict


def stop(session: Session, tournament_id: int) -> None:
    """End a decided match's tournament (in the caller's transaction): its games not finished are cancelled (a game
    being played stops at its next step, its lease gone), and it is marked done."""
    session.execute(
        update(TournamentGame)
        .where(TournamentGame.tournament_id == tournament_id, TournamentGame.status.in_(("pending", "running")))
        .values(status="cancelled", worker=None, lease_until=None)
    )
    session.execute(
        update(Tournament)
        .where(Tournament.id == tournament_id, Tournament.status == "running")
        .values(status="done", finished_at=now())
    )
