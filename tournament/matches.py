"""Matches: bot A against bot B on paired deals, stopped by the SPRT of ``ratings/sprt.py``.

A match is a tournament whose schedule comes in *pairs*: the two games of a pair share one deal (the same seed)
and the same fillers in the same seats, and A and B swap seats between them. At 2 seats pair ``k`` is ``(A, B)``
then ``(B, A)``. At 3 or 4 seats the pairs walk through the seat pairs ``{i, j}`` (``i < j``) in turn, A in seat
``i`` and B in seat ``j`` in the first game, swapped in the second, the fillers in the other seats in a rotating
order: over ``C(n, 2)`` pairs A and B each take every seat ``n - 1`` times. Each game scores A against B by their
ranks alone (1 ahead, 0.5 tied, 0 behind: the fillers' places do not count); a pair's outcome is the sum, one of the
five pentanomial bins.

The schedule is laid out whole (``max_games``, rounded up to whole pairs; pair ``k`` is round ``k + 1``) and fed to
the queue a few games at a time like any tournament's (``tournament/feed.py``), so the games played are the first
pairs, in order. After each result, the worker that wrote it recounts the completed pairs from the stored results
(:func:`refresh`, from ``tournament/standings.py``) and stores the pentanomial counts and the LLR if they count more
pairs than what is stored. Once the LLR leaves the bounds the match stops: its verdict is stored, its games not
finished are cancelled (those being played stop at their next step, as a cancelled tournament's do, and write no
result) and its tournament is marked done. A match whose every pair is in without a verdict is ``inconclusive``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ratings.sprt import Sprt, game_score, pair_bin
from store.models import Result, Tournament, TournamentGame, now
from store.models.matches import Match
from tournament.schedule import Pairing, game_seed


def pairs_of(max_games: int) -> int:
    """The pairs laid out for ``max_games`` games (rounded up to a whole pair)."""
    return (max_games + 1) // 2


def seatings(bot_a: int, bot_b: int, fillers: Sequence[int], pair: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats of the two games of pair ``pair`` (0 first): A and B in a seat pair, swapped in the second game,
    the fillers in the other seats (see the module docstring)."""
    size = len(fillers) + 2
    seat_pairs = list(itertools.combinations(range(size), 2))
    first, second = seat_pairs[pair % len(seat_pairs)]
    turn = pair // len(seat_pairs)
    order = list(fillers[turn % len(fillers) :]) + list(fillers[: turn % len(fillers)]) if fillers else []
    seats: list[int] = []
    for seat in range(size):
        if seat == first:
            seats.append(bot_a)
        elif seat == second:
            seats.append(bot_b)
        else:
            seats.append(order.pop(0))
    swapped = [bot_b if bot == bot_a else bot_a if bot == bot_b else bot for bot in seats]
    return tuple(seats), tuple(swapped)


def schedule(
    bot_a: int, bot_b: int, fillers: Sequence[int], max_games: int, seed: int, salt: str | None
) -> list[Pairing]:
    """Every game of a match, in play order: pair ``k`` is games ``2k`` and ``2k + 1``, round ``k + 1``, both with
    the seed of the pair's first seating (``tournament.schedule.game_seed``: keyed by the secret salt)."""
    games: list[Pairing] = []
    for pair in range(pairs_of(max_games)):
        first, second = seatings(bot_a, bot_b, fillers, pair)
        deal = game_seed(seed, pair + 1, first, salt)
        games.append(Pairing(index=2 * pair, seats=first, round=pair + 1, seed=deal))
        games.append(Pairing(index=2 * pair + 1, seats=second, round=pair + 1, seed=deal))
    return games


def pairings(session: Session, tournament: Tournament) -> list[Pairing]:
    """The games of the tournament if it plays a match, in pairs (else none: it is a round robin)."""
    match = session.scalar(select(Match).where(Match.tournament_id == tournament.id))
    if match is None:
        return []
    return schedule(
        match.bot_a, match.bot_b, match.fillers, match.max_games, tournament.seed, tournament.seed_salt
    )


@dataclass(frozen=True)
class Count:
    """The completed pairs of a match: pentanomial ``counts`` and the games they hold."""

    counts: list[int]
    pairs: int
    games: int


def count(bot_a: int, bot_b: int, results: Sequence[tuple[int, Sequence[int], Sequence[int]]]) -> Count:
    """Pentanomial counts from ``(round, bot_ids, ranks)`` results: a round with both its games in is a pair."""
    by_round: dict[int, list[float]] = {}
    for round_number, bot_ids, ranks in results:
        rank_a, rank_b = ranks[list(bot_ids).index(bot_a)], ranks[list(bot_ids).index(bot_b)]
        by_round.setdefault(round_number, []).append(game_score(rank_a, rank_b))
    counts = [0] * 5
    pairs = 0
    for scores in by_round.values():
        if len(scores) == 2:
            counts[pair_bin(*scores)] += 1
            pairs += 1
    return Count(counts, pairs, 2 * pairs)


def test_of(match: Match) -> Sprt:
    return Sprt(match.elo0, match.elo1, match.alpha, match.beta, match.model)  # type: ignore[arg-type]


def refresh(session: Session, tournament_id: int) -> str | None:
    """After a result of the tournament: if it plays a match still undecided, recount its completed pairs, store
    the counts and LLR if they count more pairs than stored, and stop the match on a verdict. Returns the verdict
    stored (``None``: not a match, or nothing new)."""
    match = session.scalar(select(Match).where(Match.tournament_id == tournament_id))
    if match is None or match.verdict != "continue":
        return None
    rows = session.execute(
        select(TournamentGame.round, Result.bot_ids, Result.ranks)
        .join(TournamentGame, TournamentGame.id == Result.tournament_game_id)
        .where(Result.tournament_id == tournament_id)
    ).all()
    counted = count(match.bot_a, match.bot_b, [(round_, bot_ids, ranks) for round_, bot_ids, ranks in rows])
    if counted.pairs <= match.pairs:
        session.rollback()
        return None
    test = test_of(match)
    llr = test.llr(counted.counts)
    verdict: str = test.verdict(counted.counts)
    if verdict == "continue" and counted.pairs >= pairs_of(match.max_games):
        verdict = "inconclusive"
    stored = session.execute(
        update(Match)
        .where(Match.id == match.id, Match.verdict == "continue", Match.pairs < counted.pairs)
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
