"""The reference for tests/ratings/test_fit_reference.py: the exact pure-Python fit ratings/fit.py replaced, kept
unchanged (cubic in the players: pools of a few hundred only). Its ties are half a win each (no tie model), so it is
the production fit's reference for games without ties.

Order-independent ratings: a Bradley-Terry maximum-likelihood fit on the Elo scale, with intervals that hold for
multiplayer games.

Every game counts as pairwise results between its seats, as in ``ratings.elo`` (1 to the better rank, half
a win each for a tie). Bradley-Terry gives player ``i`` a strength ``gamma_i`` with ``P(i beats j) = gamma_i /
(gamma_i + gamma_j)``; on the Elo scale ``elo_i = 400 * log10(gamma_i)`` this is exactly Elo's expected score.
The fit maximises the likelihood of all pairwise results at once, so unlike incremental Elo it does not depend
on the order of the games. The ratings are anchored so that their mean is 0: callers may add 1500.

The prior: a player who won (or lost) every comparison has no finite maximum-likelihood rating, and players in
separate groups that never met have no defined offset. So each player also gets ``prior_draws`` virtual draws
(one by default) against a virtual reference player fixed at the scale's origin. That is the mode of the
posterior under a logistic prior on each rating; it keeps every rating finite and the fit unique, shrinks ratings
slightly toward the middle (a 75% score over 100 games gives 189.6 instead of 190.8), and matters little once a
player has more than a few dozen comparisons. Groups that never met (see :func:`connected_groups`) are placed
relative to each other by the prior alone: compare ratings within a group only.

The fit aggregates the results per pair of players first (score and count), then solves by Newton's method on
the log-strengths with a backtracking line search (the log-posterior is strictly concave, so this converges from
anywhere, in a handful of steps; fewer from ``start``, the ratings of an earlier fit): a Newton step costs
``O(pairs + players**3)`` whatever the number of games.

Intervals: ``elo +- z * sd``, with ``sd`` the larger of two standard errors of the centred rating:

- the *cluster-robust* (sandwich) one, ``H^-1 B H^-1`` with ``H`` the negated Hessian of the log-posterior at its
  mode and ``B = G / (G - 1) * sum_g s_g s_g^T`` the spread of the games' score vectors ``s_g`` (each game's
  contribution to the gradient). The ``n (n - 1) / 2`` pairwise results of one ``n``-seat game are not independent
  (a seat that finishes first beats everyone at its table), so the model's own variance ``H^-1`` understates the
  uncertainty of multiplayer games; the sandwich, with games as the clusters, measures it from the games'
  actual spread, whatever the dependence within a game;
- the model's (Laplace: the normal approximation of the posterior at its mode), ``H^-1``: with few games the
  sandwich is itself noisy and can come out narrow (a bot that won each of its 4 games has scores of no spread),
  and the information in the data bounds what any interval may claim.

In simulations with known strengths (``tests/ratings/test_coverage.py``) the 95% intervals cover the truth 94-96%
of the time for 2-, 3- and 4-seat games alike; ``docs/ratings.md`` gives the model and its references. 10 bots and
2,000 4-seat games take about 20 ms, 100 bots and 100,000 games about 1.5 s (a third less from ``start``). Games
that repeat (the same players at the same ranks) may be given once with their ``counts``: the same fit, in the
time of the distinct games (a rating pool keeps such tallies, ``tournament/standings/poolstate.py``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TypeVar

from ratings.elo import check_game, pairwise
from ratings.fit import Rating

P = TypeVar("P", bound=Hashable)

PRIOR_DRAWS = 1.0
"""Virtual draws of each player against a reference player at the origin (see the module docstring)."""

CONFIDENCE = 0.95
TOLERANCE = 1e-9
"""Newton stops when no log-strength moves by more than this (about 4e-7 Elo)."""
MAX_ITERATIONS = 100
MAX_STEP = 4.0
"""The largest move of one log-strength in one Newton step (about 1,700 Elo): keeps the first steps sane."""
NEAR_MODE = 1e-3
"""Newton steps smaller than this (in log-strength) are taken whole, without a line search."""
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)


@dataclass
class _Comparisons:
    """Pairwise results aggregated per pair of player indexes ``a < b``: a's score and the count."""

    pairs: list[tuple[int, int]]
    score: list[float]
    count: list[int]


def fit(
    games: Sequence[tuple[Sequence[P], Sequence[int]]],
    *,
    intervals: bool = True,
    confidence: float = CONFIDENCE,
    prior_draws: float = PRIOR_DRAWS,
    start: Mapping[P, float] | None = None,
    counts: Sequence[int] | None = None,
) -> dict[P, Rating]:
    """Ratings of every player of ``games`` (each ``(players, ranks)``, ``players[seat]`` ranked ``ranks[seat]``,
    lower is better), in order of first appearance. ``intervals=False``: no interval (low = high = elo).
    ``start``: ratings (mean-0 Elo) to start the solver from, e.g. those of an earlier fit of fewer games; the
    result is the same up to the solver's tolerance, reached in fewer steps. ``counts[g]``: how many times game
    ``g`` was played (one each by default): the same fit as with every game listed that many times."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    if not prior_draws > 0.0:
        raise ValueError(f"prior_draws must be positive (ratings may be infinite without it), not {prior_draws}")
    weights = _counts_of(games, counts)
    players: dict[P, int] = {}
    for game_players, ranks in games:
        check_game(game_players, ranks)
        for player in game_players:
            players.setdefault(player, len(players))
    if not players:
        return {}

    # Each game as (pair index, score of the pair's lower player index) contributions.
    pair_index: dict[tuple[int, int], int] = {}
    contributions: list[list[tuple[int, float]]] = []
    for game_players, ranks in games:
        seat_player = [players[player] for player in game_players]
        game: list[tuple[int, float]] = []
        for i, j, score in pairwise(ranks):
            a, b = seat_player[i], seat_player[j]
            if a > b:
                a, b, score = b, a, 1.0 - score
            game.append((pair_index.setdefault((a, b), len(pair_index)), score))
        contributions.append(game)
    pairs = list(pair_index)
    totals = [0.0] * len(pairs)
    compared = [0] * len(pairs)
    for game, weight in zip(contributions, weights, strict=True):
        for pair, pair_score in game:
            totals[pair] += weight * pair_score
            compared[pair] += weight
    data = _Comparisons(pairs, totals, compared)

    known = start or {}
    first = [known.get(player, 0.0) / ELO_PER_LOG_STRENGTH for player in players]
    theta = _solve(len(players), data, prior_draws, first)
    point = _centred_elo(theta)
    if not intervals:
        return {player: Rating(point[index], point[index], point[index]) for player, index in players.items()}
    spread = _standard_errors(theta, data, contributions, weights, prior_draws)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    ratings: dict[P, Rating] = {}
    for player, index in players.items():
        margin = z * spread[index]
        ratings[player] = Rating(point[index], point[index] - margin, point[index] + margin)
    return ratings


def _counts_of(games: Sequence[object], counts: Sequence[int] | None) -> list[int]:
    if counts is None:
        return [1] * len(games)
    if len(counts) != len(games):
        raise ValueError(f"{len(counts)} counts for {len(games)} games")
    if any(count < 1 for count in counts):
        raise ValueError("every game's count must be at least 1")
    return list(counts)


def connected_groups(games: Sequence[tuple[Sequence[P], Sequence[int]]]) -> list[list[P]]:
    """The groups of players linked by games (a player is linked to everyone they met, and to their links),
    largest first; players in order of first appearance. More than one group: ratings compare within a group."""
    parent: dict[P, P] = {}

    def root(player: P) -> P:
        while parent[player] != player:
            parent[player] = parent[parent[player]]
            player = parent[player]
        return player

    for game_players, _ in games:
        for player in game_players:
            parent.setdefault(player, player)
        first = root(game_players[0])
        for player in game_players[1:]:
            parent[root(player)] = first
    groups: dict[P, list[P]] = {}
    for player in parent:
        groups.setdefault(root(player), []).append(player)
    return sorted(groups.values(), key=len, reverse=True)


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_add_exp(x: float, y: float) -> float:
    high = max(x, y)
    return high + math.log1p(math.exp(-abs(x - y)))


def _log_posterior(theta: Sequence[float], data: _Comparisons, prior: float) -> float:
    total = sum(prior * (0.5 * t - _log_add_exp(t, 0.0)) for t in theta)
    for (a, b), score, count in zip(data.pairs, data.score, data.count, strict=True):
        if count:
            total += score * theta[a] + (count - score) * theta[b] - count * _log_add_exp(theta[a], theta[b])
    return total


def _solve(n: int, data: _Comparisons, prior: float, start: Sequence[float]) -> list[float]:
    """The log-strengths maximising the log-posterior, by damped Newton steps from ``start``: backtracking while the
    step is large, full steps near the mode (there the log-posterior's change is below its rounding error, and
    Newton's method converges quadratically), so that every start ends at the same mode to the last digits."""
    theta = list(start)
    for _ in range(MAX_ITERATIONS):
        gradient, matrix = _derivatives(theta, data, prior)
        step = _cholesky_solve(_cholesky(matrix), gradient)
        largest = max(abs(s) for s in step)
        if largest < TOLERANCE:
            break
        if largest > MAX_STEP:
            step = [s * MAX_STEP / largest for s in step]
            largest = MAX_STEP
        if largest < NEAR_MODE:
            theta = [t + s for t, s in zip(theta, step, strict=True)]
            continue
        current = _log_posterior(theta, data, prior)
        scale = 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
            if _log_posterior(trial, data, prior) >= current or scale * largest < TOLERANCE:
                break
            scale /= 2.0
        theta = trial
    return theta


def _derivatives(
    theta: Sequence[float], data: _Comparisons, prior: float
) -> tuple[list[float], list[list[float]]]:
    """The log-posterior's gradient and negated Hessian (positive definite: the prior adds to every diagonal)."""
    n = len(theta)
    gradient = [0.0] * n
    matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        p = _sigmoid(theta[i])
        gradient[i] = prior * (0.5 - p)
        matrix[i][i] = prior * p * (1.0 - p)
    for (a, b), score, count in zip(data.pairs, data.score, data.count, strict=True):
        if not count:
            continue
        p = _sigmoid(theta[a] - theta[b])
        gradient[a] += score - count * p
        gradient[b] -= score - count * p
        weight = count * p * (1.0 - p)
        matrix[a][a] += weight
        matrix[b][b] += weight
        matrix[a][b] -= weight
        matrix[b][a] -= weight
    return gradient, matrix


def _standard_errors(
    theta: Sequence[float],
    data: _Comparisons,
    games: Sequence[Sequence[tuple[int, float]]],
    weights: Sequence[int],
    prior: float,
) -> list[float]:
    """Per player, the larger of the cluster-robust and the model's standard error (Elo) of the centred rating.

    With ``H`` the negated Hessian, ``A = C H^-1`` (``C`` the centring projection) and ``B`` the games' score
    spread: the robust covariance is ``A B A^T``, the model's ``C H^-1 C``; only their diagonals are needed."""
    n = len(theta)
    _, matrix = _derivatives(theta, data, prior)
    lower = _cholesky(matrix)
    inverse = [_cholesky_solve(lower, [1.0 if row == col else 0.0 for row in range(n)]) for col in range(n)]
    column_means = [sum(inverse[row][col] for row in range(n)) / n for col in range(n)]
    centred = [[inverse[row][col] - column_means[col] for col in range(n)] for row in range(n)]  # A = C H^-1
    model = [centred[i][i] - column_means[i] + sum(column_means) / n for i in range(n)]  # diag(C H^-1 C)

    probability = [_sigmoid(theta[a] - theta[b]) for a, b in data.pairs]
    meat = [[0.0] * n for _ in range(n)]
    for game, weight in zip(games, weights, strict=True):  # a game played ``weight`` times adds its term as often
        score: dict[int, float] = {}
        for pair, pair_score in game:
            a, b = data.pairs[pair]
            residual = pair_score - probability[pair]
            score[a] = score.get(a, 0.0) + residual
            score[b] = score.get(b, 0.0) - residual
        entries = list(score.items())
        for a, x in entries:
            row = meat[a]
            for b, y in entries:
                row[b] += weight * x * y
    played = sum(weights)
    correction = played / (played - 1) if played > 1 else 1.0
    robust = []
    for i in range(n):
        a_row = centred[i]  # (A B A^T)_ii = sum over k, m of A_ik B_km A_im
        total = sum(a_row[k] * sum(meat[k][m] * a_row[m] for m in range(n)) for k in range(n))
        robust.append(total * correction)
    return [math.sqrt(max(m, r, 0.0)) * ELO_PER_LOG_STRENGTH for m, r in zip(model, robust, strict=True)]


def _cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower triangular ``L`` with ``L @ L.T == matrix``, for a symmetric positive definite ``matrix``."""
    n = len(matrix)
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = lower[i]
        for j in range(i + 1):
            other = lower[j]
            total = matrix[i][j] - sum(row[k] * other[k] for k in range(j))
            row[j] = math.sqrt(total) if i == j else total / other[j]
    return lower


def _cholesky_solve(lower: list[list[float]], vector: list[float]) -> list[float]:
    """``x`` with ``L @ L.T @ x == vector``, ``L`` from :func:`_cholesky`."""
    n = len(vector)
    forward = [0.0] * n
    for i in range(n):
        forward[i] = (vector[i] - sum(lower[i][k] * forward[k] for k in range(i))) / lower[i][i]
    solution = [0.0] * n
    for i in reversed(range(n)):
        solution[i] = (forward[i] - sum(lower[k][i] * solution[k] for k in range(i + 1, n))) / lower[i][i]
    return solution


def _centred_elo(theta: Sequence[float]) -> list[float]:
    mean = sum(theta) / len(theta)
    return [(t - mean) * ELO_PER_LOG_STRENGTH for t in theta]
