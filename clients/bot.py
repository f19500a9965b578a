"""Your SORRY! bot: fill in ``choose``. The guide is docs/bots.md; the plumbing is push.py and pull.py.

Run a copy of it from any folder, once the client is installed (``pip install ./clients``), either way (the same
function plays both):

    python my_bot.py --push --port 8001 --secret "$SECRET"      # the service calls you
    SORRY_ARENA_TOKEN=sa_... python my_bot.py --pull --url http://127.0.0.1:8000   # you poll the service
"""

import signal

if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C while the bot starts up ends it at once, quietly

from typing import Any  # your imports go here, below the lines above (Ctrl-C while they load stays quiet)


def choose(request: dict[str, Any]) -> str:
    """Return the id of one of ``request["actions"]``; called each time your seat must decide.

    - ``view``: what your seat sees (``view["game"]`` is ``"board"`` or ``"card"``; board: ``pawns``, ``card``;
      card game: ``hand``, ``total``);
    - ``actions``: the legal actions, each an ``id`` and what it does (board: ``moves``, ``bumps``, ``slides``;
      card game: ``cards``, ``total_after``);
    - ``decision``: what is asked (board: ``move``, or ``play`` in the points variant; card game: ``turn``,
      ``play2``, ``steal``, ``block``, ``tiebreak``);
    - ``game_id``, ``seat``, ``ply``; ``deadline_ms`` (your time) and ``last_latency_ms`` (your last move's).

    Answer within the deadline (1 s unless the tournament says otherwise); raising or answering an id that was
    not offered is a fault: the service plays a fallback move, and three faults in a row forfeit the game.
    """
    actions = request["actions"]
    # An example to replace: take a pawn out of START or bump someone when you can, else the first action.
    for action in actions:
        if action.get("bumps") or action.get("kind") == "start":
            return str(action["id"])
    return str(actions[0]["id"])


if __name__ == "__main__":  # python my_bot.py --push|--pull ...: hand this choose() to the client's plumbing
    import sys
    from pathlib import Path

    try:  # the installed client first (pip install ./clients), else the clients/ folder this file sits in
        from clients.__main__ import main
    except ModuleNotFoundError as missing:
        if missing.name != "clients":
            raise
        sys.path.append(str(Path(__file__).resolve().parent.parent))  # the folder that holds clients/
        try:
            from clients.__main__ import main
        except ModuleNotFoundError:
            sys.exit(
                "the sorry-arena client is not installed: pip install ./clients (from a clone of the repository)"
            )
    sys.exit(main(choose=choose, name=Path(__file__).stem))
