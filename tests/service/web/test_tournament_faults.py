"""A tournament's page counts each bot's faults by kind (``bot_stats.tournament_faults``: one grouped count): after
two real tournaments between push bots, one raising now and then (``status`` faults) and one answering an id that
was not offered now and then (``illegal``), the first tournament's table holds exactly the faults its own finished
games stored, per bot and kind (the second tournament's are not in it), with a total per bot; a tournament without
faults says so. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import select

from store.models import ActionRecord, Bot, Result, Seat
from tests.apikit import new_player
from tests.arenakit import create_tournament, push_bots, random_choice, register, wait_done
from tests.service.web.webkit import elements, page

CARD = {"game": "card", "settings": {"players": 2, "pawns": 2}, "move_timeout_ms": 20_000}
"""Card games of two seats; a move's deadline long enough that no bot times out on a loaded machine (the faults
counted are the ones the bots make on purpose)."""


def raising(request: dict[str, Any]) -> str:
    if request["ply"] % 7 == 3:
        raise RuntimeError("odd ply")  # a status fault, never three in a row
    return random_choice(request)


def wrong(request: dict[str, Any]) -> str:
    return "nonsense" if request["ply"] % 5 == 2 else random_choice(request)


def stored_faults(app: Flask, tournament_id: int) -> Counter[tuple[int, str]]:
    """(bot id, kind) of every fault of the tournament's finished games, read move by move."""
    with app.extensions["db_sessions"]() as session:
        rows = session.execute(
            select(Bot.id, ActionRecord.fault)
            .join(Seat, Seat.player_id == Bot.player_id)
            .join(ActionRecord, (ActionRecord.game_id == Seat.game_id) & (ActionRecord.seat == Seat.seat))
            .join(Result, Result.game_id == ActionRecord.game_id)
            .where(Result.tournament_id == tournament_id, ActionRecord.fault.is_not(None))
        ).all()
    return Counter((bot_id, fault) for bot_id, fault in rows if fault != "forfeit")


def fault_table(html: str, kinds: list[str]) -> tuple[Counter[tuple[int, str]], dict[int, int]]:
    """The counts the page's faults table shows, per (bot id, kind), and each bot's total."""
    table = html.split('<table class="list faults" id="faults">')[1].split("</table>")[0]
    shown: Counter[tuple[int, str]] = Counter()
    totals = {}
    for row in table.split("<tr ")[1:]:  # the body rows (the header row has no attribute)
        bot_id = int(elements("<tr " + row, "tr")[0]["data-bot-id"])
        totals[bot_id] = int(elements("<tr " + row, "tr")[0]["data-total"])
        assert int(row.split('<td class="num total">')[1].split("<")[0]) == totals[bot_id]
        for kind in kinds:
            shown[(bot_id, kind)] += int(elements(row, "td", data_fault=kind)[0]["data-count"])
    return +shown, totals


def test_the_tournament_page_counts_faults_by_kind_and_bot(app: Flask, client: FlaskClient) -> None:
    owner = new_player(client, "owner")
    with push_bots(raising, wrong, random_choice) as servers:
        bots = [
            register(client, owner, name, server.url)["id"]
            for name, server in zip(("raising", "wrong", "steady"), servers, strict=True)
        ]
        first = create_tournament(client, owner, bots, rounds=1, **CARD)["id"]
        second = create_tournament(client, owner, bots[:2], rounds=2, **CARD)["id"]
        wait_done(client, first)
        wait_done(client, second)

    expected = stored_faults(app, first)
    assert {kind for _, kind in expected} == {"status", "illegal"}
    assert stored_faults(app, second), "the second tournament has faults of its own"
    html = page(client, f"/tournaments/{first}")
    assert "Faults by kind" in html
    headers = [cell["data-fault"] for cell in elements(html, "th", data_fault="*")]
    assert headers == ["illegal", "status"]
    shown, totals = fault_table(html, headers)
    assert shown == expected
    assert totals == {bot_id: sum(n for (bot, _), n in expected.items() if bot == bot_id) for bot_id in bots}
    assert totals[bots[2]] == 0 and totals[bots[0]] > 0 and totals[bots[1]] > 0  # the steady bot: zeros
    french = page(client, f"/tournaments/{first}?lang=fr")
    assert "Fautes par type" in french and "coup illégal" in french and str(escape("statut d'erreur")) in french
    live = page(client, f"/tournaments/{first}/live")
    assert 'id="faults"' in live  # the part that updates while the tournament runs


def test_a_tournament_without_faults_says_so(app: Flask, client: FlaskClient) -> None:
    owner = new_player(client, "owner")
    with push_bots(random_choice, random_choice) as servers:
        bots = [register(client, owner, f"bot{n}", server.url)["id"] for n, server in enumerate(servers)]
        created = create_tournament(client, owner, bots, rounds=1, **CARD)["id"]
        wait_done(client, created)
    html = page(client, f"/tournaments/{created}")
    assert "No fault in the finished games." in html and 'id="faults"' not in html
