"""What a pull bot's owner sees of its faults: a move that came after its deadline is refused with how late it
came, which the timeout fault's detail keeps and the client logs at the default level; the bot's health (its page
and ``GET /api/v1/bots/{id}``) counts its faults and forfeits in its last games instead of saying "healthy"."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from sqlalchemy import select

from clients.pull import PullClient
from store.models import ActionRecord
from tests.apikit import API, SQLITE_ONLY, new_player
from tests.arenakit import Running, create_tournament, push_bots, random_choice, register, wait_done, wait_for
from tests.clients.conftest import Service


def fault_detail(service: Service, game_id: int, ply: int) -> str | None:
    with service.app.extensions["db_sessions"]() as session:
        return session.scalar(
            select(ActionRecord.fault_detail).where(ActionRecord.game_id == game_id, ActionRecord.ply == ply)
        )


LIMIT_MS = 3000
"""The late test's move limit: only the decision the test holds back misses it, whatever the machine's load."""


def test_a_late_move_says_how_late_it_came(service: Service, caplog: pytest.LogCaptureFixture) -> None:
    """The bot's first decision is answered only once the worker has recorded its timeout (whatever the
    machine's load): the move is refused with how late it came, noted once on the fault."""
    caplog.set_level(logging.INFO, logger="clients.pull")
    owner = new_player(service.client, "owner")
    late: list[tuple[int, int]] = []

    def first_late(request: dict[str, Any]) -> str:
        if not late:
            late.append((request["game_id"], request["ply"]))
            wait_for("the timeout fault", lambda: fault_detail(service, *late[0]))
        return random_choice(request)

    with push_bots(random_choice) as servers:
        pusher = register(service.client, owner, "pusher", servers[0].url)
        puller = register(service.client, owner, "puller", None)
        running = Running(PullClient(first_late, service.url, puller["token"], wait=1), max_games=2)
        created = create_tournament(
            service.client, owner, [pusher["id"], puller["id"]], game="card", move_timeout_ms=LIMIT_MS
        )
        wait_done(service.client, created["id"])
        stats = running.join()
    game_id, ply = late[0]
    detail = fault_detail(service, game_id, ply)
    assert detail is not None
    found = re.fullmatch(r"no move within the move timeout of \d+ ms \(late by (\d+) ms\)", detail)
    assert found, detail
    assert int(found[1]) >= 0
    # the owner reads it with the fault; the client said it at the default level, with the same game and ply
    faults = service.client.get(f"{API}/bots/{puller['id']}/faults", headers=owner.headers).get_json()["faults"]
    assert any(fault["detail"] == detail for fault in faults), faults
    # the one made late, and (on a machine loaded enough to miss a 3 s limit) maybe another: each refused and counted
    assert stats.late >= 1 and stats.conflicts >= 1
    lines = [r for r in caplog.records if r.name == "clients.pull" and r.levelno == logging.WARNING]
    assert any(f"game {game_id} ply {ply}: late by " in r.getMessage() for r in lines), caplog.text
    assert any("your move came late by" in r.getMessage() for r in lines), caplog.text


@SQLITE_ONLY
def test_a_second_late_post_for_the_ply_leaves_the_detail_as_it_was(service: Service) -> None:
    """Noted once: the same move posted again later does not change (nor lengthen) the detail."""
    owner = new_player(service.client, "owner")
    puller = register(service.client, owner, "puller", None)
    with push_bots(random_choice) as servers:
        pusher = register(service.client, owner, "pusher", servers[0].url)
        created = create_tournament(
            service.client, owner, [pusher["id"], puller["id"]], game="card", move_timeout_ms=100, rounds=1
        )
        done = wait_done(service.client, created["id"])  # no client: every turn of the puller times out
    headers = {"Authorization": f"Bearer {puller['token']}"}
    result = done["results"][0]
    game_id = result["game_id"]
    seat = result["bot_ids"].index(puller["id"])
    with service.app.extensions["db_sessions"]() as session:
        ply = session.scalar(
            select(ActionRecord.ply)
            .where(ActionRecord.game_id == game_id, ActionRecord.seat == seat, ActionRecord.fault == "timeout")
            .order_by(ActionRecord.ply)
            .limit(1)
        )
    assert ply is not None
    answers = [
        service.client.post(
            f"{API}/games/{game_id}/actions", json={"action": "x", "expected_ply": ply}, headers=headers
        )
        for _ in range(2)
    ]
    assert [answer.status_code for answer in answers] == [409, 409]
    assert "late by" in answers[0].get_json()["message"]
    assert "late by" not in answers[1].get_json()["message"]
    detail = fault_detail(service, game_id, ply)
    assert detail is not None and detail.count("late by") == 1


def test_a_pull_bot_that_forfeits_is_not_called_healthy(service: Service) -> None:
    """A pull bot that never answers forfeits each game (three timeouts in a row); a push bot that answers is
    healthy, with no fault in its last games."""
    owner = new_player(service.client, "owner")
    puller = register(service.client, owner, "absent", None)
    with push_bots(random_choice) as servers:
        pusher = register(service.client, owner, "present", servers[0].url)
        created = create_tournament(
            service.client, owner, [pusher["id"], puller["id"]], game="card", move_timeout_ms=50
        )
        done = wait_done(service.client, created["id"])
    assert all(result["forfeited"] for result in done["results"])
    absent = service.client.get(f"{API}/bots/{puller['id']}").get_json()["recent"]
    assert absent == {"games": 2, "faults": 6, "forfeits": 2}
    present = service.client.get(f"{API}/bots/{pusher['id']}").get_json()["recent"]
    assert present == {"games": 2, "faults": 0, "forfeits": 0}
    page = service.client.get(f"/bots/{puller['id']}").get_data(as_text=True)
    health = re.search(r'<td class="health"[^>]*>(.*?)</td>', page, re.S)
    assert health is not None
    assert "healthy" not in health[1]
    assert "6 faults and 2 forfeits in its last 2 games" in health[1]
    page = service.client.get(f"/bots/{pusher['id']}").get_data(as_text=True)
    health = re.search(r'<td class="health"[^>]*>(.*?)</td>', page, re.S)
    assert health is not None
    assert "healthy" in health[1] and "no fault in its last 2 games" in health[1]
    french = service.client.get(f"/bots/{puller['id']}?lang=fr").get_data(as_text=True)
    assert "6 fautes et 2 forfaits dans ses 2 parties les plus récentes" in french
