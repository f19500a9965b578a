"""The command's parser class and argument types shared by the sub-commands: a bad value is a usage error, never a
traceback; every option's help shows its default; a usage error never repeats a secret given on the command line.

Like every module that builds a parser, it imports none of the service's libraries (the contract of the command
line's parsers in pyproject.toml): ``sorry-arena --help`` and a usage error start at once."""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NoReturn

from store.urls import DEFAULT_DATABASE_URL, normalize_database_url

SECRET_OPTIONS = ("--token", "--secret")
"""Options whose values a usage error must not repeat (argparse quotes unrecognized arguments back)."""
URL_FORM = re.compile(r"[\w+]+://")
"""How a URL that SQLAlchemy reads begins: its kind and driver (``postgresql+psycopg``), then ``://``."""
DATABASE_URL_EXAMPLES = "e.g. sqlite:///sorry-arena.db or postgresql://user@host/db"


def shown_default(default: Any) -> str:
    """A default as the command line spells it: ``a,b`` for a list, JSON for a dict."""
    if isinstance(default, list | tuple):
        return ",".join(map(str, default))
    if isinstance(default, dict):
        return json.dumps(default)
    return str(default)


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Ends each option's help with its default, ``(default: 8000)``, unless the help already speaks of its default
    (an environment variable, a default in words) or there is none to show (``None``; ``False``: a flag)."""

    def _format_action(self, action: argparse.Action) -> str:
        if action.help is None and self._shows_default(action):  # argparse prints no help line without a help
            action = copy.copy(action)
            action.help = ""
            action.help = self._get_help_string(action)
        return super()._format_action(action)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if text == argparse.SUPPRESS or not self._shows_default(action) or "default" in text.lower():
            return action.help
        shown = shown_default(action.default).replace("%", "%%")  # argparse %-formats help strings
        return f"{text} (default: {shown})" if text else f"default: {shown}"

    @staticmethod
    def _shows_default(action: argparse.Action) -> bool:
        default = action.default
        return bool(action.option_strings) and not (
            default is None or default is False or default is argparse.SUPPRESS
        )


class ArgumentParser(argparse.ArgumentParser):
    """The parser of ``sorry-arena`` and of each of its sub-commands (argparse makes sub-parsers of the parent's
    class): help with every option's default (:class:`DefaultsHelpFormatter`), and usage errors that never quote a
    token or secret given on the command line."""

    hidden: ClassVar[set[str]] = set()
    """The values given to :data:`SECRET_OPTIONS` in the command line being parsed (shared by its sub-parsers)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_args(  # type: ignore[override]  # typeshed's overloads; the behaviour is argparse's
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """The whole command line is parsed here (sub-parsers see only their part of it): its secrets, first."""
        ArgumentParser.hidden = set(secret_values(sys.argv[1:] if args is None else args))
        return super().parse_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        for value in sorted(ArgumentParser.hidden, key=len, reverse=True):
            message = message.replace(value, "***")
        super().error(message)


def secret_values(args: Sequence[str]) -> list[str]:
    """The values that ``args`` gives to :data:`SECRET_OPTIONS` (``--token X``, ``--token=X``, or a prefix such as
    ``--tok X``, which argparse accepts too)."""
    found = []
    for index, arg in enumerate(args):
        name, equals, value = arg.partition("=")
        if len(name) > 3 and any(option.startswith(name) for option in SECRET_OPTIONS):
            if equals:
                found.append(value)
            elif index + 1 < len(args):
                found.append(args[index + 1])
    return [value for value in found if value]


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
    """A database URL as SQLAlchemy writes one, ``kind[+driver]://...``, a driverless PostgreSQL one pointed at
    psycopg 3. Only its form is checked here, without SQLAlchemy: whether SQLAlchemy knows its kind and its driver
    is installed is checked when the command runs (:func:`cli.database.usable`), before anything connects."""
    url = normalize_database_url(text.strip())
    if not URL_FORM.match(url):
        raise argparse.ArgumentTypeError(f"not a database URL: {text!r} ({DATABASE_URL_EXAMPLES})")
    return url


def add_database_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database-url",
        type=database_url,
        default=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,  # argparse checks it with the type too
        metavar="URL",
        help=f"SQLAlchemy URL (default: $DATABASE_URL, else {DEFAULT_DATABASE_URL} in the working directory)",
    )
