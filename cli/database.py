"""The database of the commands that open one (``db``, ``serve``, ``worker``, ``demo``, ``export``): the check that
SQLAlchemy knows a URL's kind and has its driver, the refusal of a database newer than this release, the URL as
messages show it, and a database error in one line.

The parsers check only a URL's form (:func:`cli.options.database_url`): they load no SQLAlchemy, so that ``--help``
and a usage error start at once. This module loads it, from the command's ``run``, before anything connects.
"""

from __future__ import annotations

import argparse
import sys

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from cli.options import DATABASE_URL_EXAMPLES


def check_url(url: str, parser: argparse.ArgumentParser) -> None:
    """A usage error, worded as argparse words one of ``--database-url``, unless SQLAlchemy reads ``url``, knows
    its kind and has its driver installed (``url`` comes from --database-url, its default or $DATABASE_URL)."""
    try:
        make_url(url).get_dialect().import_dbapi()
    except NoSuchModuleError:  # a subclass of ArgumentError: first
        parser.error(f"argument --database-url: unknown database kind in {url!r} (sqlite or postgresql)")
    except (ArgumentError, ValueError):
        parser.error(f"argument --database-url: not a database URL: {url!r} ({DATABASE_URL_EXAMPLES})")
    except ImportError as error:
        parser.error(f"argument --database-url: the driver for {url!r} is not installed ({error})")


def refuse_newer(url: str, command: str) -> None:
    """Exit 2 with one line (``sorry-arena COMMAND: this database is at revision X, newer than this release's Y:
    upgrade the program``) if the database is at a revision this release does not know; a database that does not
    answer passes (the command says why when it opens it)."""
    from store import migrate

    try:
        migrate.refuse_newer(url)
    except migrate.NewerDatabase as error:
        print(f"sorry-arena {command}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    except SQLAlchemyError:
        pass


def shown(url: str) -> str:
    """The URL with its password hidden, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def database_error(error: SQLAlchemyError) -> str:
    """The driver's own message, without SQLAlchemy's statement dump and link."""
    return str(getattr(error, "orig", None) or error).strip()
