"""One game played to its end, whoever sits in its seats: the loop that the offline simulator (``simulation``,
``sorry-arena simulate``) and the tournament runner (``tournament/play``) share. The seats differ; the loop does not.

At each decision the loop asks the seat that is to decide (:meth:`Table.ask`), plays the game's seeded fallback
action (:func:`engine.api.fallback_action`) for a fault, applies the move and counts the seat's faults
(:class:`FaultCount`): the third fault in a row forfeits the game for the seat (docs/bot-protocol.md, "Faults"),
whose later turns the fallback plays without asking; a game left with one seat playing ends. The table decides who
sits in the seats and how each is asked (an engine bot, a bot author's file, a push bot over HTTP, a pull bot or a
person through the games API) and what becomes of each move (:meth:`Table.moved`: kept in a list, saved in
batches). The final ranking, forfeits applied, is :func:`engine.records.final_result`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from engine.api import State, apply, decision, fallback_action, is_over
from engine.records import FAULTS_TO_FORFEIT


class Answer(NamedTuple):
    """A seat's answer to a decision, judged: the action to play, or a fault."""

    action: str | None
    """The action to play; ``None`` on a fault (the loop plays the fallback action)."""
    latency_ms: float | None
    """How long the seat took (``None``: nobody was asked, as for an engine bot's move or a forfeited seat's)."""
    fault: str | None
    detail: str = ""
    """What went wrong, in words, on a fault."""
    debug: str | None = None
    """The bot's ``debug`` text, as it sent it (a string, else ``None``): the game log cleans and caps it."""


FORFEIT = Answer(None, None, "forfeit")
"""The move of a seat that has forfeited: the fallback, played without asking."""


@dataclass(kw_only=True)
class FaultCount:
    """One seat's faults in one game."""

    faults_in_a_row: int = 0
    faults: int = 0
    forfeited: bool = False
    to_forfeit: int = FAULTS_TO_FORFEIT
    """The faults in a row that forfeit (a challenge's person: ``engine.records.PERSON_FAULTS_TO_FORFEIT``)."""

    def count(self, fault: str | None) -> None:
        """Count one move's fault (``None``: a good move); the ``to_forfeit``-th in a row (the third for a bot)
        forfeits. A ``forfeit`` move is one played for a seat that had already forfeited."""
        if fault is None:
            self.faults_in_a_row = 0
        elif fault == "forfeit":
            self.forfeited = True
        else:
            self.faults += 1
            self.faults_in_a_row += 1
            self.forfeited = self.forfeited or self.faults_in_a_row >= self.to_forfeit


class Table(Protocol):
    """A game being played, as the loop sees it."""

    @property
    def state(self) -> State:
        """The game's state, which the loop applies each move to (a table may replace it: :meth:`ask`)."""
        ...

    @property
    def seats(self) -> Sequence[FaultCount]:
        """Each seat's faults, in seat order."""
        ...

    def ask(self, seat: int, kind: str) -> Answer | None:
        """The answer of ``seat`` to a decision of ``kind``; ``None`` when the seat moved through another path (a
        pull bot through the games API) and the table's state already holds its move, a good one."""
        ...

    def moved(self, seat: int, action: str, answer: Answer) -> bool:
        """Note a move just applied to the state (``action``, for ``answer``). ``False``: the table found that the
        seat's own move stood instead (a pull bot's move that landed just after its deadline) and took the state
        that holds it; the seat then made a good move, not the answer's fault."""
        ...


def play_out(table: Table) -> None:
    """Ask for every decision until the game is over, or at most one seat is left playing."""
    seats = table.seats
    playing = sum(not seat.forfeited for seat in seats)
    while playing > 1 and not is_over(table.state):
        asked = decision(table.state)
        assert asked is not None  # a game not over has a decision to make
        seat = asked.seat
        faults = seats[seat]
        answer = FORFEIT
        if not faults.forfeited:
            answered = table.ask(seat, asked.kind)
            if answered is None:  # it moved through another path: the table's state holds its move
                faults.count(None)
                continue
            answer = answered
        state = table.state
        action = fallback_action(state) if answer.action is None else answer.action
        apply(state, action, seat, events=False)
        if not table.moved(seat, action, answer):
            faults.count(None)  # the seat's own move stood instead: a good one
        elif answer is not FORFEIT:
            faults.count(answer.fault)
            playing -= faults.forfeited  # this fault forfeited the game for the seat
