"""The types of the game API (:mod:`engine.api`, which re-exports them): actions, decisions, results, events, errors.

They are deliberately small and JSON-friendly: an :class:`Action` has a stable readable ``id`` and a structured
``description``; a :class:`Decision` says which seat is asked and what kind of decision it is; a :class:`Result`
ranks the seats (rank 1 is best, ties share a rank); events and JSON documents are plain dicts (:data:`Event`,
:data:`Json`). The game state type, :data:`engine.api.State`, is the union of the games' state classes, so it is
defined beside the functions that dispatch on it. This module imports nothing of the engine: every other one may
import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Json = dict[str, Any]
"""A JSON-able object: settings, views, saved states, action descriptions."""
Event = dict[str, Any]
"""An event is a JSON-able dict with at least ``type`` and ``to``: ``None`` for public events, or the one seat
that may see it. A private event that others should know happened has a public twin without the private detail."""


class EngineError(Exception):
    """Base class of every error the engine raises on bad input."""


class SettingsError(EngineError, ValueError):
    """Settings that do not describe a playable game (unknown variant, wrong player count, ...)."""


class IllegalActionError(EngineError):
    """An action that is unknown or not legal for this seat now. The state is left unchanged."""

    def __init__(self, action: str, seat: int | None, reason: str) -> None:
        self.action = action
        self.seat = seat
        self.reason = reason
        super().__init__(f"action {action!r} by seat {seat}: {reason}")


class StateError(EngineError, ValueError):
    """A JSON document that is not a valid game state."""


class Action:
    """One legal action of a seat: a stable readable ``id`` and a JSON-able structured ``description``.

    Games subclass it to carry their precomputed outcome (never shown to a player) and build the description on
    first use (:meth:`describe`), so that callers that only need ids (random bots, replays) do not pay for it.
    """

    __slots__ = ("_description", "id")

    def __init__(self, action_id: str, description: Json | None = None) -> None:
        self.id = action_id
        self._description = description

    @property
    def description(self) -> Json:
        if self._description is None:
            self._description = self.describe()
        return self._description

    def describe(self) -> Json:
        return {}

    def to_json(self) -> Json:
        return {"id": self.id, **self.description}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Action) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"


@dataclass(frozen=True, slots=True)
class Decision:
    """The seat that must decide now and the kind of decision (``"move"``, ``"discard"``, ...)."""

    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class Result:
    """The ranking of a finished game: ``ranks[seat]`` (1 is best; tied seats share a rank)."""

    ranks: tuple[int, ...]
    reason: str
    """``"win"`` when a seat (or team) won, ``"turn_cap"`` when the turn cap ended the game, ``"stalled"`` when
    no seat could ever act again (a card game whose every card is stuck in the live play pile)."""
    scores: tuple[int, ...] | None = None
    """Points per seat, for variants that score (the board game's ``points`` variant)."""

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    def to_json(self) -> Json:
        data: Json = {"ranks": list(self.ranks), "reason": self.reason, "winners": list(self.winners)}
        if self.scores is not None:
            data["scores"] = list(self.scores)
        return data
