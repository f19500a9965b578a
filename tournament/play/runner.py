"""Play one scheduled tournament game to its end: take its lease, make or resume its game, play it through the game
loop (``engine.gameloop``, the seats asked by ``tournament.play.game``), save its end and its result, refresh the
standings (a ladder's game: make the ladder's next games, ``tournament/standings/ladderstate.py``).

The third consecutive fault of a seat forfeits the game for it (ranked last, its later turns played by the fallback
without asking). A push bot excluded by its health checks, and a bot paused or whose account the operator disabled,
forfeits the game from its start. A game forfeited for a reason on the service's side (an excluded bot, a bot that
refused the service's signature throughout) is void, not rated (``tournament/play/voids.py``).
"""

from __future__ import annotations

import logging
from typing import NamedTuple, Protocol

from sqlalchemy.orm import Session

import engine
from botlink import moves
from engine.gameloop import play_out
from runtime import metrics
from runtime.jobqueue import LocalQueue, RQQueue
from store import gamelog
from tournament.play import leases, results, saving, scheduled, voids
from tournament.play.game import Notifier, Play, RunnerSettings, Saved
from tournament.play.heartbeat import Heartbeat, Holding, Stopping
from tournament.play.scheduled import ScheduledGame
from tournament.play.seats import SeatState, check_health, give_back, notify_bots, seat_states, send_ends
from tournament.play.stalls import Stalls
from tournament.play.writes import writing
from tournament.standings import ladderstate, tables

log = logging.getLogger(__name__)


class Workplace(Protocol):
    """What a game needs of the process that plays it (``tournament.dispatch.context.Context`` is one)."""

    runner: RunnerSettings
    notifier: Notifier
    heartbeat: Heartbeat
    """Keeps the leases of the process's games."""
    stalls: Stalls
    """Told how every bot answers."""
    queue: RQQueue | LocalQueue
    """Takes a large rating pool's refit job (``tables.refresh``)."""


def play_scheduled(session: Session, scheduled_id: int, place: Workplace) -> str:
    """Play (or resume, or find done) one scheduled game, its lease kept by ``place.heartbeat`` meanwhile, its bots'
    answers told to ``place.stalls``. Returns what happened: ``finished`` (this call wrote the result), ``done`` (it
    was already), ``busy`` (another worker holds it), ``missing``, ``stopped`` (this worker stops: the game was saved
    and its lease given back), ``cancelled`` (its tournament was cancelled, before or while it played: it stopped at
    its next step, writing nothing more). Raises ``LeaseLost`` when another worker took the game over while this one
    played it.

    A game is read (with its tournament and its bots) before its lease is taken; a game never started has its
    bots' health checked (when due), then its lease taken and its game created in one transaction."""
    settings = place.runner
    found = scheduled.read(session, scheduled_id)
    if found is None:
        return "missing"
    if found.status in ("done", "cancelled"):
        session.rollback()
        return found.status
    seats = seat_states(session, found, settings.allow)
    try:
        excluded = [False] * len(seats)
        withheld = [False] * len(seats)
        if found.game_id is None:  # its bots' health, checked before the game is created (when due)
            for number, player in enumerate(seats):
                if player.bot is not None and player.bot.withheld:  # paused, or its account disabled
                    withheld[number] = True
                elif player.bot is not None and player.connection is not None:
                    excluded[number] = check_health(
                        session,
                        player.bot,
                        player.connection,
                        settings.health_interval,
                        settings.old_protocol_days,
                    )
                elif player.bot is not None:
                    excluded[number] = player.bot.excluded
        with writing(session):
            leased = leases.lease(session, scheduled_id, settings.worker, settings.lease_seconds)
            if leased is None:
                now_found = scheduled.read(session, scheduled_id)
                session.rollback()
                if now_found is not None and now_found.status in ("done", "cancelled"):
                    return now_found.status
                return "busy"
            started = start_game(session, found, leased, seats)
            session.commit()
        if found.status == "running" and started.resumed:  # its lease had run out: its worker died or stalled
            metrics.LEASE_TAKEOVERS.inc()
            log.warning("scheduled game %s taken over: its last worker's lease ran out", scheduled_id)
        if not started.resumed:
            metrics.GAMES_STARTED.inc()
        if not started.resumed:  # an excluded or withheld bot forfeits the game from its start
            for player, out, held in zip(seats, excluded, withheld, strict=True):
                player.forfeited = out or held
                player.excluded_at_start = out  # the service's side: the game is void (``voids``)
        holding = place.heartbeat.hold(scheduled_id)
        try:
            return play_leased(session, found, started, seats, place, holding)
        except leases.Cancelled:
            session.rollback()
            return "cancelled"
        except Stopping:
            session.rollback()
            with writing(session):
                leases.release(session, scheduled_id, settings.worker)
            return "stopped"
        finally:
            place.heartbeat.release(holding)
    finally:
        give_back(seats)


class Started(NamedTuple):
    """The game of a scheduled game whose lease was just taken: its id; its engine state when it is known without
    a read (``None``: read it, and the ply, from the game log); whether it was started before (a resumed game)."""

    game_id: int
    state: engine.State | None
    resumed: bool


def start_game(session: Session, found: ScheduledGame, leased: leases.Leased, seats: list[SeatState]) -> Started:
    """In the lease's transaction: create the game of a scheduled game never started (its seats taken), else find
    the game it left."""
    if leased.game_id is not None:
        return Started(leased.game_id, None, True)
    tournament = found.tournament
    created = gamelog.create(
        session,
        tournament.game,
        tournament.settings,
        found.seed,
        tournament.table_size,
        tournament.owner_id,
        [seat.player_id for seat in seats],
    )
    scheduled.set_game(session, found.id, created.id)
    if all(player.connection is not None for player in seats):
        # its seats are all push bots: nobody but this worker moves in it, so it is as created
        return Started(created.id, created.engine_state, False)
    return Started(created.id, None, False)


def play_leased(
    session: Session,
    found: ScheduledGame,
    started: Started,
    seats: list[SeatState],
    place: Workplace,
    holding: Holding,
) -> str:
    """:func:`play_scheduled` once the lease is taken and the game exists: the bots told the game starts, the game
    played to its end, its last moves, its end and its result stored in one transaction, the standings refreshed."""
    tournament, game_id = found.tournament, started.game_id
    state, ply = started.state, 0
    if state is None:
        stored = gamelog.position(session, game_id)
        assert stored is not None
        state, ply = gamelog.decode_state(stored.state), stored.ply
    play = Play(
        session, found, game_id, state, Saved(ply), seats, place.runner, place.notifier, holding, place.stalls
    )
    if started.resumed:  # recount the faults of its saved moves
        for seat, fault in gamelog.faults(session, game_id):
            play.seats[seat].count(fault)
        voids.resumed(play.seats)
    names = [seat.name for seat in seats]
    notify_bots(
        seats,
        "start",
        lambda seat: moves.start_request(
            game_id,
            seat,
            tournament_id=tournament.id,
            game=tournament.game,
            settings=tournament.settings,
            seats=tournament.table_size,
            players=names,
        ),
    )
    try:
        play_out(play)
    except Stopping:
        session.rollback()
        with writing(session):
            play.write_pending()  # what was played stands: another worker goes on from there (tried once: it stops)
            session.commit()
        raise
    # a refused signature voids the game only if the bot's info route refuses it too
    voids.confirm(session, seats, place.runner.old_protocol_days)
    final = play.outcome()
    for seat in final["forfeited"]:
        metrics.FORFEITS.inc()
        bot = seats[seat].bot
        log.info(
            "game %s seat %s: bot %s forfeited (%s)",
            play.game_id,
            seat,
            bot.id if bot is not None else "-",
            forfeit_cause(seats[seat]),
        )
    result = play.ending(final["forfeited"])
    if final["void_reason"] is not None:  # kept with the game's end too: the game's detail shows it
        result["void_reason"] = final["void_reason"]
        log.info("game %s is void (%s): not rated", play.game_id, final["void_reason"])

    def write_end() -> tuple[int, bool]:
        ply = play.write_pending(ending=result)
        return ply, results.finish(session, tournament, found.id, found.bot_ids, play.game_id, final)

    ply, written = saving.until_stored(session, holding, write_end, f"game {play.game_id}'s end")
    play.stored(ply)
    void = final["void_reason"] is not None  # a void result changes no pool
    if tournament.ladder:  # no table of its own, never complete while open: the bots freed get their next games
        with writing(session):
            ladderstate.after_result(
                session,
                place.queue,
                tournament.id,
                tournament.game,
                tournament.variant,
                tournament.table_size,
                tournament.rated,
                void,
            )
    elif tables.refresh(
        session,
        place.queue,
        tournament.id,
        tournament.game,
        tournament.variant,
        tournament.table_size,
        tournament.rated,
        void=void,
    ):
        with writing(session):
            results.complete(session, tournament.id, tournament.games_total)
    session.rollback()  # the standings' reads end here (a refit committed its own writes)
    play.notifier.publish(play.game_id, play.saved.ply)
    send_ends(seats, lambda seat: moves.end_request(play.game_id, seat, result, seat in final["forfeited"]))
    if written:
        metrics.GAMES_FINISHED.inc()
    return "finished" if written else "done"


def forfeit_cause(player: SeatState) -> str:
    """Why a seat forfeited, in words, for the log."""
    if player.excluded_at_start:
        return "excluded by its health checks: the game is void"
    if voids.cause(player) == voids.REJECTED:
        return "it refused the service's signature on every call: the game is void"
    if player.faults_in_a_row >= player.to_forfeit:
        return "faults in a row"
    return "paused, or its account disabled"
