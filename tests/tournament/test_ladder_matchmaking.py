"""Ladders' matchmaking rounds and the count of their results, on the database alone (no worker plays the games):
games made for idle bots only, within ``max_in_play`` and each bot's hourly budget, never a bot seated twice by rounds
run at once, a result counted once (a void one rated nowhere), a bot paused after its streak of faulty games, a new
version starting from its old one's rating, a closed ladder making no game and ending once its games are settled."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ratings import wenglin
from store.models import Player, Tournament, TournamentGame, now
from store.models.ladders import Ladder, LadderGame, LadderPair, LadderPoint, LadderSeat
from tests.ladderkit import bulk_bots, close, entries, ladder_games, new_ladder
from tournament.plans import ladders
from tournament.plans.runs import utc
from tournament.standings import ladderstate


@pytest.fixture
def sessions(app: Flask) -> Any:
    return app.extensions["db_sessions"]


@pytest.fixture
def session(sessions: Any) -> Iterator[Session]:
    with sessions() as session:
        yield session


def owner_of(session: Session) -> int:
    player = Player(name="owner", token_hash="owner-hash", created_at=now())
    session.add(player)
    session.commit()
    return player.id


def ladder_of(session: Session, bots: int, **fields: Any) -> tuple[int, list[int]]:
    owner = owner_of(session)
    bot_ids = bulk_bots(session, owner, bots)
    settings = {"table_size": 2, "budget": 3600, "max_in_play": 8, **fields}
    ladder = new_ladder(
        session,
        owner,
        "card",
        None,
        settings["table_size"],
        settings["budget"],
        settings["max_in_play"],
        bot_ids,
    )
    return ladder.id, bot_ids


def outcome(seats: int, ranks: list[int] | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "ranks": ranks if ranks is not None else list(range(seats)),
        "faults": [0] * seats,
        "forfeited": [],
        "last_faults": [None] * seats,
        "void_reason": None,
        **fields,
    }


def record(session: Session, scheduled_id: int, result: dict[str, Any], versions: list[int] | None = None) -> bool:
    """Count a result as ``results.finish`` does (its scheduled game marked done, the ladder's count), committed."""
    game = session.get(TournamentGame, scheduled_id)
    assert game is not None
    game.status = "done"
    bot_ids = list(game.bot_ids)
    counted = ladderstate.record(
        session, scheduled_id, bot_ids, versions or [1000 + bot for bot in bot_ids], result, now()
    )
    session.commit()
    return counted


def in_play_bots(session: Session, ladder_id: int) -> Counter[int]:
    return Counter(bot for game in ladder_games(session, ladder_id) if not game.settled for bot in game.bot_ids)


def test_a_round_seats_idle_bots_once_within_max_in_play(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 10, max_in_play=3)
    made = ladders.make_games(session, ladder_id, now(), rng=random.Random(1))
    assert len(made) == 3
    seated = in_play_bots(session, ladder_id)
    assert len(seated) == 6 and set(seated.values()) == {1}
    found = entries(session, ladder_id)
    assert {bot for bot, entry in found.items() if entry.busy} == set(seated)
    assert ladders.make_games(session, ladder_id, now()) == []  # at max_in_play
    assert ladders.open_ladders(session, now()) == [ladder_id]  # 4 bots idle: the clock's round looks
    numbers = session.scalars(select(TournamentGame.number).where(TournamentGame.id.in_(made))).all()
    assert sorted(numbers) == [0, 1, 2]
    tournament = session.scalar(select(Tournament).join(TournamentGame).where(TournamentGame.id == made[0]))
    assert tournament is not None and tournament.games_total == 3 and tournament.status == "running"
    assert record(session, made[0], outcome(2))
    again = ladders.make_games(session, ladder_id, now(), rng=random.Random(2))
    assert len(again) == 1
    seated = in_play_bots(session, ladder_id)
    assert len(seated) == 6 and set(seated.values()) == {1}  # the new game seats only bots that were idle


def test_a_bot_over_its_hourly_budget_waits(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 2, budget=2)
    start = now()
    first = ladders.make_games(session, ladder_id, start)
    assert len(first) == 1
    record(session, first[0], outcome(2))
    second = ladders.make_games(session, ladder_id, start + timedelta(minutes=1))
    assert len(second) == 1
    record(session, second[0], outcome(2))
    assert ladders.make_games(session, ladder_id, start + timedelta(minutes=30)) == []
    assert ladders.open_ladders(session, start + timedelta(minutes=30)) == []  # nobody under budget: no round
    for entry in entries(session, ladder_id).values():  # free an hour after the first of its last 2 seats
        assert utc(entry.free_at) >= start + timedelta(hours=1) - timedelta(seconds=1)
    assert len(ladders.make_games(session, ladder_id, start + timedelta(hours=1, seconds=2))) == 1
    seats = session.scalar(select(func.count()).select_from(LadderSeat).where(LadderSeat.ladder_id == ladder_id))
    assert seats == 6


def test_rounds_at_once_never_seat_a_bot_twice(sessions: Any, session: Session) -> None:
    ladder_id, _ = ladder_of(session, 40, max_in_play=64)
    errors: list[BaseException] = []

    def round_(seed: int) -> None:
        try:
            with sessions() as own:
                ladders.make_games(own, ladder_id, now(), rng=random.Random(seed))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=round_, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    ladders.make_games(session, ladder_id, now())  # whatever a round that gave up left
    seated = in_play_bots(session, ladder_id)
    assert set(seated.values()) == {1}, [bot for bot, count in seated.items() if count > 1]
    assert len(seated) == 40 and len(ladder_games(session, ladder_id)) == 20
    assert all(entry.busy == 1 for entry in entries(session, ladder_id).values())


def test_a_result_is_rated_once(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 2)
    (made,) = ladders.make_games(session, ladder_id, now())
    game = session.get(TournamentGame, made)
    assert game is not None
    winner, loser = game.bot_ids
    assert record(session, made, outcome(2, [0, 1]))
    assert not record(session, made, outcome(2, [0, 1]))  # written twice: counted once
    found = entries(session, ladder_id)
    assert found[winner].games == 1 and found[loser].games == 1
    expected = wenglin.update([(wenglin.MU, wenglin.SIGMA)] * 2, [0, 1])
    assert (found[winner].mu, found[winner].sigma) == pytest.approx(expected[0])
    assert (found[loser].mu, found[loser].sigma) == pytest.approx(expected[1])
    assert found[winner].mu > wenglin.MU > found[loser].mu
    assert all(entry.busy == 0 and entry.last_game_at is not None for entry in found.values())
    points = session.scalars(select(LadderPoint).where(LadderPoint.ladder_id == ladder_id)).all()
    assert sorted((point.bot_id, point.number) for point in points) == sorted([(winner, 1), (loser, 1)])


def test_a_void_game_frees_its_bots_and_rates_nothing(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 2)
    (made,) = ladders.make_games(session, ladder_id, now())
    assert record(session, made, outcome(2, [1, 0], void_reason="excluded", forfeited=[0]))
    found = entries(session, ladder_id)
    assert all(entry.busy == 0 and entry.games == 0 and entry.mu == wenglin.MU for entry in found.values())
    assert session.scalar(select(func.count()).select_from(LadderPoint)) == 0
    assert all(game.settled for game in ladder_games(session, ladder_id))


def test_a_streak_of_faulty_games_pauses_the_bot(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SORRY_ARENA_LADDER_PAUSE_AFTER", raising=False)  # the default: 3
    ladder_id, _ = ladder_of(session, 2)
    faulty = 0
    for game_number in range(3):
        (made,) = ladders.make_games(session, ladder_id, now() + timedelta(seconds=game_number))
        game = session.get(TournamentGame, made)
        assert game is not None
        faulty = faulty or game.bot_ids[0]
        seat = game.bot_ids.index(faulty)
        faults = [0, 0]
        faults[seat] = 1
        last = [None, None]
        last[seat] = "timeout"  # type: ignore[call-overload]
        record(session, made, outcome(2, faults=faults, last_faults=last))
        assert entries(session, ladder_id)[faulty].fault_streak == game_number + 1
    entry = entries(session, ladder_id)[faulty]
    assert entry.paused and entry.paused_at is not None
    assert entry.pause_reason == "paused automatically: faults in 3 games in a row (the last: a timeout)"
    assert ladders.make_games(session, ladder_id, now() + timedelta(seconds=10)) == []  # its opponent waits alone
    other = next(entry for bot, entry in entries(session, ladder_id).items() if bot != faulty)
    assert other.fault_streak == 0 and not other.paused


def test_a_new_version_starts_from_the_old_ones_rating(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 2)
    (made,) = ladders.make_games(session, ladder_id, now())
    game = session.get(TournamentGame, made)
    assert game is not None
    bots = list(game.bot_ids)
    record(session, made, outcome(2, [0, 1]), versions=[11, 21])
    before = {bot: (entry.mu, entry.sigma) for bot, entry in entries(session, ladder_id).items()}
    old = before[bots[0]]
    (made,) = ladders.make_games(session, ladder_id, now() + timedelta(seconds=1))
    game = session.get(TournamentGame, made)
    assert game is not None
    versions = [12 if bot == bots[0] else 21 for bot in game.bot_ids]  # bots[0] plays a new version
    ranks = [0, 1]
    record(session, made, outcome(2, ranks), versions=versions)
    entry = entries(session, ladder_id)[bots[0]]
    assert entry.version_id == 12 and entry.prior_version_id == 11 and entry.games == 1
    priors = [wenglin.prior_for_new_version(*old) if bot == bots[0] else before[bot] for bot in game.bot_ids]
    expected = wenglin.update(priors, ranks)[game.bot_ids.index(bots[0])]
    assert (entry.mu, entry.sigma) == pytest.approx(expected)
    numbers = session.scalars(
        select(LadderPoint.number).where(LadderPoint.bot_id == bots[0]).order_by(LadderPoint.number)
    ).all()
    assert numbers == [1, 2]  # the chart counts over every version


def test_a_closed_ladder_makes_no_game_and_ends_once_settled(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 6, max_in_play=2)
    playing, waiting = ladders.make_games(session, ladder_id, now())
    started = session.get(TournamentGame, playing)
    assert started is not None
    started.status, started.game_id = "running", None  # as a worker holds it (its game row is not needed here)
    session.commit()
    close(session, ladder_id)
    assert session.get(TournamentGame, waiting).status == "cancelled"  # type: ignore[union-attr]
    assert ladders.make_games(session, ladder_id, now()) == []
    tournament_id = started.tournament_id
    session.expire_all()
    assert session.get(Tournament, tournament_id).status == "running"  # type: ignore[union-attr]
    cancelled = next(game for game in ladder_games(session, ladder_id) if game.tournament_game_id == waiting)
    assert cancelled.settled  # the sweep freed its bots
    busy = {bot for bot, entry in entries(session, ladder_id).items() if entry.busy}
    assert busy == set(started.bot_ids)
    record(session, playing, outcome(2))
    assert ladders.make_games(session, ladder_id, now()) == []
    session.expire_all()
    assert session.get(Tournament, tournament_id).status == "done"  # type: ignore[union-attr]
    assert ladders.open_ladders(session, now()) == []


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_closed_ladders_end_waits_for_a_game_being_made(sessions: Any) -> None:
    """The count of a closed ladder's games in play waits for its tournament's row, which a round making a game
    holds until it commits: a game made meanwhile is counted and the tournament stays running (PostgreSQL: rows
    locked across connections; SQLite makes one write at a time)."""
    with sessions() as session:
        ladder_id, bot_ids = ladder_of(session, 4, max_in_play=2)
        session.execute(update(Ladder).where(Ladder.id == ladder_id).values(status="closed"))
        session.commit()
        closed = ladders.settings_of(session, ladder_id)
        session.rollback()
    assert closed is not None and closed.status == "closed"
    ended: list[bool] = []

    def finish() -> None:
        with sessions() as own:
            ended.append(ladders.finish_closed(own, closed, now()))

    with sessions() as maker:  # a round that read the ladder open and makes its game under the row's lock
        maker.execute(update(Tournament).where(Tournament.id == closed.tournament_id).values(games_total=1))
        scheduled = TournamentGame(
            tournament_id=closed.tournament_id, number=0, round=1, bot_ids=bot_ids[:2], seed=1, status="pending"
        )
        maker.add(scheduled)
        maker.flush()
        maker.add(LadderGame(tournament_game_id=scheduled.id, ladder_id=ladder_id, bot_ids=bot_ids[:2]))
        maker.flush()
        counting = threading.Thread(target=finish, daemon=True)
        counting.start()
        counting.join(0.5)
        assert counting.is_alive() and not ended  # waiting for the row the game is made under
        maker.commit()
    counting.join(60)
    assert ended == [False]
    with sessions() as session:
        status = session.scalar(select(Tournament.status).where(Tournament.id == closed.tournament_id))
        assert status == "running"


def test_a_round_at_three_seats_weighs_every_pair_and_balances_seats(session: Session) -> None:
    ladder_id, _ = ladder_of(session, 9, table_size=3, max_in_play=3)
    for number in range(12):
        made = ladders.make_games(session, ladder_id, now() + timedelta(seconds=number), rng=random.Random(number))
        assert made and all(len(set(session.get(TournamentGame, game).bot_ids)) == 3 for game in made)  # type: ignore[union-attr]
        for game in made:
            record(session, game, outcome(3))
    pairs = session.scalars(select(LadderPair).where(LadderPair.ladder_id == ladder_id)).all()
    tables = ladder_games(session, ladder_id)
    assert sum(pair.games for pair in pairs) == 3 * len(tables)  # each table's three pairs counted
    found = entries(session, ladder_id)
    assert sum(sum(entry.seat_counts) for entry in found.values()) == 3 * len(tables)
    assert all(len(entry.seat_counts) == 3 for entry in found.values())
    assert max(max(entry.seat_counts) - min(entry.seat_counts) for entry in found.values()) <= 2
