"""Running tallies (store/bottallies.py) on SQLite and PostgreSQL: what ``read`` gives a player (games, faults by
kind, answer-time buckets, tournament games and wins by seat) and ``read_tournament`` a tournament (faults by player
and kind) equal a count of every stored move and result of the finished games, before any fold, between folds and
after all, and after a reset and a count from scratch; a tournament game over before its result waits
for it; cancelled and running games never count; two folds racing count each game once; buckets round answer times
up to three significant digits and the percentiles read from them are nearest-rank."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, insert, select, union_all, update
from sqlalchemy.orm import Session, sessionmaker

from benchmarks.standings import seed_pool
from store import bottallies
from store.database import make_engine, sessions
from store.models import ActionRecord, Bot, BotTally, Game, Player, Result, Seat, TournamentGame, now
from tests.databases import index_plan
from tournament.play.writes import writing

FAULTS = ("timeout", "status", "illegal", "forfeit")


@pytest.fixture
def store(database_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(database_url)
    yield sessions(engine)
    engine.dispose()


def seed(session: Session, results: int = 40, spare: int = 6) -> None:
    """A tournament of ``results`` finished games and ``spare`` running ones (2 seats, 4 bots), every game with
    seats and moves (faults, forfeits, answer times, pull moves without one); two of the running games are then
    made an untimed game of nobody's tournament (over) and a cancelled one."""
    rng = random.Random(7)
    seed_pool(session, results, 4, spare=spare, seats=2)
    players = {bot.id: bot.player_id for bot in session.scalars(select(Bot))}
    moment = now()
    for game_id, bot_ids in session.execute(select(TournamentGame.game_id, TournamentGame.bot_ids)):
        session.execute(
            insert(Seat),
            [
                {"game_id": game_id, "seat": seat, "player_id": players[bot], "taken_at": moment}
                for seat, bot in enumerate(bot_ids)
            ],
        )
        moves = []
        for ply in range(rng.randint(3, 30)):
            fault = rng.choice(FAULTS) if rng.random() < 0.2 else None
            latency = None if rng.random() < 0.1 else round(rng.uniform(0.05, 900), rng.choice((0, 1, 3)))
            moves.append(
                {
                    "game_id": game_id,
                    "ply": ply,
                    "seat": ply % 2,
                    "action": "x",
                    "latency_ms": latency,
                    "fault": fault,
                    "created_at": moment,
                }
            )
        session.execute(insert(ActionRecord), moves)
    running = list(session.scalars(select(Game.id).where(Game.status != "over").order_by(Game.id)))
    session.execute(update(TournamentGame).where(TournamentGame.game_id.in_(running[:2])).values(game_id=None))
    session.execute(update(Game).where(Game.id == running[0]).values(status="over"))
    session.execute(update(Game).where(Game.id == running[1]).values(status="cancelled"))
    session.commit()


def counted(session: Session, player_id: int) -> bottallies.Tallies:
    """The player's tallies counted from every stored move and result of its finished games."""
    expected = bottallies.Tallies()
    seats = session.execute(
        select(Seat.game_id, Seat.seat)
        .join(Game, Game.id == Seat.game_id)
        .where(Seat.player_id == player_id, Game.status == "over")
    ).all()
    faults: Counter[str] = Counter()
    latencies: list[float] = []
    for game_id, seat in seats:
        expected.games += 1
        for fault, latency in session.execute(
            select(ActionRecord.fault, ActionRecord.latency_ms).where(
                ActionRecord.game_id == game_id, ActionRecord.seat == seat
            )
        ):
            if fault == "forfeit":
                continue
            if fault is not None:
                faults[fault] += 1
            if latency is not None:
                latencies.append(latency)
        ranks = session.scalar(select(Result.ranks).where(Result.game_id == game_id))
        if ranks is not None:
            expected.seat_games[seat] = expected.seat_games.get(seat, 0) + 1
            if ranks[seat] == min(ranks) and ranks.count(min(ranks)) == 1:
                expected.seat_wins[seat] = expected.seat_wins.get(seat, 0) + 1
    expected.faults = dict(sorted(faults.items(), key=lambda item: (-item[1], item[0])))
    expected.latency = dict(sorted(Counter(bottallies.bucket(latency) for latency in latencies).items()))
    return expected


def tournament_counted(session: Session, tournament_id: int) -> dict[int, dict[str, int]]:
    """The tournament's faults by player and kind, counted from every move of its games with a result."""
    found: dict[int, Counter[str]] = {}
    for player, fault in session.execute(
        select(Seat.player_id, ActionRecord.fault)
        .join(ActionRecord, (ActionRecord.game_id == Seat.game_id) & (ActionRecord.seat == Seat.seat))
        .join(Result, Result.game_id == Seat.game_id)
        .where(Result.tournament_id == tournament_id, ActionRecord.fault.is_not(None))
    ):
        if fault != "forfeit":
            found.setdefault(player, Counter())[fault] += 1
    return {player: dict(sorted(faults.items())) for player, faults in sorted(found.items())}


def tournaments(session: Session) -> dict[int, dict[int, dict[str, int]]]:
    """Every tournament's faults as ``read_tournament`` gives them."""
    ids = session.scalars(select(Result.tournament_id).distinct())
    return {tournament: bottallies.read_tournament(session, tournament) for tournament in ids}


def players(session: Session) -> list[int]:
    return sorted(session.scalars(select(Bot.player_id)))


def untallied(session: Session) -> int:
    return session.scalar(select(func.count()).where(Game.status == "over", Game.tallied.is_(False))) or 0


def test_what_a_player_reads_is_every_finished_game_counted_before_between_and_after_folds(
    store: sessionmaker[Session],
) -> None:
    with store() as session:
        seed(session)
        expected = {player: counted(session, player) for player in players(session)}
        assert sum(tallies.games for tallies in expected.values()) == 2 * 41  # 40 results and the untimed game
        assert all(tallies.faults and tallies.latency and tallies.seat_wins for tallies in expected.values())
        assert {player: bottallies.read(session, player) for player in players(session)} == expected
        faults = {tournament: tournament_counted(session, tournament) for tournament in tournaments(session)}
        assert len(faults) == 1 and all(faults.values()) and tournaments(session) == faults

        assert bottallies.fold(session, limit=7) == 7
        assert {player: bottallies.read(session, player) for player in players(session)} == expected
        assert tournaments(session) == faults
        assert bottallies.fold_all(session, seconds=60) == 41 - 7
        assert bottallies.fold(session) == 0
        assert untallied(session) == 0
        assert {player: bottallies.read(session, player) for player in players(session)} == expected
        assert tournaments(session) == faults
        assert bottallies.read_tournament(session, 999) == {}

        bottallies.reset(session)  # a count from scratch: the same figures, from the moves, then folded again
        assert untallied(session) == 41 and not session.scalars(select(BotTally.count)).all()
        assert {player: bottallies.read(session, player) for player in players(session)} == expected
        assert bottallies.fold_all(session, seconds=60) == 41
        assert {player: bottallies.read(session, player) for player in players(session)} == expected
        assert tournaments(session) == faults


def test_a_tournament_game_over_before_its_result_waits_for_it(store: sessionmaker[Session]) -> None:
    with store() as session:
        seed(session)
        bottallies.fold_all(session, seconds=60)
        scheduled = session.scalars(
            select(TournamentGame).where(TournamentGame.status == "running", TournamentGame.game_id.is_not(None))
        ).first()
        assert scheduled is not None and scheduled.game_id is not None
        session.execute(update(Game).where(Game.id == scheduled.game_id).values(status="over"))
        session.commit()
        assert bottallies.fold(session) == 0  # its result is not written yet
        tournament_id = session.scalar(select(Result.tournament_id))
        scheduled.status = "done"
        session.add(
            Result(
                tournament_game_id=scheduled.id,
                tournament_id=tournament_id,
                game_id=scheduled.game_id,
                game="card",
                variant="standard",
                rated=False,
                bot_ids=scheduled.bot_ids,
                version_ids=[None, None],
                ranks=[1, 0],
                reason="finished",
                forfeited=[],
                faults=[0, 0],
                moves=3,
                finished_at=now(),
            )
        )
        session.commit()
        assert bottallies.fold(session) == 1
        for player in players(session):
            assert bottallies.read(session, player) == counted(session, player)
        assert tournaments(session) == {tournament_id: tournament_counted(session, tournament_id)}


def test_two_folds_racing_count_each_game_once(store: sessionmaker[Session]) -> None:
    with store() as session:
        seed(session, results=120)
        expected = {player: counted(session, player) for player in players(session)}
        faults = {tournament: tournament_counted(session, tournament) for tournament in tournaments(session)}
    errors: list[BaseException] = []

    def folding() -> None:
        try:
            with store() as session:
                while untallied(session):
                    with writing(session):
                        bottallies.fold(session, limit=5)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=folding) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    with store() as session:
        assert untallied(session) == 0
        stored = Counter(
            {
                (player, measure, key): count
                for player, measure, key, count in session.execute(select(*BotTally.__table__.c))
            }
        )
        assert sum(stored[(player, bottallies.GAMES, "")] for player in expected) == 2 * 121
        assert {player: bottallies.read(session, player) for player in players(session)} == expected
        assert tournaments(session) == faults


def test_a_game_another_fold_took_meanwhile_is_counted_by_that_fold_only(
    store: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    with store() as session:
        seed(session, results=10, spare=2)
        first = session.scalar(select(func.min(Game.id)).where(Game.status == "over"))
    counting = bottallies.tally

    def raced(session: Session, game_ids: Any, *args: Any, **kwargs: Any) -> bottallies.Counted:
        if (
            first in game_ids
        ):  # another process marks the first game (and would add it) between the read and the mark
            with store() as other:
                other.execute(update(Game).where(Game.id == first).values(tallied=True))
                other.commit()
        return counting(session, game_ids, *args, **kwargs)

    monkeypatch.setattr(bottallies, "tally", raced)
    with store() as session:
        assert bottallies.fold(session) == 10
        stored = session.scalars(select(BotTally.count).where(BotTally.measure == bottallies.GAMES)).all()
        assert sum(stored) == 2 * 10  # eleven finished games, the first left to the other fold


def test_buckets_round_up_to_three_significant_digits_and_percentiles_are_nearest_rank() -> None:
    assert [bottallies.bucket(ms) for ms in (0.0001, 0.1, 0.3, 1.001, 12.345, 99.95, 512, 512.3)] == [
        1,
        100,
        300,
        1010,
        12400,
        100000,
        512000,
        513000,
    ]
    times = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 250.0, 1200.0]
    tallies = bottallies.Tallies(latency=dict(sorted(Counter(map(bottallies.bucket, times)).items())))
    for percentile in (50, 95, 99):
        exact = sorted(times)[max(1, -(-percentile * len(times) // 100)) - 1]
        assert tallies.percentile(percentile) == exact
    assert bottallies.Tallies().percentile(50) is None
    unround = bottallies.Tallies(latency={bottallies.bucket(12.345): 1})
    assert unround.percentile(50) == 12.4 and 12.345 <= 12.4 <= 12.345 * 1.01


def test_a_player_never_seated_reads_nothing(store: sessionmaker[Session]) -> None:
    with store() as session:
        seed(session, results=3, spare=2)
        alone = Player(name="alone", token_hash="h")
        session.add(alone)
        session.commit()
        assert bottallies.read(session, alone.id) == bottallies.Tallies()


def test_the_folds_and_reads_find_the_waiting_games_along_the_partial_index(store: sessionmaker[Session]) -> None:
    """Both planners can use ``ix_games_untallied`` for what the fold and the reads ask (with ``tallied IS false``
    or a bound ``tallied = 0`` neither could, and each scanned every finished game for every batch)."""
    with store() as session:
        seed(session, results=3, spare=2)
        bind = session.get_bind()
        queries = [
            bottallies._waiting().order_by(Game.id).limit(bottallies.FOLD_BATCH),
            select(Game.id).where(bottallies.UNTALLIED),
        ]
        for query in queries:
            plan = index_plan(session, query)
            assert "ix_games_untallied" in plan, plan
            session.rollback()
        if bind.dialect.name == "sqlite":  # no statistics: the read must start from the games waiting
            reading = union_all(*bottallies._counting(bottallies.UNTALLIED, 1, games_first=True)).compile(bind)
            values = tuple(reading.params[name] for name in reading.positiontup or ())
            plan = [
                row[3] for row in session.connection().exec_driver_sql(f"EXPLAIN QUERY PLAN {reading}", values)
            ]
            searches = [line for line in plan if line.startswith(("SEARCH", "SCAN"))]
            assert searches[0].startswith("SEARCH games USING INDEX ix_games_untallied"), plan
