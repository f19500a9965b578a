"""``sorry-arena db``: migrate the database (``upgrade``: each migration's line as it starts, then every pool's table
refit if one is behind, ``tournament.standings.upkeep``), take it back (``downgrade REV``), show its revision
(``current``), compare it with the models (``check``: each difference a sentence) and write a new migration from the
models (``revision``, for developers). A SQLite file is copied before its revision changes (``store.migrate``).
A database newer than this release, a migration that cannot be undone, a revision that is none: one line, exit 2.
Its parser: ``cli/parsers/db.py``."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from cli.database import check_url, database_error, shown
from store import migrate


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    url = args.database_url
    check_url(url, parser)
    try:
        if args.db_command == "upgrade":
            with steps_shown():
                revision = migrate.upgrade(url, say=told)
            refit(url)
            print(f"{shown(url)}: at revision {revision} (head {migrate.head()})")
        elif args.db_command == "downgrade":
            with steps_shown():
                revision = migrate.downgrade(url, args.revision, say=told)
            print(f"{shown(url)}: at revision {revision or 'base'} (head {migrate.head()})")
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
    except (migrate.NewerDatabase, migrate.CannotUndo, ValueError) as error:
        print(f"sorry-arena db {args.db_command}: {error}", file=sys.stderr)
        return 2
    except SQLAlchemyError as error:
        print(f"sorry-arena db {args.db_command}: {shown(url)}: {database_error(error)}", file=sys.stderr)
        return 1
    return 0


def told(line: str) -> None:
    print(line, file=sys.stderr)


class steps_shown:
    """Alembic's line for each migration as it starts (``Running upgrade 0007 -> 0008, ...``) on standard error, so
    an operator sees how far a long upgrade got."""

    def __init__(self) -> None:
        self.handler = logging.StreamHandler(sys.stderr)
        self.handler.setFormatter(logging.Formatter("%(message)s"))
        self.handler.addFilter(
            lambda record: record.getMessage().startswith(("Running upgrade", "Running downgrade"))
        )
        self.logger = logging.getLogger("alembic.runtime.migration")

    def __enter__(self) -> None:
        self.level = self.logger.level
        self.logger.setLevel(logging.INFO)
        self.logger.addHandler(self.handler)

    def __exit__(self, *_: Any) -> None:
        self.logger.removeHandler(self.handler)
        self.logger.setLevel(self.level)


def refit(url: str) -> None:
    """Refit the stored tables an upgrade left behind (``tournament.standings.upkeep``), saying which."""
    from store.database import make_engine, sessions
    from tournament.standings import upkeep

    engine = make_engine(url)
    try:
        for line in upkeep.refit_behind(sessions(engine)):
            told(line)
    finally:
        engine.dispose()


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
