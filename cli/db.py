"""``sorry-arena db``: migrate the database (``upgrade``), show its revision (``current``), compare it with the
models (``check``: each difference a sentence) and write a new migration from the models (``revision``, for
developers)."""

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
                for sentence in describe(difference):
                    print(sentence)
            if differences:
                never = migrate.current(url) is None
                hint = " (never migrated: sorry-arena db upgrade creates the tables)" if never else ""
                print(f"{shown(url)}: the schema differs from the models{hint}", file=sys.stderr)
                return 1
            print(f"{shown(url)}: the schema matches the models")
        else:
            print(f"wrote revision {migrate.revision(url, args.message)}")
    except SQLAlchemyError as error:
        print(f"sorry-arena db {args.db_command}: {shown(url)}: {database_error(error)}", file=sys.stderr)
        return 1
    return 0


def describe(difference: Any) -> list[str]:
    """Alembic's difference (``compare_metadata``: a tuple, or a list of a column's changes) as sentences."""
    if isinstance(difference, list):
        return [sentence for change in difference for sentence in describe(change)]
    kind = difference[0] if isinstance(difference, tuple) and difference else str(difference)
    if kind in ("add_table", "remove_table"):
        table = difference[1].name
        return [
            f"table {table} is missing from the database"
            if kind == "add_table"
            else f"table {table} is in the database but not in the models"
        ]
    if kind in ("add_column", "remove_column"):
        where = f"{difference[2]}.{difference[3].name}"
        return [
            f"column {where} is missing from the database"
            if kind == "add_column"
            else f"column {where} is in the database but not in the models"
        ]
    if kind in ("add_index", "remove_index", "add_constraint", "remove_constraint", "add_fk", "remove_fk"):
        item = difference[1]
        what = {"index": "index", "constraint": "unique constraint", "fk": "foreign key"}[kind.split("_", 1)[1]]
        table = getattr(getattr(item, "table", None), "name", None) or getattr(item, "parent", None)
        columns = ", ".join(column.name for column in getattr(item, "columns", []))
        where = f" on {table}({columns})" if table is not None else ""
        name = f" {item.name}" if getattr(item, "name", None) else ""
        state = (
            "is missing from the database"
            if kind.startswith("add_")
            else "is in the database but not in the models"
        )
        return [f"{what}{name}{where} {state}"]
    if kind.startswith("modify_") and len(difference) >= 7:
        _, _, table, column, _, database, models = difference[:7]
        what = {"modify_type": "type", "modify_nullable": "nullability", "modify_default": "default"}.get(
            kind, kind.removeprefix("modify_")
        )
        if kind == "modify_nullable":
            database, models = ("NULL" if database else "NOT NULL"), ("NULL" if models else "NOT NULL")
        return [
            f"column {table}.{column}: the {what} is {sql(database)} in the database, {sql(models)} in the models"
        ]
    return [f"a difference of kind {kind} (alembic's name for it)"]


def sql(value: Any) -> str:
    """A column's type or default as SQL says it, never a Python repr."""
    if value is None:
        return "none"
    arg = getattr(value, "arg", None)  # a server default
    if arg is not None:
        value = arg
    text = getattr(value, "text", None)  # a text() clause
    return str(text if text is not None else value)
