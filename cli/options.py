"""Argument types shared by the service's sub-commands: a bad value is a usage error, never a traceback."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from store.database import DEFAULT_DATABASE_URL, normalize_database_url


def bounded_int(low: int, high: int, what: str = "a number") -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what} from {low} to {high}, got {value}")
        return value

    return parse


port = bounded_int(1, 65535, "a port")


def database_url(text: str) -> str:
    """A SQLAlchemy URL whose dialect and driver are installed (checked before anything connects)."""
    url = normalize_database_url(text.strip())
    try:
        make_url(url).get_dialect().import_dbapi()
    except NoSuchModuleError:  # a subclass of ArgumentError: first
        raise argparse.ArgumentTypeError(f"unknown database kind in {text!r} (sqlite or postgresql)") from None
    except (ArgumentError, ValueError):
        raise argparse.ArgumentTypeError(
            f"not a database URL: {text!r} (e.g. sqlite:///sorry-arena.db or postgresql://user@host/db)"
        ) from None
    except ImportError as error:
        raise argparse.ArgumentTypeError(f"the driver for {text!r} is not installed ({error})") from None
    return url


def shown(url: str) -> str:
    """The URL with its password hidden, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def database_error(error: SQLAlchemyError) -> str:
    """The driver's own message, without SQLAlchemy's statement dump and link."""
    return str(getattr(error, "orig", None) or error).strip()


def add_database_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        type=database_url,
        default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,  # argparse checks it with the type too
        metavar="URL",
        help="SQLAlchemy URL (default: $DATABASE_URL, else sqlite:///sorry-arena.db in the working directory)",
    )
