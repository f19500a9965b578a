"""The parser of ``sorry-arena ladder`` and its actions (``create``, ``list``, ``show``, ``join``, ``leave``,
``pause``, ``resume``, ``close``, ``watch``), with the service's options of ``sorry-arena tournament`` (``--api``,
``--token``, before or after the action)."""

from __future__ import annotations

from typing import Any

from cli.options import bounded_int
from cli.parsers.tournament import add_global_options, json_object

MAX_ID = 2**31 - 1
ladder_id = bounded_int(1, MAX_ID, "a ladder id")
bot_id = bounded_int(1, MAX_ID, "a bot id")

BOT_ACTIONS = {
    "join": ("add a bot to a ladder (yours, or any with the operator's token)", "Add a bot to a ladder."),
    "leave": (
        "take a bot out of a ladder (its game in play finishes; its rating stays listed)",
        "Take a bot out of a ladder: no new game is made for it, its game in play finishes, its row stays greyed.",
    ),
    "pause": (
        "pause a bot in a ladder (no new game for it until resumed)",
        "Pause a bot in a ladder: no new game is made for it until it is resumed.",
    ),
    "resume": (
        "resume a paused bot (also after an automatic pause for faults)",
        "Resume a paused bot in a ladder: games are made for it again, its fault streak cleared.",
    ),
}
"""The actions on one bot of a ladder, each with its help and description."""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "ladder",
        help="continuous rated arenas: create ladders, join bots, follow the standings",
        description="Ladders through the REST API: a ladder makes games for its bots whenever they are idle and "
        "under their hourly budget, and rates them as the results come in (Weng-Lin, on the Elo scale).",
    )
    add_global_options(parser, after_action=False)
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    create = actions.add_parser("create", help="create a ladder", description="Create a ladder (open at once).")
    add_global_options(create, after_action=True)
    create.add_argument("--game", choices=["board", "card"], required=True, help="the game to play")
    create.add_argument("--name", default="ladder", help="the ladder's name")
    create.add_argument(
        "--settings",
        type=json_object,
        default={},
        help='game settings as JSON, e.g. {"variant":"team"} (default: {}, the game\'s defaults)',
    )
    create.add_argument(
        "--table-size", type=bounded_int(2, 4, "a table size"), default=2, help="seats per game, 2 to 4"
    )
    create.add_argument(
        "--move-timeout-ms",
        type=bounded_int(10, 60_000, "milliseconds"),
        default=1000,
        metavar="MS",
        help="a bot's time to answer a move, in milliseconds, 10 to 60000 (later is a fault)",
    )
    create.add_argument(
        "--budget-per-hour",
        type=bounded_int(1, 3600, "a number of games"),
        default=30,
        metavar="GAMES",
        help="the most games a bot begins in any hour, 1 to 3600",
    )
    create.add_argument(
        "--max-in-play",
        type=bounded_int(1, 64, "a number of games"),
        default=None,
        metavar="GAMES",
        help="the most games of the ladder in play at once, 1 to 64 (default: the service's, "
        "SORRY_ARENA_LADDER_MAX_IN_PLAY)",
    )
    create.add_argument("--unrated", action="store_true", help="leave its games out of the Elo standings")

    listing = actions.add_parser(
        "list", help="the ladders, newest first", description="The ladders, a page at a time."
    )
    add_global_options(listing, after_action=True)
    listing.add_argument("--status", choices=["open", "closed"], default=None, help="only the open or closed ones")
    listing.add_argument("--page", type=bounded_int(1, MAX_ID, "a page number"), default=1, help="the page")

    show = actions.add_parser("show", help="a ladder and its standings", description="A ladder and its standings.")
    add_global_options(show, after_action=True)
    show.add_argument("id", type=ladder_id, help="the ladder's id")

    for action, (short, long) in BOT_ACTIONS.items():
        sub = actions.add_parser(action, help=short, description=long)
        add_global_options(sub, after_action=True)
        sub.add_argument("id", type=ladder_id, help="the ladder's id")
        sub.add_argument("bot_id", type=bot_id, help="the bot's id")

    close = actions.add_parser(
        "close",
        help="close a ladder (no new game; those playing finish)",
        description="Close a ladder: no new game is made, its games not yet started are cancelled, those playing "
        "finish.",
    )
    add_global_options(close, after_action=True)
    close.add_argument("id", type=ladder_id, help="the ladder's id")

    watch = actions.add_parser(
        "watch",
        help="print a ladder's standings every few seconds until Ctrl-C",
        description="Print a ladder's standings every few seconds until Ctrl-C (or once, with --once).",
    )
    add_global_options(watch, after_action=True)
    watch.add_argument("id", type=ladder_id, help="the ladder's id")
    watch.add_argument(
        "--every",
        type=bounded_int(1, 3600, "seconds"),
        default=5,
        metavar="SECONDS",
        help="seconds between two prints, 1 to 3600",
    )
    watch.add_argument("--once", action="store_true", help="print the standings once and stop")
    parser.set_defaults(parser=parser)
