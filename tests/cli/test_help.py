"""The help of every ``sorry-arena`` sub-command: each option with a default says it, each option measured in
time says its unit; and a usage error never quotes a token given on the command line back."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from cli.main import build_parser, main
from tests.cli.usagekit import usage_error


def parsers(
    parser: argparse.ArgumentParser, name: str = "sorry-arena"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``parser`` and every sub-command's parser under it, with the command line that reaches it."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command, sub in action.choices.items():
                yield from parsers(sub, f"{name} {command}")


def options(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, argparse.Action, str]]:
    """Every option of every sub-command with its help as printed (argparse's expansion, the default added)."""
    for variable in ("DATABASE_URL", "REDIS_URL", "SORRY_ARENA_API", "SORRY_ARENA_TOKEN", "SORRY_ARENA_SECRET"):
        monkeypatch.delenv(variable, raising=False)
    for name, parser in parsers(build_parser()):
        for action in parser._actions:
            if action.option_strings and action.help != argparse.SUPPRESS and action.dest != "help":
                text = parser._get_formatter()._format_action(action)  # as --help prints it
                yield name, action, " ".join(text.split())


def test_every_option_with_a_default_says_it_in_its_help(monkeypatch: pytest.MonkeyPatch) -> None:
    silent = [
        f"{name} {action.option_strings[-1]} (default {action.default!r}): {text!r}"
        for name, action, text in options(monkeypatch)
        if action.default not in (None, argparse.SUPPRESS) and action.default is not False
        if "default" not in text.lower()
    ]
    assert silent == []


def test_the_defaults_shown_are_the_values(monkeypatch: pytest.MonkeyPatch) -> None:
    helps = {(name, action.option_strings[-1]): text for name, action, text in options(monkeypatch)}
    assert "(default: 160)" in helps[("sorry-arena demo", "--rounds")]
    assert "(default: search,greedy,random)" in helps[("sorry-arena demo", "--bots")]
    assert "(default: 1000)" in helps[("sorry-arena tournament create", "--move-timeout-ms")]
    assert "(default: {}, the game's defaults)" in helps[("sorry-arena tournament create", "--settings")]
    assert "(default: 32)" in helps[("sorry-arena serve", "--threads")]
    assert "sqlite:///sorry-arena.db" in helps[("sorry-arena db check", "--database-url")]


def test_every_option_measured_in_time_says_its_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    unitless = []
    for name, action, text in options(monkeypatch):
        option = action.option_strings[-1]
        if option.endswith("-ms"):
            said = "millisecond" in text or action.metavar == "MS"
        elif any(word in option for word in ("every", "interval", "timeout", "wait", "seconds")):
            said = "second" in text
        else:
            said = True
        if not said:
            unitless.append(f"{name} {option}: {text!r}")
    assert unitless == []
    helps = {(name, action.option_strings[-1]): text for name, action, text in options(monkeypatch)}
    assert "seconds between runs" in helps[("sorry-arena tournament create", "--repeat-every")]
    assert "in milliseconds" in helps[("sorry-arena tournament create", "--move-timeout-ms")]


TOKEN = "sa_hush-hush-0123456789abcdefghijklmnopqrstuvw"


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "--token", TOKEN, "create", "--bogus"],
        ["tournament", "create", "--game", "card", "--bots", "1,2", "--token", TOKEN, "extra"],
        ["tournament", f"--token={TOKEN}", "status", "1", "2"],
        ["tournament", "--tok", TOKEN, "status"],
        ["--token", TOKEN, "tournament", "status", "1"],
    ],
)
def test_a_usage_error_never_quotes_the_token(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert TOKEN not in usage_error(capsys, *args)


def test_the_help_of_a_sub_command_shows_its_defaults_as_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["tournament", "create", "--help"])
    assert exited.value.code == 0
    flat = " ".join(capsys.readouterr().out.split())
    assert "seats per game, 2 to 4 (default: 2)" in flat
    assert "seconds between runs" in flat and "(default: no repeat)" in flat
