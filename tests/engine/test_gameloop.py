"""engine/gameloop.py: the one game loop of the simulator and the tournament runner, with tables whose seats answer
as scripted: faults answered by the seeded fallback, the third in a row forfeiting, a forfeited seat never asked
again, a game left with one seat ending, a seat that moved through another path, a move that a late one replaced."""

from __future__ import annotations

from collections.abc import Callable

import engine
from engine.gameloop import FORFEIT, Answer, FaultCount, play_out
from engine.records import FAULTS_TO_FORFEIT

Script = Callable[["ScriptedTable", int], Answer | None]


class ScriptedTable:
    """A table whose seats answer as ``script`` says (by default the first legal action), recording every move."""

    def __init__(self, game: str, players: int, script: Script | None = None, seed: int = 3) -> None:
        self.state = engine.new_game(game, {"players": players}, seed)
        self.seats = [FaultCount() for _ in range(players)]
        self.script = script
        self.asked: list[int] = []
        self.moves: list[tuple[int, str, str | None]] = []
        self.kept = True

    def first_legal(self, seat: int) -> Answer:
        return Answer(engine.legal_actions(self.state, seat)[0].id, 1.0, None)

    def ask(self, seat: int, kind: str) -> Answer | None:
        self.asked.append(seat)
        return self.script(self, seat) if self.script is not None else self.first_legal(seat)

    def moved(self, seat: int, action: str, answer: Answer) -> bool:
        self.moves.append((seat, action, answer.fault))
        return self.kept


def test_the_third_fault_in_a_row_forfeits() -> None:
    count = FaultCount()
    for fault in ["timeout", "illegal", None, "status", "status"]:
        count.count(fault)
    assert (count.faults, count.faults_in_a_row, count.forfeited) == (4, 2, False)
    count.count("exception")
    assert count.faults_in_a_row == FAULTS_TO_FORFEIT and count.forfeited
    count.count("forfeit")
    assert count.faults == 5 and count.forfeited


def test_a_game_of_good_answers_is_played_to_its_end() -> None:
    table = ScriptedTable("card", 3)
    play_out(table)
    assert engine.is_over(table.state)
    assert all(fault is None for _, _, fault in table.moves)
    replayed = engine.replay("card", {"players": 3}, 3, [action for _, action, _ in table.moves])
    assert engine.to_json(replayed) == engine.to_json(table.state)


def test_a_fault_plays_the_seeded_fallback_and_three_in_a_row_forfeit() -> None:
    def seat0_faults(table: ScriptedTable, seat: int) -> Answer:
        return Answer(None, 5.0, "timeout", "slow") if seat == 0 else table.first_legal(seat)

    table = ScriptedTable("board", 2, seat0_faults)
    start = engine.copy(table.state)
    play_out(table)
    # a game of two seats ends once one of them forfeits: seat 0 faulted three times, then nothing more
    assert [fault for seat, _, fault in table.moves if seat == 0] == ["timeout"] * FAULTS_TO_FORFEIT
    assert table.seats[0].forfeited and table.seats[0].faults == FAULTS_TO_FORFEIT
    assert not engine.is_over(table.state)  # it ended by forfeit, not by the rules
    for seat, action, _ in table.moves:  # each fault was answered by the fallback of its position
        if seat == 0:
            assert action == engine.fallback_action(start)
        engine.apply(start, action, seat, events=False)
    assert engine.to_json(start) == engine.to_json(table.state)


def test_a_forfeited_seat_is_never_asked_again_and_the_others_play_on() -> None:
    def seat1_illegal(table: ScriptedTable, seat: int) -> Answer:
        return Answer(None, 2.0, "illegal") if seat == 1 else table.first_legal(seat)

    table = ScriptedTable("card", 3, seat1_illegal)
    play_out(table)
    assert table.asked.count(1) == FAULTS_TO_FORFEIT
    forfeit_moves = [fault for seat, _, fault in table.moves if seat == 1][FAULTS_TO_FORFEIT:]
    assert forfeit_moves and set(forfeit_moves) == {"forfeit"}  # played for it, by the fallback, unasked
    assert engine.is_over(table.state)  # two seats played on to the game's end


def test_a_seat_that_moved_elsewhere_makes_a_good_move() -> None:
    """``None``: the seat's move is already in the table's state (a pull bot moved through the games API)."""

    def pull(table: ScriptedTable, seat: int) -> Answer | None:
        if seat == 0:
            engine.apply(table.state, engine.legal_actions(table.state, 0)[0].id, 0, events=False)
            return None
        return table.first_legal(seat)

    table = ScriptedTable("card", 2, pull)
    table.seats[0].faults_in_a_row = 2  # a good move clears the streak
    play_out(table)
    assert engine.is_over(table.state)
    assert table.seats[0].faults_in_a_row == 0 and not table.seats[0].forfeited
    assert all(seat == 1 for seat, _, _ in table.moves)  # the table noted only the moves it was given


def test_a_fault_replaced_by_the_seats_own_late_move_is_no_fault() -> None:
    """``moved`` says ``False``: the table took a state holding the seat's own (late) move instead of the fallback."""

    def late_at_first(table: ScriptedTable, seat: int) -> Answer:
        table.kept = len(table.asked) > 10
        return Answer(None, 9.0, "timeout") if not table.kept else table.first_legal(seat)

    table = ScriptedTable("board", 2, late_at_first)
    play_out(table)
    assert [fault for _, _, fault in table.moves[:10]] == ["timeout"] * 10
    assert [count.faults for count in table.seats] == [0, 0]
    assert not any(count.forfeited for count in table.seats)
    assert engine.is_over(table.state)


def test_the_forfeit_answer_is_the_fallback_unasked() -> None:
    assert FORFEIT == Answer(None, None, "forfeit")
