"""The bots of ``sorry-arena simulate``, from what ``--bots`` lists: an engine-level bot's name, a Python file that
defines ``choose(request)``, or the URL of a push bot.

- ``random``, ``greedy``, ``search``: :mod:`engine.bots`, called directly (the engine's own speed);
- ``./my_bot.py`` (a ``.py`` name or any path): the file is loaded with importlib from its path, its folder on
  ``sys.path`` while it loads (so that it may import its neighbours), and ``choose`` is called in-process with the
  request the service would send, as JSON gives it; the call is timed against the move timeout;
- ``http://...`` or ``https://...``: a push bot (docs/bot-protocol.md), called through ``botlink``'s
  :class:`~botlink.calls.BotConnection` like the workers call it: signed with the secret, bounded by the move
  timeout. Its ``info`` route is checked once, when it is loaded.

Anything wrong with a bot (no such file, a file that does not load or defines no ``choose``, a bad URL, a bot that
does not answer ``info``) is a :class:`BotError` whose message says what; the command makes it a usage error.
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from botlink import netguard
from botlink.calls import BotConnection
from botlink.moves import judged
from engine.bots import BOTS, Bot
from engine.gameloop import Answer

Choose = Callable[[dict[str, Any]], Any]
INFO_TIMEOUT_S = 5.0
"""The longest wait for a URL bot's ``info`` answer when it is loaded (a bot that is still starting up)."""


class BotError(ValueError):
    """A ``--bots`` entry that cannot play; the message says why."""


@dataclass(frozen=True)
class EngineBot:
    name: str
    bot: Bot
    kind: str = "engine"


@dataclass
class FileBot:
    name: str
    path: Path
    choose: Choose
    kind: str = "file"
    first_fault: str | None = None
    """The first fault of the run, in words (shown after the results)."""

    def ask(self, request: dict[str, Any], actions: Sequence[engine.Action], timeout_ms: int) -> Answer:
        """``choose``'s answer as the service would judge it: ``exception`` when it raised, ``timeout`` when it
        took longer than ``timeout_ms`` (measured around the call), ``illegal`` for anything but an offered id."""
        sent = json.loads(json.dumps(request))  # exactly what a bot gets over HTTP: JSON types, its own copy
        started = time.perf_counter()
        try:
            answer = self.choose(sent)
            fault, detail = None, ""
        except Exception as error:
            answer, fault = None, "exception"
            detail = f"{type(error).__name__}: {error} ({where(error, self.path)})"
        latency = round((time.perf_counter() - started) * 1000, 3)
        if fault is None and latency > timeout_ms:
            fault, detail = "timeout", f"answered in {latency:.0f} ms; the move timeout is {timeout_ms} ms"
        return judged(answer, latency, actions, fault, detail)


@dataclass
class UrlBot:
    name: str
    url: str
    secret: str
    allow: tuple[netguard.Network, ...]
    kind: str = "url"
    first_fault: str | None = None
    """The first fault of the run, in words (shown after the results)."""

    def connect(self, timeout_ms: int) -> BotConnection:
        """A connection for one game, as a worker opens one per bot per game."""
        return BotConnection(self.url, self.secret, allow=self.allow, timeout=timeout_ms / 1000)


Player = EngineBot | FileBot | UrlBot


def where(error: BaseException, path: Path) -> str:
    """Where in the bot's file ``error`` happened: ``file, line N`` of its innermost frame there."""
    if isinstance(error, SyntaxError) and error.lineno is not None:
        return f"{path.name}, line {error.lineno}"
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if Path(frame.filename) == path]
    if not frames:
        return path.name
    return f"{path.name}, line {frames[-1].lineno}, in {frames[-1].name}"


def is_url(spec: str) -> bool:
    return spec.lower().startswith(("http://", "https://"))


def is_path(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or "\\" in spec


def load_file(spec: str, index: int) -> FileBot:
    path = Path(spec).expanduser()
    if not path.is_file():
        raise BotError(f"no such bot file: {spec}" if not path.exists() else f"not a file: {spec}")
    path = path.resolve()
    module_name = f"sorry_arena_bot_{index}_{path.stem}"
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise BotError(f"cannot load {spec} as a Python module (a .py file is expected)")
    module = importlib.util.module_from_spec(module_spec)
    folder = str(path.parent)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module  # dataclasses and pickle look a class's module up there
    try:
        module_spec.loader.exec_module(module)
    except SystemExit:
        del sys.modules[module_name]
        raise BotError(f"cannot load {spec}: it called sys.exit() while loading") from None
    except Exception as error:
        del sys.modules[module_name]
        raise BotError(f"cannot load {spec}: {type(error).__name__}: {error} ({where(error, path)})") from None
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    choose = getattr(module, "choose", None)
    if not callable(choose):
        raise BotError(f"{spec} defines no choose(request) function (clients/bot.py is the template)")
    return FileBot(spec, path, choose)


def load_url(spec: str, game: str, secret: str, allow: tuple[netguard.Network, ...], timeout_ms: int) -> UrlBot:
    try:
        netguard.check_url(spec)
    except ValueError as error:
        raise BotError(f"bad bot URL {spec!r}: {error}") from None
    bot = UrlBot(spec, spec, secret, allow)
    nonce = secrets.token_hex(16)
    with BotConnection(spec, secret, allow=allow, timeout=max(timeout_ms / 1000, INFO_TIMEOUT_S)) as connection:
        reply = connection.call("info", {"type": "info", "nonce": nonce})
    if reply.fault is not None:
        hint = ""
        if reply.fault == "refused":
            hint = " (--allow lists the networks a bot URL may lead to)"
        elif reply.fault == "rejected":  # 401 or 403: the bot refused the signature
            hint = " (give the bot's secret: --secret or $SORRY_ARENA_SECRET)"
        raise BotError(f"the bot at {spec} did not answer its info route: {reply.fault}: {reply.detail}{hint}")
    body = reply.body or {}
    if body.get("nonce") != nonce:
        raise BotError(f"the bot at {spec} did not send the info route's nonce back: is it a sorry-arena bot?")
    games = body.get("games")
    if isinstance(games, list) and game not in games:
        raise BotError(f"the bot at {spec} plays {', '.join(map(str, games)) or 'no game'}, not the {game} game")
    return bot


def load_bots(
    specs: Sequence[str], *, game: str, secret: str, allow: tuple[netguard.Network, ...], timeout_ms: int
) -> dict[str, Player]:
    """Each distinct entry of ``--bots`` loaded once, by its text; :class:`BotError` for the first that fails."""
    players: dict[str, Player] = {}
    for index, spec in enumerate(dict.fromkeys(specs)):
        if spec in BOTS:
            players[spec] = EngineBot(spec, BOTS[spec])
        elif is_url(spec):
            players[spec] = load_url(spec, game, secret, allow, timeout_ms)
        elif "://" in spec:
            raise BotError(f"bad bot URL {spec!r}: a bot URL must start with http:// or https://")
        elif is_path(spec):
            players[spec] = load_file(spec, index)
        else:
            raise BotError(
                f"unknown bot(s) {spec!r}: expected an engine bot ({', '.join(BOTS)}), "
                "a path to a .py file that defines choose(request), or a push bot's http(s):// URL"
            )
    return players
