"""The note of the bots that stall (``tournament/play/stalls.py``): a timeout or a connection that never came marks a bot
stalling and a good answer clears it; a stalling bot is admitted to at most ``cap`` games of the process, a sound
one to any number; a game's end wakes a job waiting to be tried again."""

from __future__ import annotations

import threading

from tournament.play.stalls import Stalls, account_cap, stall_cap


def test_the_share_is_a_quarter_of_the_slots_and_at_least_one() -> None:
    assert [stall_cap(slots) for slots in (1, 3, 4, 8, 9, 32)] == [1, 1, 1, 2, 2, 8]


def test_an_accounts_share_is_its_percent_of_the_slots_and_at_least_one() -> None:
    assert [account_cap(slots, 25) for slots in (1, 4, 8, 16)] == [1, 1, 2, 4]
    assert account_cap(8, 100) == 8 and account_cap(8, 1) == 1


def test_an_account_is_admitted_to_its_share_of_games_stalling_or_not() -> None:
    stalls = Stalls(cap=1, account_cap=2)
    games = [stalls.enter([1, 2], account=10), stalls.enter([3, 4], account=10)]
    assert not stalls.admits([5, 6], account=10), "account 10 holds its two games"
    assert stalls.admits([5, 6], account=11) and stalls.admits([5, 6]), "another account, or one not known"
    stalls.leave(games[0])
    assert stalls.admits([5, 6], account=10)
    assert Stalls(cap=1).admits([1], account=10), "no share without slots (no account_cap)"


def test_only_calls_that_ran_out_their_deadline_mark_a_bot_stalling() -> None:
    stalls = Stalls(cap=2)
    for fault in ("status", "unparsable", "illegal", "too_large", "redirect", None):
        stalls.answered(1, fault)
        assert not stalls.any_stalling(), fault
    stalls.answered(1, "timeout")
    stalls.answered(2, "connection")
    assert stalls.stalling() == {1, 2}
    stalls.answered(1, None)  # it answered in time again
    assert stalls.stalling() == {2}


def test_a_stalling_bot_is_admitted_to_its_share_of_games_and_a_sound_one_to_any() -> None:
    stalls = Stalls(cap=2)
    games = [stalls.enter([1, 2]) for _ in range(5)]  # two bots, five games at once: no one stalls
    assert stalls.admits([1, 2])
    stalls.answered(2, "timeout")
    assert not stalls.admits([1, 2]) and not stalls.admits([2, 3])
    assert stalls.admits([1, 3]), "bot 1 is sound: its games with others go on"
    for game in games[:3]:
        stalls.leave(game)
    assert not stalls.admits([2, 3]), "bot 2 still sits in two games"
    stalls.leave(games[3])
    assert stalls.admits([2, 3])
    assert stalls.enter([2, 2]).bots == frozenset({2}), "a bot twice in one game counts once"
    assert not stalls.admits([2, 4])


def test_a_game_that_ends_wakes_a_job_waiting_to_try_again() -> None:
    stalls = Stalls(cap=1)
    game = stalls.enter([7])
    since = stalls.version()
    assert not stalls.wait_for_a_game_to_end(since, timeout=0.05)
    ended = threading.Thread(target=stalls.leave, args=(game,))
    ended.start()
    assert stalls.wait_for_a_game_to_end(since, timeout=30)
    ended.join()
    assert stalls.version() == since + 1
