"""``GET /api/v1/ready`` against real servers: 200 while the database and Redis answer; 503 naming Redis, then the
database, within 2 s of each one's stop (the first request after it); 200 again once each is back. Liveness
(``/api/v1/health``) answers throughout. An app pointed at a port where nothing listens is not ready either."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from runtime import release
from runtime.settings import Settings
from service.app import create_app
from tests.conftest import TEST_LIMITS, dispose
from tests.reliability.harness import record
from tests.reliability.servers import PrivatePostgres, PrivateRedis
from tests.servers import free_port

OUTAGE_S = 2.0
"""The longest readiness may take to say an outage."""
BACK_S = 60.0


@pytest.fixture
def client(private_postgres: PrivatePostgres, private_redis: PrivateRedis) -> Iterator[FlaskClient]:
    if private_redis.process is None or private_redis.process.poll() is not None:
        private_redis.start()  # a test that failed mid-restart left it down
    app = create_app(
        Settings(database_url=private_postgres.new_database(), redis_url=private_redis.url, **TEST_LIMITS)
    )
    try:
        yield app.test_client()
    finally:
        dispose(app)


def ready(client: FlaskClient) -> tuple[int, dict[str, Any], float]:
    started = time.monotonic()
    response = client.get("/api/v1/ready")
    return response.status_code, response.get_json(), time.monotonic() - started


def wait_ready(client: FlaskClient) -> None:
    deadline = time.monotonic() + BACK_S
    while (answer := ready(client))[0] != 200:
        assert time.monotonic() < deadline, answer
        time.sleep(0.2)
    assert answer[1] == {
        "ready": True,
        "version": release.version(),
        "checks": {"database": "ok", "redis": "ok", "migrations": "ok"},
    }


def test_readiness_fails_within_2_s_of_each_outage_and_recovers(
    client: FlaskClient, private_postgres: PrivatePostgres, private_redis: PrivateRedis
) -> None:
    wait_ready(client)

    private_redis.stop()
    try:
        status, body, took = ready(client)
        assert status == 503 and body["ready"] is False, body
        assert body["checks"]["redis"].startswith("cannot connect: "), body
        assert body["checks"]["database"] == "ok" and body["checks"]["migrations"] == "ok", body
        assert took < OUTAGE_S, took
        record("ready_redis_down_s", round(took, 3))
        assert client.get("/api/v1/health").status_code == 200  # liveness touches nothing
    finally:
        private_redis.start()
    wait_ready(client)

    private_postgres.stop()
    try:
        status, body, took = ready(client)
        assert status == 503 and body["ready"] is False, body
        assert body["checks"]["database"].startswith("cannot connect: "), body
        assert body["checks"]["redis"] == "ok", body
        assert "postgres@" not in str(body) and "postgresql" not in str(body)  # no URL in the answer
        assert took < OUTAGE_S, took
        record("ready_database_down_s", round(took, 3))
    finally:
        private_postgres.start()
    wait_ready(client)


def test_an_app_pointed_at_a_dead_port_is_not_ready(private_redis: PrivateRedis) -> None:
    url = f"postgresql+psycopg://postgres:secret-pw@127.0.0.1:{free_port()}/arena"
    app = create_app(Settings(database_url=url, redis_url=private_redis.url, **TEST_LIMITS))
    try:
        status, body, took = ready(app.test_client())
    finally:
        dispose(app)
    assert status == 503 and body["checks"]["database"].startswith("cannot connect: "), body
    assert body["checks"]["migrations"] == "not checked: the database does not answer", body
    assert "secret-pw" not in str(body)
    assert took < OUTAGE_S, took
