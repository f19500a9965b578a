"""The parser of ``sorry-arena db`` and its actions (``upgrade``, ``downgrade``, ``current``, ``check``,
``revision``)."""

from __future__ import annotations

from typing import Any

from cli.options import add_database_url


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("db", help="migrate the database", description="Manage the database schema.")
    actions = parser.add_subparsers(dest="db_command", required=True, metavar="ACTION")

    upgrade = actions.add_parser(
        "upgrade",
        help="migrate the database to the newest revision",
        description="Migrate the database to the newest revision, each migration in a transaction of its own (a "
        "killed upgrade leaves it at the last revision reached: run it again). A SQLite file is first copied to "
        "FILE.pre-<its revision>; a successful upgrade removes the copies of earlier ones.",
    )
    add_database_url(upgrade)
    upgrade.set_defaults(parser=upgrade)

    downgrade = actions.add_parser(
        "downgrade",
        help="take the database back to an older revision",
        description="Undo the migrations after REVISION, newest first (base: every one). Refused, with nothing "
        "changed, if one of them cannot be undone. A SQLite file is first copied to FILE.pre-<its revision>.",
    )
    downgrade.add_argument("revision", metavar="REVISION", help="the revision to go back to (e.g. 0012, or base)")
    add_database_url(downgrade)
    downgrade.set_defaults(parser=downgrade)

    current = actions.add_parser("current", help="print the database's revision")
    add_database_url(current)
    current.set_defaults(parser=current)

    check = actions.add_parser("check", help="exit 1 when the database's schema differs from the models")
    add_database_url(check)
    check.set_defaults(parser=check)

    revision = actions.add_parser(
        "revision",
        help="write a new migration from the models (developers)",
        description="Autogenerate store/migrations/versions/NNNN_MESSAGE.py from the difference between the "
        "models and the database (run `db upgrade` on it first); review the file before committing it.",
    )
    revision.add_argument("-m", "--message", required=True, help="what the migration does")
    add_database_url(revision)
    revision.set_defaults(parser=revision)
