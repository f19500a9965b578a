"""A scheduled game being played by this worker, as the game loop sees it (:class:`engine.gameloop.Table`): its
state, its seats asked, its moves kept and saved.

A push bot is POSTed the seat's view and legal actions and answers an action id; a pull bot (or a challenge's person)
plays through the games API with its own token, and the game waits for its move until the deadline. A fault
(timeout, connection error, non-2xx, unparsable or oversized body, redirect, refused address, illegal action) is
answered by the loop with the game's seeded fallback action, recorded on the move with the latency. Moves are saved
in small batches, and always before a pull bot must see the position; a batch the database refuses for a while is
kept and saved again once it takes writes (``tournament.play.saving``), so that no bot is asked a ply twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from botlink import moves
from botlink.calls import BotConnection
from botlink.protocols import DEFAULT_OLD_PROTOCOL_DAYS
from engine.gameloop import Answer
from engine.records import final_result
from runtime import metrics
from store import gamelog
from store.models import Game
from tournament.play import leases, saving, voids
from tournament.play.heartbeat import Holding
from tournament.play.scheduled import ScheduledGame, TournamentSettings
from tournament.play.seats import SeatState
from tournament.play.stalls import Stalls
from tournament.play.writes import writing

log = logging.getLogger(__name__)
MOVES = metrics.MOVES
BOT_CALL_SECONDS = metrics.BOT_CALL_SECONDS


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
    old_protocol_days: int = DEFAULT_OLD_PROTOCOL_DAYS
    """How long after ``botlink.protocols.INTRODUCED`` a bot speaking protocol v1 still passes its health checks
    (``SORRY_ARENA_OLD_PROTOCOL_DAYS``)."""


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

    def ask(self, seat: int, kind: str) -> Answer | None:
        """The game loop's question to ``seat``: a push bot is called; a pull bot's (or a person's) move is waited
        for (``None`` once it moved through the games API)."""
        self.holding.check()
        connection = self.seats[seat].connection
        if connection is not None:
            return self.ask_push_bot(seat, kind, connection)
        return self.wait_for_pull_move(seat)

    def moved(self, seat: int, action: str, answer: Answer) -> bool:
        """Keep the move to save it with the next batch (at once after a pull bot's timeout: its late move may have
        landed meanwhile, and then stands instead of the fallback). A timeout that forfeits the game for the last
        seat but one ends the game in the same guarded write (:meth:`forfeit_ending`): a late move of any seat then
        lands before it (and stands) or finds the game over, never after its last ply."""
        ending = self.forfeit_ending(seat, answer)
        self.pending.append(
            gamelog.Move(self.ply, seat, action, answer.latency_ms, answer.fault, answer.detail, answer.debug)
        )
        MOVES.inc()
        if answer.fault == "timeout" and self.seats[seat].connection is None:
            try:
                self.flush(ending)
            except leases.LeaseLost:  # the move arrived just after the deadline and was accepted: it stands
                self.reload()
                return False
        elif len(self.pending) >= self.settings.batch_moves or (
            time.monotonic() - self.last_save >= self.settings.batch_seconds
        ):
            self.flush()
        return True

    def move_request(self, seat: int, kind: str, actions: list[Any]) -> dict[str, Any]:
        return moves.move_request(
            self.state,
            seat,
            kind,
            actions,
            game_id=self.game_id,
            tournament_id=self.tournament.id,
            ply=self.ply,
            deadline_ms=self.seats[seat].move_timeout_ms(self.tournament),
            last_latency_ms=self.seats[seat].last_latency_ms,
        )

    def ask_push_bot(self, seat: int, kind: str, connection: BotConnection) -> Answer:
        actions = engine.legal_actions(self.state, seat)
        answer = moves.ask(connection, self.move_request(seat, kind, actions), actions)
        player = self.seats[seat]
        if answer.latency_ms is not None:
            BOT_CALL_SECONDS.observe(answer.latency_ms / 1000)
        if answer.fault is not None:
            metrics.fault(answer.fault)
            if player.faults_in_a_row == 0 and not player.forfeited:  # a streak begins: one line for it
                log.info(
                    "game %s seat %s: bot %s faulted (%s) at ply %s",
                    self.game_id,
                    seat,
                    player.bot.id if player.bot is not None else "-",
                    answer.fault,
                    self.ply,
                )
        player.answered(self.stalls, answer.fault)
        self.seats[seat].last_latency_ms = answer.latency_ms
        return answer

    def wait_for_pull_move(self, seat: int) -> Answer | None:
        """Save what is pending, wake the seat's bot, and wait for its move until the deadline: ``None`` once it
        moved (the position it saved taken as this worker's own), else a ``timeout`` fault."""
        if self.pending:
            self.flush()
        else:
            self.notifier.publish(self.game_id, self.saved.ply)
        # and wake the bot's inbox (GET /decisions?wait=), which may be waiting since before this game existed
        self.notifier.publish_players([self.seats[seat].player_id], self.game_id)
        ply = self.saved.ply
        game_id = self.game_id

        def moved() -> bool:
            """Whether the bot moved; or the tournament was cancelled (the cancellation wakes this wait), which the
            ``holding.check`` after the wait raises."""
            current = self.session.scalar(select(Game.ply).where(Game.id == game_id))
            self.session.commit()
            if current is not None and current > ply:
                return True
            if leases.cancelled(self.session, self.scheduled.id):
                self.holding.cancelled.set()
                return True
            return False

        # The timer starts after the position was saved (just above, by the API's move that ``moved`` saw, or at the
        # game's creation), so the deadline the games API shows (save time + timeout) never ends after it.
        started = time.monotonic()
        timeout_ms = self.seats[seat].move_timeout_ms(self.tournament)
        timeout = timeout_ms / 1000
        moved_in_time = self.notifier.wait(game_id, moved, timeout)
        self.seats[seat].answered(self.stalls, None if moved_in_time else "timeout")
        self.holding.check()
        if not moved_in_time:
            detail = f"no move within the move timeout of {timeout_ms} ms"
            return Answer(None, timeout * 1000, "timeout", detail)
        latency = (time.monotonic() - started) * 1000
        with writing(self.session):
            gamelog.record_latency(self.session, game_id, ply, latency)
            self.session.commit()
        self.seats[seat].last_latency_ms = latency
        self.reload()
        return None

    def reload(self) -> None:
        """Take the position the games API saved (a pull bot moved) as this worker's own, dropping any move of its own
        not saved (a fallback whose save found the ply taken)."""
        stored = gamelog.position(self.session, self.game_id)
        self.session.commit()
        assert stored is not None
        self.state = gamelog.decode_state(stored.state)
        self.saved = Saved(stored.ply)
        self.pending.clear()

    def write_pending(self, ending: engine.Json | None = None) -> int:
        """Write the pending moves through the game log, in the session's transaction; with ``ending`` (the game's
        final result), end the game with it, in the same statement when moves are pending. The ply the game is at
        once the transaction commits: the caller marks the moves saved then (:meth:`stored`), so that a transaction
        the database refused leaves them pending, to be written again. ``LeaseLost`` if the game moved on without
        this worker (it stalled past its lease and another took over)."""
        if not self.pending:
            if ending is not None and not gamelog.finish(self.session, self.game_id, self.saved.ply, ending):
                self.lost()
            return self.saved.ply
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
        return write.new_ply

    def stored(self, ply: int) -> None:
        """The moves up to ``ply`` are committed: no longer pending."""
        del self.pending[: ply - self.saved.ply]
        self.saved = Saved(ply)

    def lost(self) -> NoReturn:
        """Undo the transaction and raise ``LeaseLost``: the game is not at the ply this worker saved last."""
        self.session.rollback()
        raise leases.LeaseLost(f"game {self.game_id} moved past ply {self.saved.ply} without this worker")

    def flush(self, ending: engine.Json | None = None) -> None:
        """Save the pending moves (with ``ending``, the game's end in the same write: :meth:`write_pending`),
        renewing the lease in the same transaction when a quarter of it has passed since this game's last renewal
        (the heartbeat renews it meanwhile, whatever the game does), and publish the new ply. One SQLite writer at a
        time in this process (``tournament.play.writes``). A database that fails meanwhile is waited for, the moves
        kept (``tournament.play.saving``): no bot is asked a ply again."""
        self.holding.check()
        renewed: list[float] = []  # when the try that landed renewed the lease

        def write() -> int:
            ply = self.write_pending(ending)
            moment = time.monotonic()  # asked at each try: a save that waited long renews the lease it lands with
            renewed.clear()
            if moment - self.last_renewal >= self.settings.lease_seconds / 4:
                leases.renew(self.session, self.scheduled.id, self.settings.worker, self.settings.lease_seconds)
                renewed.append(moment)
            return ply

        self.stored(saving.until_stored(self.session, self.holding, write, f"game {self.game_id}'s moves"))
        if renewed:
            self.last_renewal = renewed[0]
        self.last_save = time.monotonic()
        self.notifier.publish(self.game_id, self.saved.ply)

    def forfeit_ending(self, seat: int, answer: Answer) -> engine.Json | None:
        """The game's stored result when ``answer``, a fault of ``seat`` about to be applied, forfeits the game for
        the seat and leaves at most one seat playing (the game loop then stops: the game ends with this move), else
        ``None``. The same result the runner stores at the end (:meth:`ending`), the state then being this move's."""
        player = self.seats[seat]
        if answer.fault in (None, "forfeit") or player.forfeited:
            return None
        if player.faults_in_a_row + 1 < player.to_forfeit:
            return None
        forfeited = [number for number, other in enumerate(self.seats) if other.forfeited or number == seat]
        if len(self.seats) - len(forfeited) > 1:
            return None
        return self.ending(forfeited)

    def ending(self, forfeited: Sequence[int]) -> engine.Json:
        """The result stored with the game's end: its ranks (forfeits applied: :func:`engine.records.final_result`,
        the rule a game record is checked by), its reason and the seats that forfeited."""
        final = final_result(engine.result(self.state), len(self.seats), forfeited)
        return {"ranks": final["ranks"], "reason": final["reason"], "forfeited": final["forfeited"]}

    def outcome(self) -> dict[str, Any]:
        """Final ranks (1 best): the engine's among the seats still playing, every forfeiting seat tied last
        (:func:`engine.records.final_result`, the rule a game record is checked by), with each seat's faults (and
        the kind of its last), the game's void reason (``None``: it is rated, :mod:`tournament.play.voids`)."""
        forfeited = [seat for seat, player in enumerate(self.seats) if player.forfeited]
        return {
            **final_result(engine.result(self.state), len(self.seats), forfeited),
            "faults": [player.faults for player in self.seats],
            "last_faults": [player.last_fault for player in self.seats],
            "moves": self.ply,  # saved and pending: the last batch is saved after this
            "void_reason": voids.reason(self.seats),
        }
