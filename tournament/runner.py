"""Play one scheduled tournament game to its end: ask each seat's bot, record faults, forfeit, save, rank.

A push bot is POSTed the seat's view and legal actions and answers an action id; a pull bot plays through the games
API with its own token, and the runner waits for its move until the deadline. A fault (timeout, connection error,
non-2xx, unparsable or oversized body, redirect, refused address, illegal action) is answered by the game's seeded
fallback action, recorded on the move with the latency; the third consecutive fault of a seat forfeits the game for
it (ranked last, its later turns played by the fallback without asking). Moves are saved in small batches, and
always before a pull bot must see the position.

A challenge's game (``store/challenges.py``) has a person's seat: their own account sits there, without a bot, and
the runner waits on it exactly as on a pull bot's seat (the same deadline, faults and forfeit), while the person
moves through the games API.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, NamedTuple, NoReturn, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from botlink import keepalive, moves
from botlink.calls import BotConnection
from engine.records import final_result
from store import gamelog
from store.challenges import HUMAN
from store.models import Game, now
from tournament import leases, results, scheduled, standings
from tournament.heartbeat import Heartbeat, Holding, Stopping
from tournament.scheduled import ScheduledGame, SeatBot, TournamentSettings
from tournament.stalls import Stalls
from tournament.writes import writing


class Notifier(Protocol):
    def publish(self, game_id: int, ply: int) -> None: ...

    def publish_players(self, player_ids: Iterable[int], game_id: int | None = None) -> None: ...

    def wait(self, game_id: int, ready: Callable[[], bool], timeout: float) -> bool: ...


@dataclass
class RunnerSettings:
    worker: str
    allow: Sequence[Any] = ()
    """Networks a bot URL may resolve to despite being private or loopback (``SORRY_ARENA_BOT_ALLOW``)."""
    lease_seconds: float = 30.0
    batch_moves: int = 64
    batch_seconds: float = 0.5
    """A game's moves are saved every ``batch_moves`` moves or ``batch_seconds`` seconds, whichever comes first (a
    save costs the worker about as much as ten moves' engine work; a watcher of the game sees it move by that much)."""
    health_interval: float = 10.0
    """A push bot's info route is checked at a game's start when its last check is older than this."""


@dataclass
class SeatState(moves.FaultCount):
    """A seat's bot, its connection (a push bot's) and its faults (``count``: the third in a row forfeits); the
    account that holds the seat and its name (a bot's, or a challenge's person, who has no ``bot``)."""

    bot: SeatBot | None
    connection: BotConnection | None
    player_id: int
    name: str
    last_latency_ms: float | None = None

    def answered(self, stalls: Stalls, fault: str | None) -> None:
        """Tell ``stalls`` how the seat's bot answered (a person's answers are no bot's stalling)."""
        if self.bot is not None:
            stalls.answered(self.bot.id, fault)


@dataclass(frozen=True)
class Saved:
    """What the database holds of the game, as of this worker's last save or read."""

    ply: int


@dataclass
class Play:
    """One game being played by this worker."""

    session: Session
    scheduled: ScheduledGame
    game_id: int
    state: Any
    saved: Saved
    seats: list[SeatState]
    settings: RunnerSettings
    notifier: Notifier
    holding: Holding
    """The game's lease as this process's heartbeat keeps it: ``holding.check()`` stops the game at its next step
    when another worker took it over or this worker stops."""
    stalls: Stalls
    """This process's note of the bots that stall: every answer a bot gives (or not) is told to it."""
    pending: list[gamelog.Move] = field(default_factory=list)
    last_save: float = field(default_factory=time.monotonic)
    last_renewal: float = field(default_factory=time.monotonic)
    """When a save last renewed the lease (the lease was just taken when the play began)."""

    @property
    def ply(self) -> int:
        return self.saved.ply + len(self.pending)

    @property
    def tournament(self) -> TournamentSettings:
        return self.scheduled.tournament

    def write_pending(self, ending: engine.Json | None = None) -> None:
        """Write the pending moves through the game log, in the session's transaction; with ``ending`` (the game's
        final result), end the game with it, in the same statement when moves are pending. ``LeaseLost`` if the game
        moved on without this worker (it stalled past its lease and another took over)."""
        if not self.pending:
            if ending is not None and not gamelog.finish(self.session, self.game_id, self.saved.ply, ending):
                self.lost()
            return
        over = engine.is_over(self.state)
        write = gamelog.advance(
            self.game_id,
            self.pending,
            self.state,
            engine.result(self.state) if over and ending is None else None,
            ending=ending,
        )
        if not gamelog.save(self.session, write):
            self.lost()
        self.saved = Saved(write.new_ply)
        self.pending.clear()

    def lost(self) -> NoReturn:
        """Undo the transaction and raise ``LeaseLost``: the game is not at the ply this worker saved last."""
        self.session.rollback()
        raise leases.LeaseLost(f"game {self.game_id} moved past ply {self.saved.ply} without this worker")

    def flush(self) -> None:
        """Save the pending moves, renewing the lease in the same transaction when a quarter of it has passed since
        this game's last renewal (the heartbeat renews it meanwhile, whatever the game does), and publish the new
        ply. One SQLite writer at a time in this process (``tournament.writes``)."""
        self.holding.check()
        moment = time.monotonic()
        with writing(self.session):
            self.write_pending()
            if moment - self.last_renewal >= self.settings.lease_seconds / 4:
                leases.renew(self.session, self.scheduled.id, self.settings.worker, self.settings.lease_seconds)
                self.last_renewal = moment
            self.session.commit()
        self.last_save = time.monotonic()
        self.notifier.publish(self.game_id, self.saved.ply)

    def finished(self) -> bool:
        return engine.is_over(self.state) or sum(not seat.forfeited for seat in self.seats) <= 1

    def record(
        self,
        seat: int,
        action: str,
        latency_ms: float | None,
        fault: str | None,
        detail: str | None = None,
        debug: str | None = None,
    ) -> None:
        ply = self.ply
        engine.apply(self.state, action, seat, events=False)
        self.pending.append(gamelog.Move(ply, seat, action, latency_ms, fault, detail, debug))
        self.seats[seat].count(fault)
        if len(self.pending) >= self.settings.batch_moves or (
            time.monotonic() - self.last_save >= self.settings.batch_seconds
        ):
            self.flush()


def move_request(play: Play, seat: int, kind: str, actions: list[Any]) -> dict[str, Any]:
    return moves.move_request(
        play.state,
        seat,
        kind,
        actions,
        game_id=play.game_id,
        tournament_id=play.tournament.id,
        ply=play.ply,
        deadline_ms=play.tournament.move_timeout_ms,
        last_latency_ms=play.seats[seat].last_latency_ms,
    )


def ask_push_bot(play: Play, seat: int, kind: str, connection: BotConnection) -> None:
    actions = engine.legal_actions(play.state, seat)
    answer = moves.ask(connection, move_request(play, seat, kind, actions), actions)
    play.seats[seat].answered(play.stalls, answer.fault)
    play.seats[seat].last_latency_ms = answer.latency_ms
    action = engine.fallback_action(play.state) if answer.action is None else answer.action
    play.record(seat, action, answer.latency_ms, answer.fault, answer.detail, answer.debug)


def reload(play: Play) -> None:
    """Take the position the games API saved (a pull bot moved) as this worker's own, dropping any move of its own
    not saved (a fallback whose save found the ply taken)."""
    stored = gamelog.position(play.session, play.game_id)
    play.session.commit()
    assert stored is not None
    play.state = gamelog.decode_state(stored.state)
    play.saved = Saved(stored.ply)
    play.pending.clear()


def ask_pull_bot(play: Play, seat: int) -> None:
    if play.pending:
        play.flush()
    else:
        play.notifier.publish(play.game_id, play.saved.ply)
    # and wake the bot's inbox (GET /decisions?wait=), which may be waiting since before this game existed
    play.notifier.publish_players([play.seats[seat].player_id], play.game_id)
    ply = play.saved.ply
    game_id = play.game_id

    def moved() -> bool:
        """Whether the bot moved; or the tournament was cancelled (the cancellation wakes this wait), which the
        ``holding.check`` after the wait raises."""
        current = play.session.scalar(select(Game.ply).where(Game.id == game_id))
        play.session.commit()
        if current is not None and current > ply:
            return True
        if leases.cancelled(play.session, play.scheduled.id):
            play.holding.cancelled.set()
            return True
        return False

    # The timer starts after the position was saved (just above, by the API's move that ``moved`` saw, or at the
    # game's creation), so the deadline the games API shows (save time + timeout) never ends after it.
    started = time.monotonic()
    timeout = play.tournament.move_timeout_ms / 1000
    moved_in_time = play.notifier.wait(game_id, moved, timeout)
    play.seats[seat].answered(play.stalls, None if moved_in_time else "timeout")
    play.holding.check()
    if moved_in_time:
        latency = (time.monotonic() - started) * 1000
        with writing(play.session):
            gamelog.record_latency(play.session, game_id, ply, latency)
            play.session.commit()
        play.seats[seat].last_latency_ms = latency
        play.seats[seat].count(None)
        reload(play)
        return
    player = play.seats[seat]
    counted = (player.faults_in_a_row, player.faults, player.forfeited)
    try:
        detail = f"no move within the move timeout of {play.tournament.move_timeout_ms} ms"
        play.record(seat, engine.fallback_action(play.state), timeout * 1000, "timeout", detail)
        play.flush()
    except leases.LeaseLost:
        # the bot's move arrived just after the deadline and was accepted: it stands, and the timeout never was
        reload(play)
        player.faults_in_a_row, player.faults, player.forfeited = counted
        player.count(None)


def check_health(session: Session, bot: SeatBot, connection: BotConnection, interval: float) -> bool:
    """Ask the bot's info route for a nonce when its last check is older than ``interval`` seconds, and count the
    pass or failure (``scheduled.note_check``: the third failure in a row excludes the bot, the second pass includes
    it again). Whether the bot is excluded now."""
    checked = bot.checked_at
    if checked is not None and (now() - checked.replace(tzinfo=checked.tzinfo or UTC)).total_seconds() < interval:
        return bot.excluded
    nonce = secrets.token_hex(16)
    reply = connection.call("info", {"type": "info", "nonce": nonce})
    passed = reply.fault is None and reply.body is not None and reply.body.get("nonce") == nonce
    with writing(session):
        excluded = scheduled.note_check(session, bot.id, passed, now())
        session.commit()
    return excluded


def outcome(play: Play) -> dict[str, Any]:
    """Final ranks (1 best): the engine's among the seats still playing, every forfeiting seat tied last
    (:func:`engine.records.final_result`, the rule a game record is checked by), with each seat's faults."""
    forfeited = [seat for seat, player in enumerate(play.seats) if player.forfeited]
    return {
        **final_result(engine.result(play.state), len(play.seats), forfeited),
        "faults": [player.faults for player in play.seats],
        "moves": play.ply,  # saved and pending: the last batch is saved after this
    }


KEPT = keepalive.Kept()
"""This process's connections to push bots, kept from one game of a bot to the next."""
NOTIFIER_THREADS = ThreadPoolExecutor(4, thread_name_prefix="sorry-arena-notify")
FAREWELL_THREADS = ThreadPoolExecutor(8, thread_name_prefix="sorry-arena-end")
"""The ``end`` requests: sent once the result is saved, while the game's slot goes to the next game (a pool of its
own, so that a bot slow to take its ``end`` never delays another game's ``start``)."""


def notify_bots(play: Play, route: str, request: Callable[[int], dict[str, Any]]) -> None:
    """Send every push bot its seat's ``request`` (``start``), all at once, and wait for their answers (which do
    not matter, nor do their faults)."""
    calls = [
        NOTIFIER_THREADS.submit(player.connection.call, route, request(seat))
        for seat, player in enumerate(play.seats)
        if player.connection is not None
    ]
    for call in calls:
        call.result()


def farewell(connection: BotConnection, payload: dict[str, Any]) -> None:
    try:
        connection.call("end", payload)
    finally:
        KEPT.give_back(connection)


def send_ends(play: Play, request: Callable[[int], dict[str, Any]]) -> None:
    """Send every push bot its seat's ``end`` ``request`` without waiting: each connection is handed over, and
    kept for the bot's next game after its call (:data:`KEPT`)."""
    for seat, player in enumerate(play.seats):
        if player.connection is not None:
            FAREWELL_THREADS.submit(farewell, player.connection, request(seat))
            player.connection = None


def play_scheduled(
    session: Session,
    scheduled_id: int,
    settings: RunnerSettings,
    notifier: Notifier,
    heartbeat: Heartbeat,
    stalls: Stalls,
) -> str:
    """Play (or resume, or find done) one scheduled game, its lease kept by ``heartbeat`` meanwhile, its bots'
    answers told to ``stalls``. Returns what
    happened: ``finished`` (this call wrote the result), ``done`` (it was already), ``busy`` (another worker holds
    it), ``missing``, ``stopped`` (this worker stops: the game was saved and its lease given back), ``cancelled``
    (its tournament was cancelled, before or while it played: it stopped at its next step, writing nothing more).
    Raises ``LeaseLost`` when another worker took the game over while this one played it.

    A game is read (with its tournament and its bots) before its lease is taken; a game never started has its
    bots' health checked (when due), then its lease taken and its game created in one transaction."""
    found = scheduled.read(session, scheduled_id)
    if found is None:
        return "missing"
    if found.status in ("done", "cancelled"):
        session.rollback()
        return found.status
    seats = seat_states(session, found, settings)
    try:
        excluded = [False] * len(seats)
        if found.game_id is None:  # its bots' health, checked before the game is created (when due)
            for number, player in enumerate(seats):
                if player.bot is not None and player.connection is not None:
                    excluded[number] = check_health(
                        session, player.bot, player.connection, settings.health_interval
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
        if not started.resumed:  # an excluded bot forfeits the game from its start
            for player, out in zip(seats, excluded, strict=True):
                player.forfeited = out
        holding = heartbeat.hold(scheduled_id)
        try:
            return play_leased(session, found, started, settings, seats, notifier, holding, stalls)
        except leases.Cancelled:
            session.rollback()
            return "cancelled"
        except Stopping:
            session.rollback()
            with writing(session):
                leases.release(session, scheduled_id, settings.worker)
            return "stopped"
        finally:
            heartbeat.release(holding)
    finally:
        for player in seats:
            if player.connection is not None:
                KEPT.give_back(player.connection)


class Started(NamedTuple):
    """The game of a scheduled game whose lease was just taken: its id; its engine state when it is known without
    a read (``None``: read it, and the ply, from the game log); whether it was started before (a resumed game)."""

    game_id: int
    state: Any
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


def seat_state(
    tournament: TournamentSettings,
    bot_id: int,
    bots: dict[int, SeatBot],
    person: tuple[int, str] | None,
    settings: RunnerSettings,
) -> SeatState:
    """The seat of ``bot_id`` (one of ``bots``): the bot, with a connection if it is a push bot; or, at a
    challenge's :data:`HUMAN` seat, the tournament owner's own account (``person``: its id and name), played like a
    pull bot's seat."""
    if bot_id == HUMAN:
        assert person is not None
        return SeatState(None, None, *person)
    bot = bots[bot_id]
    connection = None
    if bot.url is not None:
        connection = KEPT.take(bot.url, bot.secret, settings.allow, tournament.move_timeout_ms / 1000)
    return SeatState(bot, connection, bot.player_id, bot.name)


def seat_states(session: Session, found: ScheduledGame, settings: RunnerSettings) -> list[SeatState]:
    """The seats of a game, in seat order (:func:`seat_state`): its bots read in one statement."""
    tournament = found.tournament
    bots = scheduled.seat_bots(session, [bot_id for bot_id in found.bot_ids if bot_id != HUMAN])
    person = None
    if HUMAN in found.bot_ids:
        person = (tournament.owner_id, scheduled.name_of(session, tournament.owner_id))
    return [seat_state(tournament, bot_id, bots, person, settings) for bot_id in found.bot_ids]


def play_leased(
    session: Session,
    found: ScheduledGame,
    started: Started,
    settings: RunnerSettings,
    seats: list[SeatState],
    notifier: Notifier,
    holding: Holding,
    stalls: Stalls,
) -> str:
    """:func:`play_scheduled` once the lease is taken and the game exists."""
    tournament, game_id = found.tournament, started.game_id
    state, ply = started.state, 0
    if state is None:
        stored = gamelog.position(session, game_id)
        assert stored is not None
        state, ply = gamelog.decode_state(stored.state), stored.ply
    play = Play(
        session,
        found,
        game_id,
        state,
        Saved(ply),
        seats,
        settings,
        notifier,
        holding,
        stalls,
    )
    if started.resumed:  # recount the faults of its saved moves
        for seat, fault in gamelog.faults(session, game_id):
            play.seats[seat].count(fault)
    names = [seat.name for seat in play.seats]
    notify_bots(
        play,
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
    return play_to_the_end(play)


def play_to_the_end(play: Play) -> str:
    """Ask for every decision until the game ends, then store its last moves, its end and its result in one
    transaction, and refresh the standings."""
    session, tournament, scheduled_game = play.session, play.tournament, play.scheduled
    try:
        while not play.finished():
            play.holding.check()
            decision = engine.decision(play.state)
            assert decision is not None
            player = play.seats[decision.seat]
            if player.forfeited:
                play.record(decision.seat, engine.fallback_action(play.state), None, "forfeit")
            elif player.connection is not None:
                ask_push_bot(play, decision.seat, decision.kind, player.connection)
            else:
                ask_pull_bot(play, decision.seat)
    except Stopping:
        session.rollback()
        with writing(session):
            play.write_pending()  # what was played stands: another worker goes on from there
            session.commit()
        raise
    final = outcome(play)
    result = {"ranks": final["ranks"], "reason": final["reason"], "forfeited": final["forfeited"]}
    with writing(session):
        play.write_pending(ending=result)
        written = results.finish(
            session, tournament, scheduled_game.id, scheduled_game.bot_ids, play.game_id, final
        )
        session.commit()
    if standings.refresh(session, tournament.id, tournament.game, tournament.variant, tournament.rated):
        with writing(session):
            results.complete(session, tournament.id, tournament.games_total)
    session.rollback()  # the standings' reads end here (a refit committed its own writes)
    play.notifier.publish(play.game_id, play.saved.ply)
    send_ends(play, lambda seat: moves.end_request(play.game_id, seat, result, seat in final["forfeited"]))
    return "finished" if written else "done"
