"""``/api/v1/matches`` and ``/api/v1/gauntlets``: is bot A stronger than bot B? A sequential test on paired deals
when every bot is the caller's own, else on independent deals.

A match is a tournament of a kind of its own (``tournament/plans/matches.py`` lays out its schedule in pairs of games,
seats swapped, that share a deal only when the match is paired, and stops it by the SPRT of ``ratings/sprt.py`` after
each completed pair, or each game on independent deals); creating one checks the bots as a tournament does (``service/api/tournaments.py``: the caller's own bots or bots open to others, quotas) and
hands it to the same start job. It is unrated: a match's games never enter the rating pools. Cancel it with
``POST /api/v1/tournaments/{tournament_id}/cancel``. A gauntlet is one match per opponent of a field, with the same
test corrected by Holm's step-down (``ratings/gauntlet.py``: the chance of even one false pass among its matches is
at most ``alpha``), sharing the id of its first match, with one combined verdict. Each match shows, beside its
verdict in words (``ratings/verdict_words.py``), its plan before it starts: the chance of H1, of no verdict and the
games expected at ``elo0``, halfway and ``elo1`` (Wald's approximation, ``ratings/sprt_plan.py``), and once over
its normalized Elo corrected for early stopping (``ratings/sprt_stopped.py``).
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import Select, func, select

import engine
from ratings.gauntlet import combined, gauntlet_bounds
from ratings.sprt import Sprt, estimate, game_score
from ratings.sprt_plan import plan
from ratings.sprt_stopped import stopped
from ratings.verdict_words import verdict_words
from service import auth, db, idempotency, quotas
from service.api.tournaments import check_bots, variant_of
from service.errors import ErrorSchema, fail
from service.match_schemas import (
    GauntletCreateSchema,
    GauntletSchema,
    MatchCreateSchema,
    MatchDetailSchema,
    MatchListSchema,
)
from store.models import Bot, Result, Tournament, TournamentGame, new_seed_salt, now
from store.models.matches import Match, fresh_counts, gauntlet_tally

blp = Blueprint(
    "matches", __name__, url_prefix="/api/v1", description="Matches: bot A against bot B, stopped by an SPRT"
)


def pairs_of(max_games: int) -> int:
    """Pairs laid out for ``max_games`` (the same rounding as ``tournament.plans.matches.pairs_of``)."""
    return (max_games + 1) // 2


def settings_of(body: dict[str, Any]) -> dict[str, Any]:
    """The game settings, normalized, with ``players`` the table size; a 422 naming what is wrong."""
    settings = dict(body["settings"])
    if settings.setdefault("players", body["table_size"]) != body["table_size"]:
        fail(422, f"settings.players ({settings['players']}) and table_size ({body['table_size']}) disagree")
    try:
        return dict(engine.normalize_settings(body["game"], settings))
    except engine.SettingsError as error:
        fail(422, f"settings: {error}")


def paired_deals(asked: bool | None, owner_id: int, seated: list[int], owners: dict[int, int]) -> bool:
    """Whether a match of the ``seated`` bots plays paired deals: only when every one is the caller's (a bot could
    remember a deal it held, and in the twin game know the hand of the bot now in its seat), unless ``asked`` says
    no; asked for with another account's bot, a 422 that names it."""
    others = [bot for bot in seated if owners.get(bot) != owner_id]
    if asked and others:
        fail(
            422,
            f"paired: bot {', '.join(map(str, others))} is another account's; paired deals (one deal per pair of "
            "games, seats swapped) are only for matches of your own bots, since a bot may remember a deal it held. "
            "Leave paired out or false to play independent deals",
        )
    return not others if asked is None else asked


def create_matches(body: dict[str, Any], bot: int, opponents: list[int], gauntlet: bool = False) -> list[Match]:
    """One match of ``bot`` against each opponent (committed, started), after every check passed for all; a
    ``gauntlet``'s share the id of the first. Each is paired or not on its own bots (:func:`paired_deals`)."""
    owner = auth.required_owner()
    official = auth.is_operator()
    session = db.session()
    settings = settings_of(body)
    games = 2 * pairs_of(body["max_games"])
    everyone = [bot, *opponents, *body["fillers"]]
    owners = dict(session.execute(select(Bot.id, Bot.owner_id).where(Bot.id.in_(everyone))).all())
    paired: dict[int, bool] = {}
    for opponent in opponents:
        seated = [bot, opponent, *body["fillers"]]
        if len(set(seated)) != len(seated):
            fail(422, f"bots: A, B and the fillers must be different bots, got {seated}")
        check_bots(session, body["game"], seated, body["table_size"], owner.id, official)
        paired[opponent] = paired_deals(body["paired"], owner.id, seated, owners)
    if not official:
        quotas.check(
            session, current_app.extensions["settings"], owner.id, games * len(opponents), None, match_games=games
        )
    names = dict(session.execute(select(Bot.id, Bot.name).where(Bot.id.in_([bot, *opponents]))).all())
    seed = body["seed"] if body["seed"] is not None else secrets.randbits(62)
    made: list[Match] = []
    for opponent in opponents:
        tournament = Tournament(
            owner_id=owner.id,
            name=f"match {names[bot]} vs {names[opponent]}"[:64],
            game=body["game"],
            settings=settings,
            variant=variant_of(body["game"], settings),
            bot_ids=[bot, opponent, *body["fillers"]],
            table_size=body["table_size"],
            rounds=pairs_of(body["max_games"]),
            seed=seed,
            seed_salt=new_seed_salt(),
            official=official,
            move_timeout_ms=body["move_timeout_ms"],
            rated=False,
            run=1,
            status="scheduled",
            games_total=games,
            created_at=now(),
        )
        session.add(tournament)
        session.flush()
        match = Match(
            tournament_id=tournament.id,
            owner_id=owner.id,
            bot_a=bot,
            bot_b=opponent,
            fillers=list(body["fillers"]),
            elo0=body["elo0"],
            elo1=body["elo1"],
            alpha=body["alpha"],
            beta=body["beta"],
            model=body["model"],
            max_games=body["max_games"],
            pairs=0,
            counts=fresh_counts(paired[opponent]),
            llr=0.0,
            verdict="continue",
            games_counted=0,
            gauntlet_id=made[0].id if made else None,
            updated_at=now(),
        )
        session.add(match)
        session.flush()
        if gauntlet and not made:
            match.gauntlet_id = match.id
        made.append(match)
    session.commit()
    queue = current_app.extensions["queue"]
    for match in made:
        queue.queue_start(match.tournament_id)  # with Redis down, the workers' clock starts it once Redis answers
    return made


def describe(session: Any, shown: Shown) -> dict[str, Any]:
    match, tournament = shown
    names = dict(session.execute(select(Bot.id, Bot.name).where(Bot.id.in_([match.bot_a, match.bot_b]))).all())
    test = Sprt(match.elo0, match.elo1, match.alpha, match.beta, match.model)  # type: ignore[arg-type]
    k, rejected = gauntlet_tally(session, match)
    lower, upper = gauntlet_bounds(match.alpha, match.beta, k, rejected)
    found = estimate(match.counts)
    games = session.scalar(select(func.count(Result.id)).where(Result.tournament_id == tournament.id)) or 0
    verdict = "cancelled" if tournament.status == "cancelled" and match.verdict == "continue" else match.verdict
    observations = match.pairs if match.paired else sum(match.counts)
    corrected = stopped(test, match.paired, lower, upper, verdict, observations, match.llr)
    name_a, name_b = names.get(match.bot_a, "?"), names.get(match.bot_b, "?")
    words = verdict_words(
        verdict, match.elo0, match.elo1, match.model, tournament.table_size, match.max_games, name_a, name_b, k
    )
    return {
        "id": match.id,
        "tournament_id": match.tournament_id,
        "gauntlet_id": match.gauntlet_id,
        "gauntlet_size": k,
        "bot_a": match.bot_a,
        "bot_b": match.bot_b,
        "name_a": name_a,
        "name_b": name_b,
        "fillers": match.fillers,
        "game": tournament.game,
        "settings": tournament.settings,
        "table_size": tournament.table_size,
        "elo0": match.elo0,
        "elo1": match.elo1,
        "alpha": match.alpha,
        "beta": match.beta,
        "model": match.model,
        "max_games": match.max_games,
        "paired": match.paired,
        "status": tournament.status,
        "verdict": verdict,
        "verdict_text": words,
        "plan": [point.to_json() for point in plan(test, match.paired, match.max_games, (lower, upper))],
        "llr": match.llr,
        "lower": lower,
        "upper": upper,
        "pairs": match.pairs,
        "counts": match.counts,
        "games": games,
        "elo": found.to_json() if found else None,
        "elo_stopped": corrected.to_json() if corrected else None,
        "created_at": tournament.created_at,
        "finished_at": tournament.finished_at,
    }


def detail(session: Any, shown: Shown) -> dict[str, Any]:
    match = shown[0]
    rows = session.execute(
        select(TournamentGame.round, Result.game_id, Result.bot_ids, Result.ranks, Result.void_reason)
        .join(TournamentGame, TournamentGame.id == Result.tournament_game_id)
        .where(Result.tournament_id == match.tournament_id)
        .order_by(TournamentGame.number)
    ).all()
    results = [
        {
            "pair": pair,
            "game_id": game_id,
            "bot_ids": bot_ids,
            "ranks": ranks,
            "score": None
            if void_reason is not None  # a void game counts in no test (``tournament/plans/matches.py``)
            else game_score(ranks[bot_ids.index(match.bot_a)], ranks[bot_ids.index(match.bot_b)]),
            "void_reason": void_reason,
        }
        for pair, game_id, bot_ids, ranks, void_reason in rows
    ]
    return {**describe(session, shown), "results": results}


Shown = tuple[Match, Tournament]
"""A match and its tournament, read in one statement (:func:`with_tournaments`)."""


def with_tournaments(session: Any, statement: Select[Any]) -> list[Shown]:
    """The matches ``statement`` selects, each with its tournament read in the same statement: on PostgreSQL each
    statement sees the commits made before it, so a tournament read after its match could already be ended by the
    verdict that the match, read just before, did not have yet (a done match still to ``continue``)."""
    joined = statement.add_columns(Tournament).join(Tournament, Tournament.id == Match.tournament_id)
    return [(match, tournament) for match, tournament in session.execute(joined).all()]


def found(session: Any, match_id: int) -> Shown:
    """The match with its tournament, or a 404 that names the id."""
    if 0 < match_id <= 2**31 - 1:
        for shown in with_tournaments(session, select(Match).where(Match.id == match_id)):
            return shown
    fail(404, f"no match {match_id}")


@blp.route("/matches")
class Matches(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(MatchCreateSchema)
    @blp.response(201, MatchDetailSchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    @blp.alt_response(403, schema=ErrorSchema, description="a bot of another account not open to others")
    @blp.alt_response(422, schema=ErrorSchema, description="bad settings, bots or test, or over a quota")
    @blp.alt_response(429, schema=ErrorSchema, description="over a quota of the account's queued games")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Start a match: bot_a against bot_b until the SPRT decides or max_games are played

        The games come in pairs with the bots' seats swapped (at 3-4 seats, with the same fillers in the other
        seats). When every bot is the caller's own, the two games of a pair share one deal (paired deals), played
        one after the other, and the test counts completed pairs (pentanomial); with another account's bot each
        game has a deal of its own (a bot may remember a deal it held) and the test counts games (trinomial). After
        each count the log-likelihood ratio of H1 (A is elo1 stronger) against H0 (elo0) is checked against the
        bounds from alpha and beta. Unrated."""
        session = db.session()
        (match,) = create_matches(body, body["bot_a"], [body["bot_b"]])
        return detail(session, found(session, match.id))

    @blp.response(200, MatchListSchema)
    def get(self) -> dict[str, Any]:
        """List the latest 50 matches, newest first"""
        session = db.session()
        matches = with_tournaments(session, select(Match).order_by(Match.id.desc()).limit(50))
        return {"matches": [describe(session, shown) for shown in matches]}


@blp.route("/matches/<int:match_id>")
class OneMatch(MethodView):
    @blp.response(200, MatchDetailSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="no such match")
    def get(self, match_id: int) -> dict[str, Any]:
        """A match: status, verdict, LLR and bounds, pentanomial counts, Elo difference with its 95% interval"""
        session = db.session()
        return detail(session, found(session, match_id))


@blp.route("/gauntlets")
class Gauntlets(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(GauntletCreateSchema)
    @blp.response(201, GauntletSchema)
    @blp.alt_response(401, schema=ErrorSchema, description="a missing or unknown bearer token")
    @blp.alt_response(403, schema=ErrorSchema, description="a bot of another account not open to others")
    @blp.alt_response(422, schema=ErrorSchema, description="bad settings, bots or test, or over a quota")
    @blp.alt_response(429, schema=ErrorSchema, description="over a quota of the account's queued games")
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Start a gauntlet: one bot against each opponent of a field, a match with each

        Each match is on paired deals when its bots are all the caller's, else on independent deals (see POST
        /matches). The matches test with Holm's step-down: each match's H1 bound is Wald's at alpha / (k - r), r the
        matches that accepted H1 so far, so that the chance of even one false pass among the k is at most alpha;
        the gauntlet has one combined verdict (all, some, none)."""
        if len(set(body["opponents"])) != len(body["opponents"]):
            fail(422, "opponents: a bot is listed twice")
        session = db.session()
        made = create_matches(body, body["bot"], body["opponents"], gauntlet=True)
        return gauntlet(session, made[0].gauntlet_id or made[0].id)


def gauntlet(session: Any, gauntlet_id: int) -> dict[str, Any]:
    matches = with_tournaments(session, select(Match).where(Match.gauntlet_id == gauntlet_id).order_by(Match.id))
    if not matches:
        fail(404, f"no gauntlet {gauntlet_id}")
    shown = [describe(session, m) for m in matches]
    first = shown[0]
    verdict = combined([match["verdict"] for match in shown])
    return {
        "id": gauntlet_id,
        "bot": first["bot_a"],
        "verdict": verdict.verdict,
        "stronger": verdict.stronger,
        "verdict_text": verdict.words(first["elo0"], first["elo1"], first["model"], first["table_size"]),
        "matches": shown,
    }


@blp.route("/gauntlets/<int:gauntlet_id>")
class OneGauntlet(MethodView):
    @blp.response(200, GauntletSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="no such gauntlet")
    def get(self, gauntlet_id: int) -> dict[str, Any]:
        """A gauntlet: its match against each opponent, with each verdict and Elo difference"""
        return gauntlet(db.session(), gauntlet_id if 0 < gauntlet_id <= 2**31 - 1 else 0)
