"""Pull mode: play your bot's ``choose`` function through the sorry-arena REST API (standard library only).

A pull bot needs no open port: it long-polls its decisions inbox and posts its moves with its own token (the one
shown once when the bot was registered without a ``url``)::

    from clients.pull import PullClient

    def choose(request: dict) -> str:
        return request["actions"][0]["id"]

    PullClient(choose, "http://127.0.0.1:8000", token="sa_...").run()

The loop: ``GET /api/v1/decisions?wait=30`` answers every game where the bot must decide now; for each one
``choose`` gets the same request a push bot's ``/move`` gets (docs/bot-protocol.md), and its answer is posted to
``POST /api/v1/games/{id}/actions`` with the ply it answers (and ``"debug"``: the text ``choose`` may set as
``request["debug"]``, shown to the bot's owner with the move, as in push mode). When the reply says the bot
decides again (a 2 drawn: draw again), it carries the next legal actions, and the client answers at once without
polling.

What the request holds in pull mode, as against push mode: the same keys, and

- ``tournament_id`` is ``None``: the games API does not say which tournament a game belongs to;
- ``deadline_ms`` is the time left until the decision's ``deadline`` that the service sends in a tournament game
  (whole milliseconds, at least 1), reckoned when ``choose`` is called, against the service's clock
  (:class:`ServiceClock`); for a decision without a deadline (outside tournaments) it is the client's
  ``deadline_ms`` (default 1000, the tournaments' default ``move_timeout_ms``);
- ``last_latency_ms`` is measured here, from the moment the decision reached the client to the moment the move
  was accepted (``None`` for the bot's first move of a game); the service's own measure also counts the poll.

Errors: a 409 (the game moved on: the deadline passed, or it is over) is logged and the inbox polled again; a
network error, a 5xx or a 429 is retried after a growing pause (0.5 s doubling up to 15 s) with a log line; a 401
(a wrong token) raises :class:`Unauthorized`, and an answer that is not the service's raises :class:`PullError`.

When ``choose`` raises or returns an id that was not offered, the error is logged and **nothing is posted** for
that decision, as a push bot's 500 would be: in a tournament the service plays the game's seeded fallback at the
deadline and records a fault (three in a row forfeit the game). The client never guesses a move for your bot, so
that a bug shows as a fault rather than as a weak move. Outside tournaments a game has no deadline: it waits.
"""

from __future__ import annotations

import http.client
import json
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

from clients.push import DEBUG_CHARS

Choose = Callable[[dict[str, Any]], str]
API = "/api/v1"
DEFAULT_DEADLINE_MS = 1000
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 15.0
IDLE_PAUSE_S = 0.25
"""The inbox answers at once while it lists a decision: when every one listed was already answered (or skipped),
pause this long before asking again, instead of spinning until the service's deadline resolves it. Likewise
between empty answers when ``wait`` is (nearly) 0."""
MAX_REPLY_BYTES = 8 << 20

log = logging.getLogger(__name__)


class PullError(Exception):
    """A fatal error: the client cannot go on (wrong URL, wrong token)."""


class Unauthorized(PullError):
    """The service refused the token (401)."""


class Retry(Exception):
    """A passing failure (network error, 5xx, 429): try again after a pause."""


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


class ServiceClock:
    """The service's clock as the client can know it: the client's own clock, corrected only as far as the
    service's ``Date`` headers prove it wrong.

    A ``Date`` header counts whole seconds and was stamped between the request's sending and the answer's arrival,
    so each answer bounds the offset (service clock - client clock): ``date - received <= offset < date + 1 -
    sent``. The bounds of the answers so far are intersected (and start again from the latest answer when they
    contradict it: a clock was set). The offset used is 0 while the bounds allow it (clocks kept by NTP: the
    deadline is then as exact as they are), else the bound nearest 0: within a second at first, closer as answers
    come in."""

    def __init__(self) -> None:
        self.low = -math.inf
        self.high = math.inf

    def observe(self, date: str | None, sent: float, received: float) -> None:
        """Learn from one answer's ``Date`` header (``sent``, ``received``: the client's ``time.time()``)."""
        if not date:
            return
        try:
            stamped = parsedate_to_datetime(date).timestamp()
        except (TypeError, ValueError, OverflowError):
            return
        low, high = stamped - received, stamped + 1 - sent
        if low > self.high or high < self.low:
            self.low, self.high = low, high
        else:
            self.low, self.high = max(self.low, low), min(self.high, high)

    def offset(self) -> float:
        """Seconds to add to the client's clock to read the service's."""
        return min(max(0.0, self.low), self.high)

    def now(self) -> float:
        """The service's time now (seconds since the epoch)."""
        return time.time() + self.offset()


class Api:
    """One keep-alive HTTP/1.1 connection to the service, with the bot's token."""

    def __init__(self, url: str, token: str, timeout: float = 45.0) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"the service URL must be http(s)://host[:port][/path], not {url!r}")
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"the service URL must have no query, fragment or user, not {url!r}")
        _ = parts.port  # raises ValueError for a port that is not a number from 0 to 65535
        self.url = url.rstrip("/")
        self.scheme, self.netloc, self.prefix = parts.scheme, parts.netloc, parts.path.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.clock = ServiceClock()
        """The service's clock, learnt from its answers' ``Date`` headers."""
        self._connection: http.client.HTTPConnection | None = None

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self.netloc, timeout=timeout)
        elif self._connection.sock is not None:
            self._connection.sock.settimeout(timeout)
        self._connection.timeout = timeout
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> tuple[int, Any]:
        """The status and JSON body (``None`` if not JSON) of one request. A connection that the server closed
        while idle is reopened once at once; other network errors raise :class:`Retry`."""
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            reused = self._connection is not None and self._connection.sock is not None
            connection = self._connect(timeout or self.timeout)
            try:
                sent = time.time()
                connection.request(method, self.prefix + path, body=data, headers=headers)
                response = connection.getresponse()
                self.clock.observe(response.getheader("Date"), sent, time.time())
                raw = response.read(MAX_REPLY_BYTES + 1)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close()
                if reused and attempt == 0:
                    continue  # the server closed the idle keep-alive connection: a fresh one, at once
                raise Retry(f"cannot reach the service at {self.url}: {describe(error)}") from None
            except (OSError, http.client.HTTPException) as error:
                self.close()
                raise Retry(f"cannot reach the service at {self.url}: {describe(error)}") from None
            if response.will_close:
                self.close()
            try:
                reply = json.loads(raw) if len(raw) <= MAX_REPLY_BYTES else None
            except ValueError:
                reply = None
            return response.status, reply
        raise AssertionError("unreachable")


def describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def message_of(reply: Any) -> str:
    """The service's error message (errors share one shape: ``{"code", "status", "message"}``)."""
    if isinstance(reply, dict) and isinstance(reply.get("message"), str):
        return str(reply["message"])
    return "no message"


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
    ) -> None:
        if not 0 <= wait <= 30:
            raise ValueError(f"wait must be from 0 to 30 seconds (the service's longest poll), not {wait}")
        self.choose = choose
        self.api = Api(url, token, timeout=wait + 15.0)
        self.wait = wait
        self.limit = limit
        self.deadline_ms = deadline_ms
        self.name = name
        self.stats = Stats()
        self._answered: dict[int, int] = {}
        """Game id -> the last ply answered (moved, refused or skipped): the inbox may list it again meanwhile."""
        self._latency: dict[int, float] = {}
        """Game id -> the bot's last latency there, in ms (games the bot moved in and not yet seen to end)."""
        self._failures = 0

    # --- the loop ------------------------------------------------------------------------------------------------

    def run(
        self, stop: threading.Event | None = None, *, max_games: int | None = None, until_idle: bool = False
    ) -> Stats:
        """Play until ``stop`` is set (checked between requests: a long poll ends within ``wait`` seconds), until
        ``max_games`` games the bot moved in have ended, or, with ``until_idle``, until the bot has had a decision
        and then sits in no active game. Raises :class:`PullError` (and :class:`Unauthorized`) when it cannot go on."""
        stop = stop or threading.Event()
        try:
            while not stop.is_set():
                if max_games is not None and self.stats.games >= max_games:
                    break
                try:
                    inbox = self.poll()
                    fresh = [d for d in inbox["decisions"] if self._answered.get(d["game_id"], -1) < d["ply"]]
                    self.count_ended(int(inbox["games"]), {d["game_id"] for d in inbox["decisions"]})
                    if until_idle and inbox["games"] == 0 and self._answered_any():
                        break
                    for decision in fresh:
                        if stop.is_set():
                            break
                        self.play(decision)
                    self._failures = 0
                except Retry as problem:
                    self.pause(stop, problem)
                    continue
                if not fresh and (inbox["decisions"] or self.wait < IDLE_PAUSE_S):
                    stop.wait(IDLE_PAUSE_S)  # nothing new, and the inbox answered at once: do not spin
        finally:
            self.api.close()
        return self.stats

    def _answered_any(self) -> bool:
        """Whether the bot has answered (or tried to answer) a decision since the run began."""
        return self.stats.moves + self.stats.conflicts + self.stats.skipped > 0

    def poll(self) -> dict[str, Any]:
        """The inbox: every game where the bot must decide now (long-polling up to ``wait`` seconds)."""
        query = f"?wait={self.wait:g}&limit={self.limit}"
        status, reply = self.api.call("GET", f"{API}/decisions{query}")
        self.check(status, reply, "GET /decisions")
        if status != 200 or not isinstance(reply, dict) or not isinstance(reply.get("decisions"), list):
            raise PullError(
                f"{self.api.url}{API}/decisions answered {status} {message_of(reply)!r}: "
                "is the URL the sorry-arena service's base URL (e.g. http://127.0.0.1:8000)?"
            )
        return reply

    def check(self, status: int, reply: Any, what: str) -> None:
        """Raise for the answers that are not about one move: 401 (fatal), 429 and 5xx (retry)."""
        if status == 401:
            raise Unauthorized(
                f"the service refused the token ({what}: 401 {message_of(reply)}): use the token shown when the "
                "bot was registered (POST /api/v1/bots without a url)"
            )
        if status == 429 or status >= 500:
            raise Retry(f"{what}: the service answered {status} ({message_of(reply)})")

    def play(self, decision: dict[str, Any]) -> None:
        """Answer one decision from the inbox, then each decision the move's reply brings at once."""
        game_id, seat = int(decision["game_id"]), int(decision["seat"])
        request: dict[str, Any] | None = self.request(
            game_id,
            seat,
            int(decision["ply"]),
            decision["decision"]["kind"],
            decision["view"],
            decision["actions"],
            decision.get("deadline"),
        )
        while request is not None:
            request = self.move(request)

    def request(
        self,
        game_id: int,
        seat: int,
        ply: int,
        kind: str,
        view: dict[str, Any],
        actions: list[dict[str, Any]],
        deadline: str | None = None,
    ) -> dict[str, Any]:
        """The request ``choose`` gets: the keys of the push protocol's ``move`` request. ``deadline``: the
        decision's, as the service sent it (``None``: no time limit)."""
        return {
            "type": "move",
            "game_id": game_id,
            "tournament_id": None,
            "seat": seat,
            "ply": ply,
            "decision": kind,
            "view": view,
            "actions": [{key: value for key, value in action.items() if key != "text"} for action in actions],
            "deadline_ms": self.time_left_ms(deadline),
            "last_latency_ms": self._latency.get(game_id),
        }

    def time_left_ms(self, deadline: str | None) -> int | None:
        """Whole milliseconds from now until ``deadline`` (ISO 8601) on the service's clock, at least 1 (a
        ``deadline_ms`` of 0 would read as "none" to a bot that writes ``request["deadline_ms"] or 1000``); the
        client's ``deadline_ms`` when there is none (or it is not a time)."""
        if deadline is None:
            return self.deadline_ms
        try:
            moment = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
        except (AttributeError, ValueError):
            log.warning("the service sent a deadline that is not a time: %r", deadline)
            return self.deadline_ms
        if moment.tzinfo is None:
            return self.deadline_ms
        return max(1, int((moment.timestamp() - self.api.clock.now()) * 1000))

    def move(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """Ask ``choose``, post its action; the next request when the bot decides again at once, else ``None``."""
        game_id, ply = request["game_id"], request["ply"]
        started = time.monotonic()
        action = self.decide(request)
        if action is None:
            self.stats.skipped += 1
            self._answered[game_id] = ply
            return None
        path = f"{API}/games/{game_id}/actions"
        body: dict[str, Any] = {"action": action, "expected_ply": ply}
        debug = request.get("debug")  # choose() may leave a debug text for its owner in the request
        if isinstance(debug, str) and debug:
            body["debug"] = debug[:DEBUG_CHARS]
        status, reply = self.api.call("POST", path, body, timeout=30.0)
        self.check(status, reply, f"POST {path}")
        self._answered[game_id] = ply
        if status == 409:
            self.stats.conflicts += 1
            log.info("game %s ply %s: %s: %s (polling again)", game_id, ply, action, message_of(reply))
            return None
        if status != 200 or not isinstance(reply, dict):
            log.error("game %s ply %s: %s was refused: %s %s", game_id, ply, action, status, message_of(reply))
            return None
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
        self.stats.games += 1
        self._latency.pop(game_id, None)
        self._answered.pop(game_id, None)
        log.info("game %s over (%d games, %d moves so far)", game_id, self.stats.games, self.stats.moves)

    def count_ended(self, active: int, listed: set[int]) -> None:
        """Notice the games the bot moved in that have ended since (by an opponent's move, or a forfeit). The inbox
        counts the bot's active games, and lists some of them: when the games known to this client outnumber the
        active ones, some that are not listed have ended, and the client asks which (``GET /games/{id}``)."""
        playing = set(self._latency)
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
    """Run a :class:`PullClient` for ``choose`` (``options``: ``wait``, ``limit``, ``deadline_ms``, ``name``)."""
    return PullClient(choose, url, token, **options).run(stop, max_games=max_games, until_idle=until_idle)
