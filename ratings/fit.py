"""Order-independent ratings: a Bradley-Terry maximum-likelihood fit on the Elo scale, with intervals that hold for
multiplayer games, for a tournament of 4 bots or a pool of 10,000.

Every game counts as pairwise results between its seats, as in ``ratings.elo`` (a win to the better rank; equal
ranks tie). Bradley-Terry gives player ``i`` a strength ``gamma_i`` with ``P(i beats j) = gamma_i / (gamma_i +
gamma_j)``; on the Elo scale ``elo_i = 400 * log10(gamma_i)`` this is exactly Elo's expected score. Ties follow
Davidson's model: ``P(i beats j)``, ``P(tie)``, ``P(j beats i)`` proportional to ``gamma_i``, ``nu * sqrt(gamma_i *
gamma_j)``, ``gamma_j``, one tie parameter ``nu`` fitted with the ratings (none when no comparison is tied: then it is
Bradley-Terry exactly). A rating difference is thus the log-odds of a win against a loss: scoring ties as half a win
each, as this fit did before, pulled scores toward 50% and shrank the scale with the share of ties (to 0.92 of the
truth with 20% of tied places at 4 seats). The fit maximises the likelihood of all pairwise results at once, so
unlike incremental Elo it does not depend on the order of the games. The ratings are anchored so that their mean is
0: callers may add 1500.

The prior: a player who won (or lost) every comparison has no finite maximum-likelihood rating, and players in
separate groups that never met have no defined offset. So each player also gets ``prior_draws`` virtual draws
(one by default) against a virtual reference player fixed at the scale's origin (a logistic prior on each rating,
whatever the tie parameter). That is the mode of the posterior; it keeps every rating finite and the fit unique,
shrinks ratings slightly toward the middle (a 75% score over 100 games gives 189.6 instead of 190.8), and matters
little once a player has more than a few dozen comparisons. Groups that never met (``ratings.pool.groups_of``) are
placed relative to each other by the prior alone: compare ratings within a group only.

The solver: the games are read into arrays per table size (``ratings.seats``) and their comparisons summed per pair
of players; Newton's method on the log-strengths (and ``log nu``) with a backtracking line search (the log-posterior
is strictly concave, so it converges from anywhere), from each player's log-odds of its score or from ``start`` (the
ratings of an earlier fit). The negated Hessian is a graph Laplacian over the pairs that met plus diagonals: up to
``DENSE_PLAYERS`` players a step is a dense Cholesky solve, above it conjugate gradients on the sparse matrix, so a
step costs what the pairs do. 10,000 players and 1,000,000 games: a few seconds (``benchmarks/poolfit.py``).

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

Up to ``DENSE_PLAYERS`` players both are exact (the tie parameter's uncertainty included); above, where ``H^-1`` is
too large to form, each player's are approximated from its own row of the sparse structure: the model's variance by
the Neumann series of ``H^-1`` to second order (its own information plus its opponents' uncertainty), the sandwich's
as that times the player's own score spread over its information (``docs/ratings.md``, "Fitting 10,000 bots").

In simulations with known strengths (``tests/ratings/test_coverage.py``) the 95% intervals cover the truth 94-96%
of the time for 2-, 3- and 4-seat games alike, and for the large-pool approximation; ``docs/ratings.md`` gives the
model and its references. Games that repeat (the same players at the same ranks) may be given once with their
``counts``: the same fit, in the time of the distinct games (a rating pool keeps such tallies,
``tournament/standings/poolstate.py``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from statistics import NormalDist
from typing import TYPE_CHECKING, TypeVar, cast

from ratings.seats import SeatArrays, Seats, seat_arrays

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Floats = NDArray[np.float64]
    Ints = NDArray[np.int64]

P = TypeVar("P", bound=Hashable)

# One BLAS thread (read when numpy loads, below, on the first fit): a fit runs beside the games a machine's other
# workers play, and on a loaded machine OpenBLAS's threads spin: a 150-player fit took 30 times the CPU with them.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

PRIOR_DRAWS = 1.0
"""Virtual draws of each player against a reference player at the origin (see the module docstring)."""

CONFIDENCE = 0.95
TOLERANCE = 1e-9
"""Newton stops when no log-strength moves by more than this (about 4e-7 Elo)."""
MAX_ITERATIONS = 200
MAX_STEP = 4.0
"""The largest move of one log-strength in one Newton step (about 1,700 Elo): keeps the first steps sane."""
NEAR_MODE = 1e-3
"""Newton steps smaller than this (in log-strength) are taken whole, without a line search."""
DENSE_PLAYERS = 2000
"""Up to this many players, the Newton steps and the intervals use the dense Hessian (exact sandwich); above it,
conjugate gradients on the sparse Hessian and the local approximation of the intervals (module docstring)."""
MAX_TIE_RATE = 1e6
"""The largest Davidson tie parameter (every comparison tied has no finite one)."""
ELO_PER_LOG_STRENGTH = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class Rating:
    """A fitted rating on the Elo scale (mean 0 over the players fitted together) and its interval."""

    elo: float
    low: float
    high: float

    def to_json(self) -> dict[str, float]:
        return asdict(self)


@dataclass
class _Comparisons:
    """Pairwise results aggregated per pair of player indexes ``a < b``: a's score (wins and half the ties), the
    count and the ties, all weighted by the games' counts."""

    a: Ints
    b: Ints
    score: Floats
    count: Floats
    ties: float


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
    check_options(confidence, prior_draws)
    arrays = seat_arrays(games, counts)
    return fit_arrays(arrays, intervals=intervals, confidence=confidence, prior_draws=prior_draws, start=start)


def check_options(confidence: float, prior_draws: float) -> None:
    """``ValueError`` for a confidence or a prior :func:`fit` refuses."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    if not prior_draws > 0.0:
        raise ValueError(f"prior_draws must be positive (ratings may be infinite without it), not {prior_draws}")


def fit_arrays(
    arrays: SeatArrays[P],
    *,
    intervals: bool = True,
    confidence: float = CONFIDENCE,
    prior_draws: float = PRIOR_DRAWS,
    start: Mapping[P, float] | None = None,
) -> dict[P, Rating]:
    """:func:`fit` of games already read by :func:`ratings.seats.seat_arrays` (the table reads them once)."""
    import numpy as np

    check_options(confidence, prior_draws)
    players = arrays.players
    if not players:
        return {}
    n = len(players)
    data = _compare(arrays.tables, n)
    first = _first_guess(data, n, prior_draws)
    if start:
        known = np.array([start.get(player, math.nan) for player in players], dtype=float) / ELO_PER_LOG_STRENGTH
        first = np.where(np.isnan(known), first, known)
    theta, nu = _solve(data, n, prior_draws, first)
    point = (theta - theta.mean()) * ELO_PER_LOG_STRENGTH
    if not intervals:
        return {
            player: Rating(float(point[i]), float(point[i]), float(point[i])) for i, player in enumerate(players)
        }
    spread = _standard_errors(theta, nu, data, arrays.tables, prior_draws)
    margin = NormalDist().inv_cdf(0.5 + confidence / 2.0) * spread
    return {
        player: Rating(float(point[i]), float(point[i] - margin[i]), float(point[i] + margin[i]))
        for i, player in enumerate(players)
    }


def _first_guess(data: _Comparisons, n: int, prior: float) -> Floats:
    """Where the solver starts without an earlier fit: each player's log-odds of its score against all its
    opponents, the prior's draws included (the fit for opponents of average strength)."""
    import numpy as np

    score = _sums(data.a, data.score, n) + _sums(data.b, data.count - data.score, n) + prior / 2.0
    count = _sums(data.a, data.count, n) + _sums(data.b, data.count, n) + prior
    guess = np.log(score / (count - score))
    return cast("Floats", guess - guess.mean())


def _compare(tables: Mapping[int, Seats], n: int) -> _Comparisons:
    """Every game's pairs of seats (1 to the better rank, half a win each for a tie), summed per pair of players."""
    import numpy as np

    keys, scores, weights, tied = [], [], [], []
    for size, table in tables.items():
        for i, j in combinations(range(size), 2):
            a, b = table.players[:, i], table.players[:, j]
            first = table.ranks[:, i], table.ranks[:, j]
            score = np.where(first[0] < first[1], 1.0, np.where(first[0] == first[1], 0.5, 0.0))
            swap = a > b
            keys.append(np.where(swap, b * n + a, a * n + b))
            scores.append(np.where(swap, 1.0 - score, score) * table.weights)
            weights.append(table.weights)
            tied.append(float(table.weights[first[0] == first[1]].sum()))
    pairs, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    return _Comparisons(
        a=pairs // n,
        b=pairs % n,
        score=_sums(inverse, np.concatenate(scores)),
        count=_sums(inverse, np.concatenate(weights)),
        ties=sum(tied),
    )


def _sums(index: Ints, values: Floats, size: int | None = None) -> Floats:
    """``values`` summed per ``index`` (``size`` entries at least)."""
    import numpy as np

    return cast("Floats", np.bincount(index, values, size or 0))


def _pair_terms(d: Floats, nu: float) -> tuple[Floats, Floats, Floats]:
    """Per comparison of log-strength difference ``d``: ``u = exp(-|d| / 2)``, the Davidson denominator
    ``1 + u**2 + nu * u`` (``(2 cosh(d / 2) + nu) * u``) and the derivative of its log-partition ``F'(d)``."""
    import numpy as np

    u = np.exp(-0.5 * np.abs(d))
    denominator = 1.0 + u * u + nu * u
    slope = np.sign(d) * (1.0 - u * u) / (2.0 * denominator)
    return u, denominator, slope


def _expected(d: Floats, nu: float) -> Floats:
    """The expected score (wins and half the ties) of a player ``d`` log-strengths above the other."""
    return 0.5 + _pair_terms(d, nu)[2]


def _log_posterior(theta: Floats, log_nu: float | None, data: _Comparisons, prior: float) -> float:
    import numpy as np

    nu = 0.0 if log_nu is None else math.exp(log_nu)
    d = theta[data.a] - theta[data.b]
    _, denominator, _ = _pair_terms(d, nu)
    total = float(
        np.dot(data.score - 0.5 * data.count, d) - np.dot(data.count, 0.5 * np.abs(d) + np.log(denominator))
    )
    total += prior * float(np.sum(0.5 * theta - np.logaddexp(theta, 0.0)))
    if log_nu is not None:
        total += data.ties * log_nu
    return total


def _derivatives(
    theta: Floats, log_nu: float | None, data: _Comparisons, prior: float, n: int, *, tie_rate: bool
) -> tuple[Floats, Floats, Floats, Floats | None]:
    """The log-posterior's gradient in ``(theta, log nu)`` (``log nu`` last, when fitted), the negated Hessian's
    per-pair weights and diagonal in ``theta``, and its column of cross terms with ``log nu``."""
    import numpy as np

    nu = 0.0 if log_nu is None else math.exp(log_nu)
    d = theta[data.a] - theta[data.b]
    u, denominator, slope = _pair_terms(d, nu)
    residual = data.score - data.count * (0.5 + slope)
    sigma = 1.0 / (1.0 + np.exp(-theta))
    gradient = prior * (0.5 - sigma) + _sums(data.a, residual, n) - _sums(data.b, residual, n)
    weight = data.count * (u * u + nu * u * (1.0 + u * u) / 4.0) / denominator**2
    diagonal = prior * sigma * (1.0 - sigma) + _sums(data.a, weight, n) + _sums(data.b, weight, n)
    if log_nu is None or not tie_rate:
        return gradient, weight, diagonal, None
    tied_share = nu * u / denominator
    cross_pair = -data.count * np.sign(d) * (1.0 - u * u) * nu * u / (2.0 * denominator**2)
    cross = _sums(data.a, cross_pair, n) - _sums(data.b, cross_pair, n)
    own = float(np.dot(data.count, tied_share * (1.0 - tied_share)))
    gradient = np.append(gradient, data.ties - float(np.dot(data.count, tied_share)))
    diagonal = np.append(diagonal, own)
    return gradient, weight, diagonal, cross


class _Hessian:
    """The negated Hessian (``theta``, then ``log nu`` when fitted): the pairs' part as an upper triangular sparse
    matrix, whose structure is built once (the pairs come sorted by player, then opponent), plus its diagonal and the
    tie parameter's column. Each Newton step only writes its values (:meth:`at`)."""

    def __init__(self, data: _Comparisons, n: int, *, tie_rate: bool) -> None:
        import numpy as np
        from scipy import sparse

        self.data, self.n, self.size = data, n, n + 1 if tie_rate else n
        starts = np.concatenate([[0], np.cumsum(np.bincount(data.a, minlength=n))])
        self.upper = sparse.csr_array((np.zeros(len(data.a)), data.b, starts), shape=(n, n))
        self.diagonal: Floats = np.zeros(self.size)
        self.cross: Floats | None = None

    def at(self, weight: Floats, diagonal: Floats, cross: Floats | None) -> _Hessian:
        self.upper.data = -weight
        self.diagonal, self.cross = diagonal, cross
        return self

    def product(self, vector: Floats) -> Floats:
        """The matrix times ``vector``."""
        import numpy as np

        n = self.n
        own = vector[:n]
        result = self.diagonal[:n] * own + self.upper @ own + self.upper.T @ own
        if self.cross is None:
            return cast("Floats", result)
        result += self.cross * vector[n]
        return cast("Floats", np.append(result, self.cross @ own + self.diagonal[n] * vector[n]))

    def dense(self) -> Floats:
        import numpy as np

        matrix = np.zeros((self.size, self.size))
        matrix[self.data.a, self.data.b] = self.upper.data
        matrix[self.data.b, self.data.a] = self.upper.data
        matrix[np.diag_indices(self.size)] = self.diagonal
        if self.cross is not None:
            matrix[: self.n, self.n] = matrix[self.n, : self.n] = self.cross
        return matrix

    def operator(self) -> object:
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator((self.size, self.size), matvec=self.product, dtype=float)


def _newton_step(hessian: _Hessian, gradient: Floats) -> Floats:
    """``H^-1 @ gradient``: by Cholesky up to ``DENSE_PLAYERS`` players, else by conjugate gradients preconditioned
    by the diagonal."""
    import numpy as np
    from scipy import linalg
    from scipy.sparse.linalg import cg

    if hessian.n <= DENSE_PLAYERS:
        return np.asarray(linalg.cho_solve(linalg.cho_factor(hessian.dense()), gradient))
    scale = 1.0 / hessian.diagonal
    step, _ = cg(
        hessian.operator(), gradient, x0=gradient * scale, rtol=1e-10, maxiter=1000, M=_diagonal_operator(scale)
    )
    return np.asarray(step)


def _diagonal_operator(scale: Floats) -> object:
    from scipy.sparse import dia_array

    return dia_array((scale[None, :], [0]), shape=(len(scale), len(scale)))


def _solve(data: _Comparisons, n: int, prior: float, start: Floats) -> tuple[Floats, float]:
    """The log-strengths and tie parameter maximising the log-posterior, by damped Newton steps from ``start``
    (no tie parameter when no comparison is tied, the largest when all are): backtracking while the step is large,
    full steps near the mode, so that every start ends at the same mode to the last digits."""
    import numpy as np

    total = float(data.count.sum())
    log_nu: float | None = None
    if data.ties >= total:
        log_nu = math.log(MAX_TIE_RATE)
    elif data.ties > 0.0:
        log_nu = math.log(2.0 * data.ties / (total - data.ties))  # the rate of ties between equal players
    tie_rate = log_nu is not None and data.ties < total
    theta = start.copy()
    hessian = _Hessian(data, n, tie_rate=tie_rate)
    current: float | None = None  # the log-posterior at theta, once computed
    for _ in range(MAX_ITERATIONS):
        gradient, weight, diagonal, cross = _derivatives(theta, log_nu, data, prior, n, tie_rate=tie_rate)
        step = _newton_step(hessian.at(weight, diagonal, cross), gradient)
        largest = float(np.max(np.abs(step)))
        if largest < TOLERANCE:
            break
        if largest > MAX_STEP:
            step *= MAX_STEP / largest
            largest = MAX_STEP
        scale = 1.0
        if largest >= NEAR_MODE:
            if current is None:
                current = _log_posterior(theta, log_nu, data, prior)
            while True:
                trial = _moved(log_nu, step, scale, n) if tie_rate else log_nu
                value = _log_posterior(theta + scale * step[:n], trial, data, prior)
                if value >= current or scale * largest < TOLERANCE:
                    current = value
                    break
                scale /= 2.0
        else:
            current = None
        theta = theta + scale * step[:n]
        if tie_rate:
            log_nu = _moved(log_nu, step, scale, n)
    return theta, 0.0 if log_nu is None else math.exp(log_nu)


def _moved(log_nu: float | None, step: Floats, scale: float, n: int) -> float:
    assert log_nu is not None
    return min(log_nu + scale * float(step[n]), math.log(MAX_TIE_RATE))


def _standard_errors(
    theta: Floats, nu: float, data: _Comparisons, tables: Mapping[int, Seats], prior: float
) -> Floats:
    """Per player, the larger of the cluster-robust and the model's standard error (Elo) of the centred rating.

    With ``H`` the negated Hessian (in the log-strengths and the tie parameter), ``A = C H^-1`` (``C``
    the centring projection) and ``B`` the games' score spread: the robust covariance is ``A B A^T``, the model's
    ``C H^-1 C``; only their diagonals are needed. Above ``DENSE_PLAYERS`` players, their local approximation."""
    import numpy as np

    n = len(theta)
    log_nu = math.log(nu) if nu > 0.0 else None
    tie_rate = 0.0 < nu < MAX_TIE_RATE and n <= DENSE_PLAYERS
    _, weight, diagonal, cross = _derivatives(theta, log_nu, data, prior, n, tie_rate=tie_rate)
    size_all = n + 1 if tie_rate else n
    rows, columns, values, games = [], [], [], 0.0
    for size, table in tables.items():
        residual = np.zeros((len(table.weights), size + 1))  # the last column: the score of the tie parameter
        for i, j in combinations(range(size), 2):
            d = theta[table.players[:, i]] - theta[table.players[:, j]]
            ranks = table.ranks[:, i], table.ranks[:, j]
            score = np.where(ranks[0] < ranks[1], 1.0, np.where(ranks[0] == ranks[1], 0.5, 0.0))
            pair = score - _expected(d, nu)
            residual[:, i] += pair
            residual[:, j] -= pair
            if tie_rate:
                u, denominator, _ = _pair_terms(d, nu)
                residual[:, size] += (ranks[0] == ranks[1]) - nu * u / denominator
        members = np.hstack([table.players, np.full((len(table.weights), 1), n)])
        seats = size + 1 if tie_rate else size
        for i in range(seats):
            for j in range(seats):
                rows.append(members[:, i])
                columns.append(members[:, j])
                values.append(table.weights * residual[:, i] * residual[:, j])
        games += float(table.weights.sum())
    correction = games / (games - 1.0) if games > 1.0 else 1.0
    if n <= DENSE_PLAYERS:
        from scipy import sparse

        spread = sparse.csr_array(
            (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))), shape=(size_all, size_all)
        )
        inverse = np.linalg.inv(_Hessian(data, n, tie_rate=tie_rate).at(weight, diagonal, cross).dense())[:n]
        centred = inverse - inverse.mean(axis=0)  # A = C H^-1, the ratings' rows
        model = np.diag(centred) - centred[:, :n].mean(axis=1)  # diag(C H^-1 C)
        robust = np.einsum("ij,ij->i", (spread @ centred.T).T, centred) * correction
    else:
        own = _own_spread(rows, columns, values, n)
        neighbours = _sums(data.a, weight**2 / diagonal[data.b], n) + _sums(
            data.b, weight**2 / diagonal[data.a], n
        )
        model = 1.0 / diagonal + neighbours / diagonal**2
        information = np.maximum(diagonal - prior * _bernoulli_variance(theta), np.finfo(float).tiny)
        robust = model * own / information * correction
    return cast("Floats", np.sqrt(np.maximum(np.maximum(model, robust), 0.0)) * ELO_PER_LOG_STRENGTH)


def _own_spread(rows: list[Ints], columns: list[Ints], values: list[Floats], n: int) -> Floats:
    """``diag(B)``: each player's sum of squared game scores."""
    import numpy as np

    own = np.zeros(n)
    for row, column, value in zip(rows, columns, values, strict=True):
        same = row == column
        own += _sums(row[same], value[same], n)
    return own


def _bernoulli_variance(theta: Floats) -> Floats:
    import numpy as np

    sigma = 1.0 / (1.0 + np.exp(-theta))
    return sigma * (1.0 - sigma)
