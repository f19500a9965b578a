"""Accounts against each other: secrets are stored and compared safely, and no account can act for
another, nor read another seat's hand, through any endpoint.

- Tokens: the database holds only their SHA-256 (every text cell of every table is searched for the tokens);
  a presented token is looked up by its hash in the database, and no secret is compared with ``==`` anywhere in
  the code (an AST scan, with the two reviewed exceptions named). A bot's secret is kept, since the service signs
  with it, but shown only when it is made; signatures are checked with ``hmac.compare_digest`` on both sides.
- Acting: in a 3-seat game, every seat not asked and an outsider submit each of the asked seat's legal actions at
  the right ply: 409 or 403, and the game, its events and its action log stay as they were.
- Reading: with the token of the player at seat 1, every endpoint that shows games, hands, actions, decisions or
  events (list, filters, ETags, the answers to its moves, its errors) shows exactly seat 1's engine view, never seat
  0's hand nor a private event of another seat. ``tests/service/test_hidden.py`` plays whole games checking every
  seat's game, actions, events and errors; this adds the other endpoints, the bots and the tournaments.
- Bots: a bot's URL only to its owner, its secret to no one after it is made. Tournaments: the seed, from which
  every game's deal derives, stays hidden until no game it decides can still be played.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import json
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import MetaData, create_engine, func, select

import engine
from botlink import signing
from clients import signature
from service import auth
from store.models import ActionRecord, Tournament
from tests.apikit import (
    API,
    SQLITE_ONLY,
    Player,
    as_json,
    get_actions,
    get_game,
    new_player,
    started_game,
    submit,
)
from tests.arenakit import arena_app, push_bots, random_choice, register
from tests.conftest import dispose
from tournament.plans.schedule import schedule

ROOT = Path(__file__).resolve().parents[2]


# --- secrets at rest ------------------------------------------------------------------------------------------


def every_cell(database_url: str) -> Iterator[tuple[str, str, str]]:
    """(table, column, the value as text) of every cell of every table in the database, found by reflection."""
    db = create_engine(database_url)
    try:
        metadata = MetaData()
        metadata.reflect(db)
        with db.connect() as connection:
            for table in metadata.sorted_tables:
                for row in connection.execute(select(table)):
                    for column, value in row._mapping.items():
                        text = value if isinstance(value, str) else json.dumps(value, default=str)
                        yield table.name, column, text
    finally:
        db.dispose()


def test_the_database_holds_no_token_only_its_hash(client: FlaskClient, database_url: str) -> None:
    game_id, players = started_game(client, "card", {"pawns": 2}, seats=2, seed=3)
    seat = get_game(client, game_id)["view"]["decision"]["seat"]
    action = get_actions(client, game_id, players[seat])["actions"][0]["id"]
    assert submit(client, game_id, players[seat], action, 0).status_code == 200
    bot = client.post(f"{API}/bots", json={"name": "puller", "games": ["card"]}, headers=players[0].headers)
    assert bot.status_code == 201
    tokens = [player.token for player in players] + [bot.get_json()["token"]]
    assert all(token.startswith(auth.TOKEN_PREFIX) and len(token) > 40 for token in tokens)

    cells = list(every_cell(database_url))
    tables = {table for table, _, _ in cells}
    assert {"players", "games", "seats", "actions", "bots"} <= tables
    for token in tokens:
        secret_part = token.removeprefix(auth.TOKEN_PREFIX)
        found = [(table, column) for table, column, text in cells if secret_part in text]
        assert found == [], f"a token is stored in plain text in {found}"
    stored = {text for table, column, text in cells if (table, column) == ("players", "token_hash")}
    assert {hashlib.sha256(token.encode()).hexdigest() for token in tokens} <= stored


def test_a_bot_secret_is_kept_for_signing_and_shown_only_when_made(client: FlaskClient, database_url: str) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    secret = "k" * 48
    made = client.post(
        f"{API}/bots", json={"name": "puller", "games": ["board"], "secret": secret}, headers=ada.headers
    )
    assert made.status_code == 201 and made.get_json()["secret"] == secret
    bot_id, bot_token = made.get_json()["id"], made.get_json()["token"]
    bot_account = {"Authorization": f"Bearer {bot_token}"}

    # kept in the bots table (the service signs its requests with it), and nowhere else
    holders = [(table, column) for table, column, text in every_cell(database_url) if secret in text]
    assert holders == [("bots", "secret")]

    answers = []
    for headers in ({}, ada.headers, bob.headers, bot_account):
        answers.append(client.get(f"{API}/bots", headers=headers))
        answers.append(client.get(f"{API}/bots/{bot_id}", headers=headers))
    answers.append(client.patch(f"{API}/bots/{bot_id}", json={"name": "renamed"}, headers=ada.headers))
    for headers in (bob.headers, bot_account):
        answers.append(client.patch(f"{API}/bots/{bot_id}", json={"secret": "z" * 40}, headers=headers))
    for response in answers:
        assert response.status_code in (200, 403), response.get_data(as_text=True)
        assert secret not in response.get_data(as_text=True) and '"secret"' not in response.get_data(as_text=True)
    new_secret = "m" * 48  # a rotation: the owner's new secret (a pull bot's is not proved)
    rotated = client.patch(f"{API}/bots/{bot_id}", json={"secret": new_secret}, headers=ada.headers)
    assert rotated.status_code == 200 and new_secret not in rotated.get_data(as_text=True)
    assert new_secret not in client.get(f"{API}/bots/{bot_id}", headers=ada.headers).get_data(as_text=True)
    holders = [(table, column) for table, column, text in every_cell(database_url) if new_secret in text]
    assert holders == [("bots", "secret")]


# --- secrets compared -----------------------------------------------------------------------------------------

SECRET_NAME = re.compile(r"(?i)token|secret|signature|digest|password|passwd|hmac|\bmac\b")
REVIEWED_EQUALITIES = {
    # SQL, not Python: the database finds the player by the token's hash (an index lookup, no secret byte compared)
    ("service/auth.py", "Player.token_hash == param('token_hash')"),
    # two secrets of the service's own (a rotated one and the stored one), nothing the caller sent
    ("service/api/bots.py", "secret != bot.secret"),
}


def secret_equalities() -> set[tuple[str, str]]:
    """Every ``==`` / ``!=`` in our code with an operand that names a secret (token, secret, signature...)."""
    found = set()
    for package in ("service", "tournament", "clients", "cli", "store", "botlink", "runtime", "ratings"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Compare) or not any(
                    isinstance(o, ast.Eq | ast.NotEq) for o in node.ops
                ):
                    continue
                operands = [node.left, *node.comparators]
                if any(SECRET_NAME.search(ast.unparse(o)) for o in operands if not isinstance(o, ast.Constant)):
                    found.add((path.relative_to(ROOT).as_posix(), ast.unparse(node)))
    return found


def test_no_secret_is_compared_with_equality() -> None:
    assert secret_equalities() == REVIEWED_EQUALITIES


def test_a_token_is_found_by_its_hash_in_the_database(client: FlaskClient) -> None:
    where = str(auth._PLAYER_BY_HASH.whereclause)
    assert where.startswith("players.token_hash =") and "token_hash" in str(auth._PLAYER_BY_HASH.compile())
    ada = new_player(client, "ada")
    assert client.get(f"{API}/decisions", headers=ada.headers).status_code == 200
    for forged in (ada.token[:-1] + ("A" if ada.token[-1] != "A" else "B"), ada.token[:-1], ada.token + "x"):
        answer = client.get(f"{API}/decisions", headers={"Authorization": f"Bearer {forged}"})
        assert answer.status_code == 401 and answer.get_json()["message"] == "unknown token"


@pytest.mark.parametrize("side", ["service", "clients"])
def test_signatures_are_checked_in_constant_time(monkeypatch: pytest.MonkeyPatch, side: str) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def recording(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    module = signing if side == "service" else signature
    monkeypatch.setattr(module.hmac, "compare_digest", recording)
    body, now = b'{"type":"move"}', 1_700_000_000
    headers = signing.headers("k" * 40, "POST", "/bot/move", body, now=now)

    def verify(secret: str, sent: bytes) -> bool:
        if side == "service":
            return signing.verify(secret, "POST", "/bot/move", headers, sent, now=now)
        return signature.verify(secret, "POST", "/bot/move", headers, sent, now=now)

    assert verify("k" * 40, body)
    assert not verify("k" * 40, body + b" ")
    assert not verify("j" * 40, body)
    assert len(calls) == 3


# --- acting for another ---------------------------------------------------------------------------------------


def game_record(client: FlaskClient, app: Flask, game_id: int) -> tuple[Any, ...]:
    """What a refused submission must leave unchanged: the public game, its public events, its action log."""
    public = get_game(client, game_id)
    events = client.get(f"{API}/games/{game_id}/events").get_json()["events"]
    with app.extensions["db_sessions"]() as session:
        logged = session.scalar(select(func.count()).where(ActionRecord.game_id == game_id))
    return public["ply"], public["view"], events, logged


@SQLITE_ONLY
def test_no_account_can_move_for_another(app: Flask, client: FlaskClient) -> None:
    game_id, players = started_game(client, "card", {}, seats=3, seed=41)
    outsider = new_player(client, "eve")
    rng = random.Random(41)
    for ply in range(12):
        asked = get_game(client, game_id)["view"]["decision"]["seat"]  # the full game lasts longer than this
        offered = [a["id"] for a in get_actions(client, game_id, players[asked])["actions"]]
        before = game_record(client, app, game_id)
        for seat, player in enumerate([*players, outsider]):
            if seat == asked:
                continue
            for action in offered:
                refused = submit(client, game_id, player, action, ply)
                assert refused.status_code == (403 if player is outsider else 409), refused.get_json()
                smuggled = client.post(
                    f"{API}/games/{game_id}/actions",
                    json={"action": action, "expected_ply": ply, "seat": asked, "player_id": players[asked].id},
                    headers=player.headers,
                )
                assert smuggled.status_code in (403, 409, 422), smuggled.get_json()
        assert game_record(client, app, game_id) == before
        moved = submit(client, game_id, players[asked], rng.choice(offered), ply)
        assert moved.status_code == 200 and moved.get_json()["ply"] == ply + 1


# --- reading another's hand -----------------------------------------------------------------------------------


def walk(data: Any) -> Iterator[dict[str, Any]]:
    """Every object inside a JSON document."""
    if isinstance(data, dict):
        yield data
        for value in data.values():
            yield from walk(value)
    elif isinstance(data, list):
        for value in data:
            yield from walk(value)


class Reader:
    """Seat 1's player reading everything it can about a game; each answer checked against its engine view."""

    def __init__(self, client: FlaskClient, game_id: int, players: list[Player], seat: int) -> None:
        self.client, self.game_id, self.players, self.seat = client, game_id, players, seat
        self.me = players[seat]
        self.answers = 0

    def get(self, path: str, status: int = 200, **options: Any) -> Any:
        response = self.client.get(
            f"{API}{path}", headers={**self.me.headers, **options.pop("headers", {})}, **options
        )
        assert response.status_code == status, (path, response.get_data(as_text=True))
        self.answers += 1
        return response.get_json()

    def check(self, state: Any, body: Any, where: str) -> None:
        """No object anywhere in ``body`` is another seat's hand, the full state, or another seat's private event;
        every view of this game in it is exactly this seat's engine view."""
        mine = as_json(engine.view(state, self.seat))
        for found in walk(body):
            assert "hands" not in found, where
            if found.get("game_id", found.get("id")) == self.game_id and "view" in found:
                assert found["view"] == mine, where
            if "to" in found and "type" in found:
                assert found["to"] in (None, self.seat), where

    def read_everything(self, state: Any) -> None:
        game_id, seat = self.game_id, self.seat
        mine = as_json(engine.view(state, seat))
        check = self.check
        check(state, self.get(f"/games/{game_id}"), "game")
        for query in ({}, {"status": "active"}, {"player": self.players[0].id}, {"player": self.me.id}):
            listed = self.get("/games", query_string=query)
            assert any(row["id"] == game_id for row in listed), query
            check(state, listed, f"list {query}")
        for other in range(len(self.players)):
            if other != seat:
                refused = self.get(f"/games/{game_id}/hands/{other}", status=403)
                assert "cards" not in refused and set(refused) == {"code", "status", "message"}
        own = self.get(f"/games/{game_id}/hands/{seat}")
        assert own["cards"] == (mine.get("hand") or [])
        actions = self.get(f"/games/{game_id}/actions")
        assert [a["id"] for a in actions["actions"]] == [a.id for a in engine.legal_actions(state, seat)]
        check(state, actions, "actions")
        for query in ({}, {"since": 0, "limit": 1000}, {"since": 3}):
            check(state, self.get(f"/games/{game_id}/events", query_string=query), f"events {query}")
        for query in ({}, {"texts": "true"}, {"limit": 1}):
            inbox = self.get("/decisions", query_string=query)
            assert all(d["seat"] == seat for d in inbox["decisions"]), inbox
            check(state, inbox, f"decisions {query}")
        # another player's ETag gets this player its own view, never a 304 on the other's
        other = self.players[0]
        theirs = self.client.get(f"{API}/games/{game_id}", headers=other.headers)
        again = self.client.get(
            f"{API}/games/{game_id}", headers={**self.me.headers, "If-None-Match": theirs.headers["ETag"]}
        )
        assert again.status_code == 200 and again.get_json()["view"] == mine


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("game", "settings", "seats", "seed"),
    [
        pytest.param("card", {"pawns": 2}, 2, 11, id="card"),
        pytest.param("board", {"variant": "points", "turn_cap": 30}, 3, 12, id="board-points"),
    ],
)
def test_no_endpoint_shows_another_seat_its_hand(client, game, settings, seats, seed) -> None:
    game_id, players = started_game(client, game, settings, seats, seed)
    state = engine.new_game(game, get_game(client, game_id)["settings"], seed)
    reader = Reader(client, game_id, players, seat=1)
    rng = random.Random(seed)
    hidden_hand_seen = False
    for ply in range(40):
        if engine.is_over(state):
            break
        reader.read_everything(state)
        asked = engine.decision(state).seat
        legal = [a.id for a in engine.legal_actions(state, asked)]
        if asked != reader.seat:
            # acting out of turn with the asked seat's own actions: one message for all, naming no card it holds
            messages = set()
            for action in legal:
                refused = submit(client, game_id, reader.me, action, ply)
                assert refused.status_code == 409
                messages.add(refused.get_json()["message"].replace(action, "<action>"))
            assert len(messages) == 1, messages
            hidden_hand_seen |= bool(engine.view(state, asked).get("hand"))
        action = rng.choice(legal)
        moved = submit(client, game_id, players[asked], action, ply)
        assert moved.status_code == 200, moved.get_json()
        engine.apply(state, action, asked)
        if asked == reader.seat:
            reader.check(state, moved.get_json(), "the answer to its move")
    assert hidden_hand_seen and reader.answers > 100


# --- bots and tournaments -------------------------------------------------------------------------------------


@pytest.fixture
def arena(database_url: str) -> Iterator[Flask]:
    """An app that may call loopback bots and runs its jobs on its own threads."""
    app = arena_app(database_url)
    yield app
    app.extensions["queue"].wait(timeout=60)
    dispose(app)


@SQLITE_ONLY
def test_a_bots_url_is_its_owners_only_and_its_secret_no_ones(arena: Flask) -> None:
    client = arena.test_client()
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    with push_bots(random_choice) as servers:
        bot = register(client, ada, "pusher", servers[0].url)
        url, secret, bot_id = servers[0].url, bot["secret"], bot["id"]
        itself = {"Authorization": f"Bearer {bot['token']}"}
        for headers in ({}, bob.headers, itself, ada.headers):
            listed = client.get(f"{API}/bots", headers=headers)
            shown = client.get(f"{API}/bots/{bot_id}", headers=headers)
            for response in (listed, shown):
                text = response.get_data(as_text=True)
                assert response.status_code == 200 and secret not in text and '"secret"' not in text
                assert (url in text) == (headers is ada.headers), (headers, text)
        for headers in (bob.headers, itself):
            for response in (
                client.patch(f"{API}/bots/{bot_id}", json={"url": "http://127.0.0.1:9/x"}, headers=headers),
                client.patch(f"{API}/bots/{bot_id}", json={"secret": "z" * 40}, headers=headers),
                client.delete(f"{API}/bots/{bot_id}", headers=headers),
            ):
                text = response.get_data(as_text=True)
                assert response.status_code == 403 and url not in text and secret not in text
        assert client.get(f"{API}/bots/{bot_id}", headers=ada.headers).get_json()["url"] == url


def pull_moves(client: FlaskClient, token: str) -> int:
    """One pass of a pull bot over its inbox: a random legal action for each decision; the moves accepted."""
    headers = {"Authorization": f"Bearer {token}"}
    moved = 0
    for pending in client.get(f"{API}/decisions", headers=headers).get_json()["decisions"]:
        body = {"action": random.choice(pending["actions"])["id"], "expected_ply": pending["ply"]}
        response = client.post(f"{API}/games/{pending['game_id']}/actions", json=body, headers=headers)
        moved += response.status_code == 200
    return moved


@SQLITE_ONLY
def test_a_tournament_hides_its_seed_until_its_games_are_over(arena: Flask) -> None:
    client = arena.test_client()
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    bots = [register(client, owner, name, None, ("card",)) for owner, name in ((ada, "a-bot"), (bob, "b-bot"))]
    opened = client.patch(f"{API}/bots/{bots[1]['id']}", json={"open_to_others": True}, headers=bob.headers)
    assert opened.status_code == 200  # bob lets ada's tournaments seat his bot
    body = {"game": "card", "settings": {"pawns": 2}, "bot_ids": [b["id"] for b in bots], "table_size": 2}
    created = client.post(
        f"{API}/tournaments", json={**body, "rounds": 1, "move_timeout_ms": 60_000}, headers=ada.headers
    )
    assert created.status_code == 201 and created.get_json()["seed"] is None
    tournament_id = created.get_json()["id"]
    with arena.extensions["db_sessions"]() as session:
        seed = session.get(Tournament, tournament_id).seed  # type: ignore[union-attr]

    # a-bot plays until b-bot is asked (the embedded queue may run one game at a time); then everyone looks
    b_headers = {"Authorization": f"Bearer {bots[1]['token']}"}
    deadline = time.monotonic() + 60
    while not (inbox := client.get(f"{API}/decisions", headers=b_headers).get_json())["decisions"]:
        assert time.monotonic() < deadline, "b-bot was never asked"
        if not pull_moves(client, bots[0]["token"]):
            time.sleep(0.02)
    for headers in ({}, ada.headers, bob.headers, b_headers):
        assert client.get(f"{API}/tournaments/{tournament_id}", headers=headers).get_json()["seed"] is None
        assert all(
            t["seed"] is None for t in client.get(f"{API}/tournaments", headers=headers).get_json()["tournaments"]
        )
    pending = inbox["decisions"][0]
    game_id, b_seat = pending["game_id"], pending["seat"]
    shown = client.get(f"{API}/games/{game_id}", headers=b_headers).get_json()
    assert shown["seed"] is None and shown["view"] == pending["view"] and "hands" not in json.dumps(shown)
    assert client.get(f"{API}/games/{game_id}/hands/{1 - b_seat}", headers=b_headers).status_code == 403
    # neither b-bot's owner (no seat) nor a-bot's token (not its turn) can make b-bot's move
    move = {"action": pending["actions"][0]["id"], "expected_ply": pending["ply"]}
    assert client.post(f"{API}/games/{game_id}/actions", json=move, headers=bob.headers).status_code == 403
    a_headers = {"Authorization": f"Bearer {bots[0]['token']}"}
    assert client.post(f"{API}/games/{game_id}/actions", json=move, headers=a_headers).status_code == 409

    # play both bots to the end: then the seed is shown, and each game's seed is derived from it
    deadline = time.monotonic() + 120
    while client.get(f"{API}/tournaments/{tournament_id}").get_json()["status"] != "done":
        assert time.monotonic() < deadline, "the tournament did not end"
        if not sum(pull_moves(client, bot["token"]) for bot in bots):
            time.sleep(0.02)
    done = client.get(f"{API}/tournaments/{tournament_id}").get_json()
    assert done["seed"] == seed
    played = {client.get(f"{API}/games/{r['game_id']}").get_json()["seed"] for r in done["results"]}
    salt = done["seed_salt"]  # shown with the seed once done: each game's seed is keyed by it too
    assert played == {p.seed for p in schedule(sorted(b["id"] for b in bots), 2, 1, seed, salt)}


@SQLITE_ONLY
def test_a_repeating_tournament_hides_its_first_seed_while_runs_are_to_come(
    app: Flask, client: FlaskClient
) -> None:
    """A later run's seed derives from the first run's: the first is shown once every run is over."""
    owner = new_player(client, "ada")

    def add(
        status: str, seed: int, parent: int | None = None, repeat_times: int | None = None, run: int = 1
    ) -> int:
        row = Tournament(
            owner_id=owner.id, name="t", game="card", settings={}, variant="standard", bot_ids=[1, 2],
            table_size=2, rounds=1, seed=seed, move_timeout_ms=1000, rated=True, status=status,
            games_total=2, run=run, parent_id=parent, repeat_times=repeat_times,
        )  # fmt: skip
        with app.extensions["db_sessions"]() as session:
            session.add(row)
            session.commit()
            return row.id

    def shown(tournament_id: int) -> int | None:
        seed: int | None = client.get(f"{API}/tournaments/{tournament_id}").get_json()["seed"]
        return seed

    single, running = add("done", 5), add("running", 6)
    assert shown(single) == 5 and shown(running) is None
    first = add("done", 7, repeat_times=3)
    assert shown(first) is None  # runs 2 and 3 are to come
    second = add("running", 8, parent=first, run=2)
    assert shown(first) is None and shown(second) is None
    with app.extensions["db_sessions"]() as session:
        session.get(Tournament, second).status = "done"  # type: ignore[union-attr]
        session.commit()
    assert shown(second) == 8 and shown(first) is None  # a later run's own seed decides its games only
    add("done", 9, parent=first, run=3)
    assert shown(first) == 7
