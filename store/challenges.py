"""Challenges: a person against bots in one game, played by the tournament machinery as a one-game tournament.

A challenge is a ``Tournament`` row (unrated, its owner the person who plays) whose ``bot_ids`` list the seats in
order: :data:`HUMAN` at the person's seat, a bot id at every other. Its one scheduled game carries the same list;
the worker seats the owner's own account where :data:`HUMAN` stands and waits on that seat as it waits on a pull
bot's, while the person moves through the games API with their token (``service/api/challenges.py``,
``tournament/play/runner.py``). The challenge's ``move_timeout_ms`` is the person's time per move; its bots have
that up to the tournaments' limit (:func:`bot_move_timeout_ms`). Results and records keep :data:`HUMAN` at that
seat: it names no bot.
"""

from __future__ import annotations

from collections.abc import Sequence

HUMAN = 0
"""The bot id of a challenge's human seat (bot ids start at 1)."""
MAX_BOT_MOVE_TIMEOUT_MS = 60_000
"""The most time per move a bot has, in a tournament, a match or a challenge (a challenge's ``move_timeout_ms``, the
person's, may be longer: ``SORRY_ARENA_CHALLENGE_MOVE_TIMEOUT_MS``)."""


def bot_move_timeout_ms(move_timeout_ms: int) -> int:
    """A bot's time per move in a game whose tournament has ``move_timeout_ms``: that, up to
    :data:`MAX_BOT_MOVE_TIMEOUT_MS`."""
    return min(move_timeout_ms, MAX_BOT_MOVE_TIMEOUT_MS)


def is_challenge(bot_ids: Sequence[int]) -> bool:
    """Whether a tournament (or scheduled game) with these ``bot_ids`` is a challenge: one of its seats is a
    person's."""
    return HUMAN in bot_ids


def human_seat(bot_ids: Sequence[int]) -> int | None:
    """The seat of the person in a challenge's ``bot_ids``; ``None`` for a tournament of bots only."""
    return list(bot_ids).index(HUMAN) if HUMAN in bot_ids else None
