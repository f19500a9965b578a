"""The paired schedule of a match and its pentanomial count (tournament/plans/matches.py), pure."""

from __future__ import annotations

from collections import Counter

from tournament.plans.matches import count, pairs_of, schedule, seatings


def test_two_seats_swap_within_a_pair_on_one_deal() -> None:
    games = schedule(1, 2, [], 7, seed=5, salt="s")
    assert len(games) == 8 == 2 * pairs_of(7)  # rounded up to whole pairs
    for pair in range(4):
        first, second = games[2 * pair], games[2 * pair + 1]
        assert (first.seats, second.seats) == ((1, 2), (2, 1))
        assert first.seed == second.seed and first.round == second.round == pair + 1
    assert len({game.seed for game in games}) == 4  # a new deal per pair
    assert [game.index for game in games] == list(range(8))


def test_the_deals_depend_on_the_secret_salt() -> None:
    assert [g.seed for g in schedule(1, 2, [], 4, 5, "a")] != [g.seed for g in schedule(1, 2, [], 4, 5, "b")]


def test_four_seats_a_and_b_take_every_seat_against_the_same_fillers() -> None:
    a, b, fillers = 1, 2, [7, 8]
    seats_a: Counter[int] = Counter()
    seats_b: Counter[int] = Counter()
    for pair in range(6):  # C(4, 2) seat pairs
        first, second = seatings(a, b, fillers, pair)
        # the fillers sit in the same seats in both games; A and B swap
        assert [bot for bot in first if bot in fillers] == [bot for bot in second if bot in fillers]
        assert all((x, y) in ((a, b), (b, a), (f, f)) for x, y, f in zip(first, second, first, strict=True))
        assert first.index(a) == second.index(b) and first.index(b) == second.index(a)
        for seats in (first, second):
            seats_a[seats.index(a)] += 1
            seats_b[seats.index(b)] += 1
    assert seats_a == seats_b == Counter({0: 3, 1: 3, 2: 3, 3: 3})


def test_three_seats_every_seat() -> None:
    seen = Counter(seat.index(1) for pair in range(3) for seat in seatings(1, 2, [9], pair))
    assert seen == Counter({0: 2, 1: 2, 2: 2})


def test_only_completed_pairs_count_by_a_and_bs_ranks() -> None:
    results = [
        (1, [1, 2], [0, 1]),  # A ahead
        (1, [2, 1], [1, 0]),  # A ahead again: pair 1 scores 2 points
        (2, [1, 2], [1, 0]),  # A behind
        (2, [2, 1], [0, 0]),  # tie: pair 2 scores 0.5
        (3, [1, 2], [0, 1]),  # pair 3 not complete
        (4, [7, 1, 8, 2], [0, 3, 1, 2]),  # 4 seats: only A's and B's ranks count, B ahead
        (4, [7, 2, 8, 1], [2, 1, 3, 0]),  # A ahead: pair 4 scores 1 point
    ]
    counted = count(1, 2, results)
    assert counted.counts == [0, 1, 1, 0, 1]
    assert counted.pairs == 3 and counted.games == 6


def test_independent_deals_give_every_game_its_own_seed_in_the_same_seats() -> None:
    paired = schedule(1, 2, [7], 6, seed=5, salt="s")
    independent = schedule(1, 2, [7], 6, seed=5, salt="s", paired=False)
    assert [g.seats for g in independent] == [g.seats for g in paired]  # seats still swapped, fillers kept
    assert [g.round for g in independent] == [g.round for g in paired]
    assert len({g.seed for g in independent}) == 6  # a deal per game
    assert [g.seed for g in independent[::2]] == [g.seed for g in paired[::2]]


def test_single_games_count_trinomially_each_on_its_own() -> None:
    results = [
        (1, [1, 2], [0, 1]),  # A ahead
        (2, [2, 1], [0, 0]),  # tie
        (2, [1, 2], [1, 0]),  # A behind
        (3, [7, 1, 8, 2], [0, 3, 1, 2]),  # 4 seats: only A's and B's ranks count, B ahead
    ]
    counted = count(1, 2, results, paired=False)
    assert counted.counts == [2, 1, 1]  # losses, ties, wins
    assert counted.pairs == 0 and counted.games == 4
