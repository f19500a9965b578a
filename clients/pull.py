"""Pull mode: play your bot's ``choose`` function through the sorry-arena REST API (standard library only).

A pull bot needs no open port: it long-polls its decisions inbox and posts its moves with its own token (the one
shown once when the bot was registered without a ``url``)::

    from clients.pull import PullClient

    def choose(request: dict) -> str:
        return request["actions"][0]["id"]

    PullClient(choose, "http://127.0.0.1:8000", token="sa_...").run()

The loop: ``GET /api/v1/decisions?wait=30`` answers every game where the bot must decide now; each one goes to a
small pool of threads (``threads``, default 8), so that the decisions of several games are answered at once, each
within its own deadline, and one never waits on another; a game is in one thread's hands at a time, and no
decision is answered twice. There ``choose`` gets the same request a push bot's ``/move`` gets
(docs/bot-protocol.md), and its answer is posted to ``POST /api/v1/games/{id}/actions`` with the ply it answers
(and ``"debug"``: the text ``choose`` may set as ``request["debug"]``, shown to the bot's owner with the move, as
in push mode). When the reply says the bot decides again (a 2 drawn: draw again), it carries the next legal
actions, and the same thread answers at once without polling. ``choose`` must therefore be safe to call from
several threads at once (a plain function of its request is). A decision whose deadline passed before a thread was
free is left to the service's fallback and logged; a move refused because it came after its deadline is logged at
the default level with how late it came (``game 12 ply 40: late by 230 ms ...``).

The run's first poll answers at once; when it shows the token in no game, the client asks the service whose token
it is (``GET /api/v1/players/me``): an account's token that owns bots is a fatal error (a pull bot plays with its
own token, shown when it was registered: the account's sees none of the bot's games), a person's account without
bots a warning (it plays the games that account sits in itself).

What the request holds in pull mode, as against push mode: the same keys, and

- ``tournament_id`` is ``None``: the games API does not say which tournament a game belongs to;
- ``deadline_ms`` is the time left until the decision's ``deadline`` that the service sends in a tournament game
  (whole milliseconds, at least 1), reckoned when ``choose`` is called, against the service's clock
  (:class:`ServiceClock`); for a decision without a deadline (outside tournaments) it is the client's
  ``deadline_ms`` (default 1000, the tournaments' default ``move_timeout_ms``);
- ``last_latency_ms`` is measured here, from the moment the decision reached the client to the moment the move
  was accepted (``None`` for the bot's first move of a game); the service's own measure also counts the poll.

Errors: a 409 (the game moved on: the deadline passed, or it is over) is logged and the inbox polled again; a
network error, a 5xx or a 429 is retried after a growing pause (0.5 s doubling up to 15 s) with a log line (a
move's POST that failed so is tried again when the inbox lists its decision again); a 401 (a wrong token) raises
:class:`Unauthorized`, and an answer that is not the service's raises :class:`PullError`. The HTTP side is
``clients/serviceapi.py``.

When ``choose`` raises or returns an id that was not offered, the error is logged and **nothing is posted** for
that decision, as a push bot's 500 would be: in a tournament the service plays the game's seeded fallback at the
deadline and records a fault (three in a row forfeit the game). The client never guesses a move for your bot, so
that a bug shows as a fault rather than as a weak move. Outside tournaments a game has no deadline: it waits.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from clients.push import DEBUG_CHARS
from clients.serviceapi import API, Api, PullError, Retry, ServiceClock, Unauthorized, message_of

__all__ = ["PullClient", "PullError", "Retry", "ServiceClock", "Stats", "Unauthorized", "play"]

Choose = Callable[[dict[str, Any]], str]
DEFAULT_DEADLINE_MS = 1000
DEFAULT_THREADS = 8
"""Decisions answered at once (games a bot plays at the same time beyond it wait for a free thread)."""
MAX_THREADS = 256
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 15.0
IDLE_PAUSE_S = 0.25
"""The inbox answers at once while it lists a decision: when every one listed is being answered, or was answered
(or skipped), wait this long (or until a thread is done with its decision) before asking again, instead of
spinning until the service's deadline resolves it. Likewise between empty answers when ``wait`` is (nearly) 0."""
OVER_KEPT = 1024
"""Games seen to end that the client remembers, so as not to answer their last decisions again."""
CLOSE_WAIT_S = 10.0
"""At the end of a run, how long the decisions being answered are waited for (``choose`` may hang: the threads are
daemons, and do not keep the program alive)."""

log = logging.getLogger(__name__)


@dataclass
class Stats:
    """What a run did."""

    moves: int = 0
    """Moves the service accepted."""
    games: int = 0
    """Games seen to end after the bot moved in them."""
    conflicts: int = 0
    """409s: the game had moved on (too late, or over)."""
    skipped: int = 0
    """Decisions left unanswered because ``choose`` raised or returned an id that was not offered."""
    retries: int = 0
    """Network errors, 5xx and 429 answers, each followed by a pause."""
    late: int = 0
    """Decisions answered (or reached) after their deadline: the service played its fallback (among the
    ``conflicts`` when a move was posted)."""


@dataclass
class Asked:
    """A decision to answer: the request ``choose`` gets, and its deadline on the service's clock (seconds since
    the epoch; ``None``: no time limit)."""

    request: dict[str, Any]
    due: float | None


class PullClient:
    """Plays every decision of the bot's games with ``choose`` until stopped (see the module docstring)."""

    def __init__(
        self,
        choose: Choose,
        url: str,
        token: str,
        *,
        wait: float = 30.0,
        limit: int = 50,
        deadline_ms: int | None = DEFAULT_DEADLINE_MS,
        name: str = "bot",
        threads: int = DEFAULT_THREADS,
    ) -> None:
        if not 0 <= wait <= 30:
            raise ValueError(f"wait must be from 0 to 30 seconds (the service's longest poll), not {wait}")
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be from 1 to {MAX_THREADS}, not {threads}")
        self.choose = choose
        self.api = Api(url, token, timeout=wait + 15.0)
        """The poll's connection (each thread that answers decisions has its own, on the same clock)."""
        self.wait = wait
        self.limit = limit
        self.deadline_ms = deadline_ms
        self.name = name
        self.threads = threads
        self.stats = Stats()
        self._lock = threading.Lock()
        """Guards the stats and the dicts below, shared by the poll and the threads."""
        self._answered: dict[int, int] = {}
        """Game id -> the last ply answered (moved, refused or skipped): the inbox may list it again meanwhile."""
        self._in_hand: set[int] = set()
        """Games whose decision a thread is answering (or is queued for one)."""
        self._over: dict[int, None] = {}
        """The games seen to end lately (the last :data:`OVER_KEPT`, oldest first): an inbox read before a game's
        last move, looked at after it, still lists its decision, which must not be answered again."""
        self._latency: dict[int, float] = {}
        """Game id -> the bot's last latency there, in ms (games the bot moved in and not yet seen to end)."""
        self._failures = 0
        self._polled = False
        """Whether a poll has answered: the first one asks for no wait, to say at once what the token is."""
        self._local = threading.local()
        self._apis: list[Api] = []
        self._done = threading.Event()
        """Set by a thread once it is done with a decision: the poll looks again at once."""
        self._fatal: PullError | None = None
        """A fatal error met by a thread (a 401 on a move), raised by the poll's loop."""

    # --- the loop ------------------------------------------------------------------------------------------------

    def run(
        self, stop: threading.Event | None = None, *, max_games: int | None = None, until_idle: bool = False
    ) -> Stats:
        """Play until ``stop`` is set (checked between requests: a long poll ends within ``wait`` seconds), until
        ``max_games`` games the bot moved in have ended, or, with ``until_idle``, until the bot has had a decision
        and then sits in no active game. Raises :class:`PullError` (and :class:`Unauthorized`) when it cannot go on."""
        stop = stop or threading.Event()
        work: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        pool = [
            threading.Thread(target=self._answer_from, args=(work,), name=f"{self.name}-{n}", daemon=True)
            for n in range(self.threads)
        ]
        for thread in pool:
            thread.start()
        identified = False
        try:
            while not stop.is_set():
                if self._fatal is not None:
                    raise self._fatal
                if max_games is not None and self.stats.games >= max_games:
                    break
                self._done.clear()
                try:
                    inbox = self.poll()
                    if not identified:  # the first answer: a token in no game may be the wrong one
                        identified = True
                        if int(inbox["games"]) == 0:
                            self.identify()
                    with self._lock:
                        fresh = [
                            decision
                            for decision in inbox["decisions"]
                            if decision["game_id"] not in self._in_hand
                            and decision["game_id"] not in self._over
                            and self._answered.get(decision["game_id"], -1) < decision["ply"]
                        ]
                        self._in_hand.update(decision["game_id"] for decision in fresh)
                        busy = bool(self._in_hand)
                    for decision in fresh:
                        work.put(decision)
                    self.count_ended(int(inbox["games"]), {d["game_id"] for d in inbox["decisions"]})
                    if until_idle and inbox["games"] == 0 and not busy and self._answered_any():
                        break
                    self._failures = 0
                except Retry as problem:
                    self.pause(stop, problem)
                    continue
                if not fresh and (inbox["decisions"] or busy or self.wait < IDLE_PAUSE_S):
                    self._done.wait(IDLE_PAUSE_S)  # nothing new, and the inbox answered at once: do not spin
        finally:
            for _ in pool:
                work.put(None)
            ends = time.monotonic() + CLOSE_WAIT_S
            for thread in pool:
                thread.join(max(0.0, ends - time.monotonic()))
            self.api.close()
            with self._lock:
                for api in self._apis:
                    api.close()
        return self.stats

    def _answered_any(self) -> bool:
        """Whether the bot has answered (or tried to answer) a decision since the run began."""
        return self.stats.moves + self.stats.conflicts + self.stats.skipped + self.stats.late > 0

    def poll(self) -> dict[str, Any]:
        """The inbox: every game where the bot must decide now (long-polling up to ``wait`` seconds; the run's
        first poll does not wait)."""
        query = f"?wait={self.wait if self._polled else 0:g}&limit={self.limit}"
        status, reply = self.api.call("GET", f"{API}/decisions{query}")
        self.check(status, reply, "GET /decisions")
        if status != 200 or not isinstance(reply, dict) or not isinstance(reply.get("decisions"), list):
            raise PullError(
                f"{self.api.url}{API}/decisions answered {status} {message_of(reply)!r}: "
                "is the URL the sorry-arena service's base URL (e.g. http://127.0.0.1:8000)?"
            )
        self._polled = True
        return reply

    def identify(self) -> None:
        """Say at once when the token is not a bot's (``GET /players/me``): an account's that owns bots is a
        :class:`PullError` (the bot's games are not the account's), a person's without bots a warning. A service
        that cannot say (an older one) is taken at its word."""
        status, reply = self.api.call("GET", f"{API}/players/me")
        self.check(status, reply, "GET /players/me")
        if status != 200 or not isinstance(reply, dict) or "bot_id" not in reply:
            log.debug("GET %s/players/me answered %s: the token's kind is not known", API, status)
            return
        if reply["bot_id"] is not None:
            log.debug("playing as bot %s (%s)", reply["bot_id"], reply.get("name"))
            return
        owned = reply.get("owned_bots") or 0
        if owned:
            raise PullError(
                f"this is the token of the account {reply.get('name')!r} (the owner of {owned} bot"
                f"{'s' if owned != 1 else ''}), not a bot's: it sees none of its bots' games. Use the bot's own "
                "token, shown once when the bot was registered (POST /api/v1/bots without a url)"
            )
        log.warning(
            "this token is the account %r's, not a bot's: the client plays only the games that account sits in "
            "itself (a pull bot's token is shown when the bot is registered)",
            reply.get("name"),
        )

    def check(self, status: int, reply: Any, what: str) -> None:
        """Raise for the answers that are not about one move: 401 (fatal), 429 and 5xx (retry)."""
        if status == 401:
            raise Unauthorized(
                f"the service refused the token ({what}: 401 {message_of(reply)}): use the token shown when the "
                "bot was registered (POST /api/v1/bots without a url)"
            )
        if status == 429 or status >= 500:
            raise Retry(f"{what}: the service answered {status} ({message_of(reply)})")

    # --- the threads ----------------------------------------------------------------------------------------------

    def _answer_from(self, work: queue.SimpleQueue[dict[str, Any] | None]) -> None:
        """A thread of the pool: answers the decisions it takes from ``work`` until it takes ``None``."""
        while (decision := work.get()) is not None:
            game_id = decision["game_id"]
            try:
                self.play(decision)
            except Retry as problem:  # the inbox lists the decision again: it is tried again from there
                with self._lock:
                    self.stats.retries += 1
                log.warning("game %s: %s (answering it again when the inbox lists it)", game_id, problem)
            except PullError as fatal:
                self._fatal = fatal
            except Exception:
                log.exception("game %s: the client failed on a decision", game_id)
            finally:
                with self._lock:
                    self._in_hand.discard(game_id)
                self._done.set()

    def connection(self) -> Api:
        """This thread's own connection to the service (made on first use; closed at the end of the run)."""
        api: Api | None = getattr(self._local, "api", None)
        if api is None:
            api = Api(self.api.url, self.api.token, timeout=30.0 + 15.0, clock=self.api.clock)
            self._local.api = api
            with self._lock:
                self._apis.append(api)
        return api

    def play(self, decision: dict[str, Any]) -> None:
        """Answer one decision from the inbox, then each decision the move's reply brings at once."""
        game_id, seat = int(decision["game_id"]), int(decision["seat"])
        asked: Asked | None = self.request(
            game_id,
            seat,
            int(decision["ply"]),
            decision["decision"]["kind"],
            decision["view"],
            decision["actions"],
            decision.get("deadline"),
        )
        while asked is not None:
            asked = self.move(asked)

    def request(
        self,
        game_id: int,
        seat: int,
        ply: int,
        kind: str,
        view: dict[str, Any],
        actions: list[dict[str, Any]],
        deadline: str | None = None,
    ) -> Asked:
        """The request ``choose`` gets (the keys of the push protocol's ``move`` request), with its deadline.
        ``deadline``: the decision's, as the service sent it (``None``: no time limit)."""
        due = self.deadline_of(deadline)
        with self._lock:
            last_latency = self._latency.get(game_id)
        request = {
            "type": "move",
            "game_id": game_id,
            "tournament_id": None,
            "seat": seat,
            "ply": ply,
            "decision": kind,
            "view": view,
            "actions": [{key: value for key, value in action.items() if key != "text"} for action in actions],
            "deadline_ms": self.deadline_ms if due is None else max(1, int((due - self.api.clock.now()) * 1000)),
            "last_latency_ms": last_latency,
        }
        return Asked(request, due)

    def deadline_of(self, deadline: str | None) -> float | None:
        """``deadline`` (ISO 8601, as the service sends it) in seconds since the epoch; ``None`` without one (or
        when it is not a time)."""
        if deadline is None:
            return None
        try:
            moment = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
        except (AttributeError, ValueError):
            log.warning("the service sent a deadline that is not a time: %r", deadline)
            return None
        return None if moment.tzinfo is None else moment.timestamp()

    def move(self, asked: Asked) -> Asked | None:
        """Ask ``choose``, post its action; the next decision when the bot decides again at once, else ``None``."""
        request, due = asked.request, asked.due
        game_id, ply = request["game_id"], request["ply"]
        if due is not None and self.api.clock.now() > due:  # it waited for a thread past its deadline
            late_ms = (self.api.clock.now() - due) * 1000
            with self._lock:
                self.stats.late += 1
                self._answered[game_id] = ply
            log.warning(
                "game %s ply %s: late by %.0f ms before a thread was free to answer it (all %d busy: more "
                "--threads?): the service plays its fallback",
                game_id,
                ply,
                late_ms,
                self.threads,
            )
            return None
        started = time.monotonic()
        action = self.decide(request)
        if action is None:
            with self._lock:
                self.stats.skipped += 1
                self._answered[game_id] = ply
            return None
        path = f"{API}/games/{game_id}/actions"
        body: dict[str, Any] = {"action": action, "expected_ply": ply}
        debug = request.get("debug")  # choose() may leave a debug text for its owner in the request
        if isinstance(debug, str) and debug:
            body["debug"] = debug[:DEBUG_CHARS]
        posted = self.api.clock.now()
        status, reply = self.connection().call("POST", path, body, timeout=30.0)
        self.check(status, reply, f"POST {path}")
        with self._lock:
            self._answered[game_id] = ply
        if status == 409:
            self.refused(request, action, reply, due, posted, started)
            return None
        if status != 200 or not isinstance(reply, dict):
            log.error("game %s ply %s: %s was refused: %s %s", game_id, ply, action, status, message_of(reply))
            return None
        with self._lock:
            self.stats.moves += 1
            self._latency[game_id] = round((time.monotonic() - started) * 1000, 1)
        log.debug("game %s ply %s: %s", game_id, ply, action)
        if reply.get("status") == "over":
            self.ended(game_id)
            return None
        if not reply.get("your_decision") or not reply.get("actions"):
            return None
        return self.request(
            game_id,
            request["seat"],
            int(reply["ply"]),
            reply["decision"]["kind"],
            reply["view"],
            reply["actions"],
            reply.get("deadline"),
        )

    def refused(
        self, request: dict[str, Any], action: str, reply: Any, due: float | None, posted: float, started: float
    ) -> None:
        """A 409 for a move: logged, with how late it came when it came after its deadline (at the default level:
        a fault the bot's owner sees)."""
        game_id, ply = request["game_id"], request["ply"]
        with self._lock:
            self.stats.conflicts += 1
            if due is not None and posted > due:
                self.stats.late += 1
        if due is not None and posted > due:
            log.warning(
                "game %s ply %s: late by %.0f ms (choose() took %.0f ms of the %s ms it had): %s was refused, "
                "the service played its fallback (a timeout fault): %s",
                game_id,
                ply,
                (posted - due) * 1000,
                (time.monotonic() - started) * 1000,
                request["deadline_ms"],
                action,
                message_of(reply),
            )
            return
        log.info("game %s ply %s: %s: %s (polling again)", game_id, ply, action, message_of(reply))

    def decide(self, request: dict[str, Any]) -> str | None:
        """``choose``'s action id, or ``None`` (logged) when it raised or returned an id that was not offered."""
        try:
            action = self.choose(request)
        except Exception:
            log.exception(
                "choose() raised on game %s ply %s: no move posted (the service plays a fallback at the deadline "
                "and records a fault)",
                request["game_id"],
                request["ply"],
            )
            return None
        if not isinstance(action, str) or not any(offered["id"] == action for offered in request["actions"]):
            log.error(
                "choose() returned %r on game %s ply %s, not one of the %d offered action ids: no move posted",
                action,
                request["game_id"],
                request["ply"],
                len(request["actions"]),
            )
            return None
        return action

    # --- games that end -------------------------------------------------------------------------------------------

    def ended(self, game_id: int) -> None:
        with self._lock:
            if game_id not in self._latency:  # seen to end already (by the poll and a thread both)
                return
            self.stats.games += 1
            self._latency.pop(game_id, None)
            self._answered.pop(game_id, None)
            self._over[game_id] = None
            if len(self._over) > OVER_KEPT:
                del self._over[next(iter(self._over))]
            games, moves = self.stats.games, self.stats.moves
        log.info("game %s over (%d games, %d moves so far)", game_id, games, moves)

    def count_ended(self, active: int, listed: set[int]) -> None:
        """Notice the games the bot moved in that have ended since (by an opponent's move, or a forfeit). The inbox
        counts the bot's active games, and lists some of them: when the games known to this client outnumber the
        active ones, some that are not listed have ended, and the client asks which (``GET /games/{id}``)."""
        with self._lock:
            playing = set(self._latency) - self._in_hand  # a thread's game: the thread sees its end
        if len(playing | listed) <= active:
            return
        for game_id in sorted(playing - listed):
            if active == 0:
                self.ended(game_id)
                continue
            status, reply = self.api.call("GET", f"{API}/games/{game_id}")
            self.check(status, reply, f"GET {API}/games/{game_id}")
            if status == 404 or (isinstance(reply, dict) and reply.get("status") == "over"):
                self.ended(game_id)

    # --- failures -------------------------------------------------------------------------------------------------

    def pause(self, stop: threading.Event, problem: Retry) -> None:
        self._failures += 1
        with self._lock:
            self.stats.retries += 1
        delay = min(RETRY_MAX_S, RETRY_FIRST_S * 2 ** (self._failures - 1))
        log.warning("%s; retrying in %g s", problem, delay)
        stop.wait(delay)


def play(
    choose: Choose,
    url: str,
    token: str,
    stop: threading.Event | None = None,
    *,
    max_games: int | None = None,
    until_idle: bool = False,
    **options: Any,
) -> Stats:
    """Run a :class:`PullClient` for ``choose`` (``options``: ``wait``, ``limit``, ``deadline_ms``, ``name``,
    ``threads``)."""
    return PullClient(choose, url, token, **options).run(stop, max_games=max_games, until_idle=until_idle)
