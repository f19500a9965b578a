"""Stored times are aware UTC datetimes on both databases (``store.models.base.UTCDateTime``): every
``DateTime(timezone=True)`` column of the models is one, a time written in any zone (or naive, taken as UTC) reads
back as the same instant in UTC, and the API's answers after a read carry ``+00:00`` on SQLite as on PostgreSQL,
as its creation answers do. The database type is unchanged (tests/store/test_migrations.py compares the migrated
schema with the models, tests/cli/test_db_check.py the same through ``sorry-arena db check``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
from flask.testing import FlaskClient
from sqlalchemy import DateTime, create_engine, select, text
from sqlalchemy.orm import Mapped, Session, mapped_column

from store.models import Base, Player
from store.models.base import UTCDateTime
from tests.apikit import API, create_game, new_player

PARIS_SUMMER = timezone(timedelta(hours=2))


def test_every_datetime_column_of_the_models_is_a_utc_datetime() -> None:
    columns = [(table.name, column) for table in Base.metadata.tables.values() for column in table.columns]
    times = [(name, column.name) for name, column in columns if isinstance(column.type, UTCDateTime | DateTime)]
    assert len(times) >= 10
    naive = [(name, column.name) for name, column in columns if isinstance(column.type, DateTime)]
    assert naive == [], "a DateTime column that is not a UTCDateTime: its SQLite reads would lose the zone"


def test_a_model_declared_later_gets_utc_datetimes_too() -> None:
    from sqlalchemy import MetaData
    from sqlalchemy.orm import DeclarativeBase

    class Scratch(Base):  # its own metadata: the models' stays as it is
        __abstract__ = True
        metadata = MetaData()

    class Later(Scratch):
        __tablename__ = "later"
        id: Mapped[int] = mapped_column(primary_key=True)
        spelled: Mapped[datetime] = mapped_column(DateTime(timezone=True))
        annotated: Mapped[datetime | None] = mapped_column()
        local: Mapped[datetime | None] = mapped_column(DateTime(timezone=False))

    table = Later.__table__
    assert isinstance(table.c.spelled.type, UTCDateTime) and isinstance(table.c.annotated.type, UTCDateTime)
    assert type(table.c.local.type) is DateTime, "a column without a zone is left as it was declared"
    assert issubclass(Base, DeclarativeBase)


@pytest.fixture
def session(database_url: str) -> Iterator[Session]:
    engine = create_engine(database_url)
    with Session(engine) as session:
        yield session
    engine.dispose()


def test_a_time_in_any_zone_reads_back_as_the_same_instant_in_utc(session: Session) -> None:
    written = datetime(2030, 7, 1, 14, 30, 15, 250_000, tzinfo=PARIS_SUMMER)
    session.add_all(
        [
            Player(name="paris", token_hash="a" * 64, created_at=written),
            Player(name="naive", token_hash="b" * 64, created_at=datetime(2030, 7, 1, 12, 30)),
        ]
    )
    session.commit()
    session.expunge_all()
    read = {name: moment for name, moment in session.execute(select(Player.name, Player.created_at))}
    assert read["paris"] == written and read["paris"].utcoffset() == timedelta(0)
    assert read["paris"].isoformat() == "2030-07-01T12:30:15.250000+00:00"
    assert read["naive"].isoformat() == "2030-07-01T12:30:00+00:00", "a naive time is taken to be UTC"
    stored = session.execute(text("SELECT created_at FROM players WHERE name = 'paris'")).scalar_one()
    shown = stored if isinstance(stored, str) else stored.astimezone(UTC).isoformat()
    assert "12:30:15.25" in shown, "stored as the UTC instant, not Paris's wall clock"
    found = session.execute(select(Player.name).where(Player.created_at == written)).scalars().all()
    assert found == ["paris"], "a time compared in a query is converted as a written one is"


def assert_utc(value: str) -> None:
    assert value.endswith("+00:00"), value
    assert datetime.fromisoformat(value).utcoffset() == timedelta(0)


def test_the_apis_answers_carry_the_zone_after_a_read(client: FlaskClient) -> None:
    owner = new_player(client, "owner")
    bots = []
    for name in ("ada", "bob"):
        created = client.post(f"{API}/bots", json={"name": name, "games": ["card"]}, headers=owner.headers)
        assert created.status_code == 201, created.get_data(as_text=True)
        assert_utc(created.get_json()["created_at"])
        bots.append(created.get_json()["id"])
    read = client.get(f"{API}/bots/{bots[0]}").get_json()
    assert_utc(read["created_at"])
    assert all(bot["created_at"].endswith("+00:00") for bot in client.get(f"{API}/bots").get_json()["bots"])

    game = create_game(client, owner)
    assert_utc(game["created_at"])
    assert_utc(client.get(f"{API}/games/{game['id']}").get_json()["created_at"])

    body = {"name": "times", "game": "card", "bot_ids": bots, "move_timeout_ms": 60_000, "seed": 1}
    tournament = client.post(f"{API}/tournaments", json=body, headers=owner.headers)
    assert tournament.status_code == 201, tournament.get_data(as_text=True)
    assert_utc(tournament.get_json()["created_at"])
    read = client.get(f"{API}/tournaments/{tournament.get_json()['id']}").get_json()
    assert_utc(read["created_at"])
    listed = client.get(f"{API}/tournaments").get_json()
    assert all(item["created_at"].endswith("+00:00") for item in listed["tournaments"])
