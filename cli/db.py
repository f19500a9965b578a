"""``sorry-arena db``: migrate the database (``upgrade``), show its revision (``current``), compare it with the
models (``check``) and write a new migration from the models (``revision``, for developers)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from cli.options import add_database_url, database_error, shown
from store import migrate


def add_parser(commands: Any) -> None:
    parser = commands.add_parser("db", help="migrate the database", description="Manage the database schema.")
    actions = parser.add_subparsers(dest="db_command", required=True, metavar="ACTION")

    upgrade = actions.add_parser("upgrade", help="migrate the database to the newest revision")
    add_database_url(upgrade)
    upgrade.set_defaults(run=run, parser=upgrade)

    current = actions.add_parser("current", help="print the database's revision")
    add_database_url(current)
    current.set_defaults(run=run, parser=current)

    check = actions.add_parser("check", help="exit 1 when the database's schema differs from the models")
    add_database_url(check)
    check.set_defaults(run=run, parser=check)

    revision = actions.add_parser(
        "revision",
        help="write a new migration from the models (developers)",
        description="Autogenerate store/migrations/versions/NNNN_MESSAGE.py from the difference between the "
        "models and the database (run `db upgrade` on it first); review the file before committing it.",
    )
    revision.add_argument("-m", "--message", required=True, help="what the migration does")
    add_database_url(revision)
    revision.set_defaults(run=run, parser=revision)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    url = args.database_url
    try:
        if args.db_command == "upgrade":
            print(f"{shown(url)}: at revision {migrate.upgrade(url)} (head {migrate.head()})")
        elif args.db_command == "current":
            print(migrate.current(url) or "none (never migrated)")
        elif args.db_command == "check":
            differences = migrate.check(url)
            for difference in differences:
                print(difference)
            if differences:
                print(f"{shown(url)}: the schema differs from the models", file=sys.stderr)
                return 1
            print(f"{shown(url)}: the schema matches the models")
        else:
            print(f"wrote revision {migrate.revision(url, args.message)}")
    except SQLAlchemyError as error:
        print(f"sorry-arena db {args.db_command}: {shown(url)}: {database_error(error)}", file=sys.stderr)
        return 1
    return 0
