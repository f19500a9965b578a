"""One push bot as a process of its own: ``python -m tests.reliability.botproc KIND [--delay S]``.

It prints ``url <URL>`` on its first line once it listens on a free loopback port, then serves until it is
terminated. ``random`` is the reference client (``clients/push.py``, signatures checked) playing the random example
bot, ``--delay`` seconds per move; every other kind answers ``info``, ``start`` and ``end`` properly and each
``move`` with one misbehaviour of ``tests/botservers.py``:

| kind | every move | the fault recorded |
| --- | --- | --- |
| ``hang`` | no answer for a minute | ``timeout`` |
| ``status500`` | HTTP 500 | ``status`` |
| ``garbage`` | an HTML page | ``unparsable`` |
| ``endless`` | a chunked body that never ends | ``too_large`` |
| ``redirect`` | a 302 to another address | ``redirect`` |
| ``illegal`` | an action id that is not legal | ``illegal`` |
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from typing import Any

from clients.examples import random_bot
from clients.push import serve
from tests.botservers import (
    Behaviour,
    BotServer,
    Handler,
    Received,
    endless,
    garbage,
    redirect,
    reply,
    slow,
    status,
)

MISBEHAVIOURS: dict[str, tuple[Behaviour, str]] = {
    "hang": (slow(60.0), "timeout"),
    "status500": (status(500), "status"),
    "garbage": (garbage(), "unparsable"),
    "endless": (endless(), "too_large"),
    "redirect": (redirect("http://127.0.0.1:9/elsewhere"), "redirect"),
    "illegal": (reply({"action": "no-such-action"}), "illegal"),
}
"""Each kind's move behaviour and the fault it is recorded as."""


def misbehaving_bot(move: Behaviour) -> BotServer:
    """A bot that proves its URL and takes ``start`` and ``end`` as it should, and answers each move with ``move``
    (as ``tests.arenakit.bot_server``, without importing the service into this process)."""
    proper = reply()

    def behave(handler: Handler, request: Received) -> None:
        route = request.path.rstrip("/").rsplit("/", 1)[-1]
        (move if route == "move" else proper)(handler, request)

    return BotServer(behave)


def random_choose(delay: float) -> Any:
    def choose(request: dict[str, Any]) -> str:
        if delay:
            time.sleep(delay)
        return str(random_bot.choose(request))

    return choose


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.reliability.botproc")
    parser.add_argument("kind", choices=["random", *MISBEHAVIOURS])
    parser.add_argument("--delay", type=float, default=0.0, help="seconds a random bot thinks per move")
    parser.add_argument("--secret", default=None, help="the secret whose signatures a random bot checks")
    parser.add_argument("--port", type=int, default=0, help="the port a random bot listens on (0: any free one)")
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if args.kind == "random":
        server = serve(random_choose(args.delay), port=args.port, secret=args.secret, name="random")
        server.start_background()
        url = f"{server.url}/bot"
        print(f"url {url}", flush=True)
        stop.wait()
        server.shutdown()
        return 0
    with misbehaving_bot(MISBEHAVIOURS[args.kind][0]) as misbehaving:
        print(f"url {misbehaving.url()}", flush=True)
        stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
