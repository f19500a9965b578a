"""The ladders API on SQLite and PostgreSQL: a ladder opened (its defaults, its tournament, the quota of open ladders
per account, ``Idempotency-Key``), listed and read; bots joining on their owners' word (another account's bot only
if open to others, the operator any), leaving and joining again with their rating, paused and resumed by whom the
rules say, with the reason in words; a ladder closed (its games not begun cancelled, those in play left to
finish, a matchmaking round asked for to settle them); and every refusal a clear 4xx. The app's queue records the matchmaking rounds asked for
(``tests/service/ladderkit.py``): no game is made behind a test's back."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from ratings import wenglin
from store.models import LadderEntry, LadderGame, Tournament, TournamentGame, now
from tests.apikit import API, new_player
from tests.service.ladderkit import OPERATOR, arena, client, database, join, open_ladder, pull_bot

__all__ = ["arena", "client"]  # the fixtures


def test_a_ladder_opens_with_its_defaults_and_is_listed_and_read(arena: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    made = open_ladder(client, ada.headers, name="duels", settings={"pawns": 2})
    assert made["name"] == "duels" and made["owner"] == "ada" and made["owner_id"] == ada.id
    assert (made["table_size"], made["budget_per_hour"], made["max_in_play"]) == (2, 30, 8)
    assert made["rated"] is True and made["official"] is False and made["status"] == "open"
    assert made["settings"]["players"] == 2 and made["variant"] == "standard"
    assert (made["games_made"], made["games_in_play"], made["standings"], made["closed_at"]) == (0, 0, [], None)
    assert made["standings_total"] == 0
    assert arena.extensions["queue"].rounds == [made["id"]]
    with database(arena) as session:
        tournament = session.get_one(Tournament, made["tournament_id"])
        assert (tournament.status, tournament.rounds, tournament.bot_ids, tournament.games_total) == (
            "running",
            0,
            [],
            0,
        )
    other = open_ladder(client, ada.headers, table_size=3, budget_per_hour=5, max_in_play=2, rated=False)
    assert (other["table_size"], other["budget_per_hour"], other["max_in_play"], other["rated"]) == (
        3,
        5,
        2,
        False,
    )
    read = client.get(f"{API}/ladders/{made['id']}").get_json()
    assert read == made
    listed = client.get(f"{API}/ladders", query_string={"page_size": 1})
    assert [ladder["id"] for ladder in listed.get_json()] == [other["id"]]  # newest first
    assert '"total": 2' in listed.headers["X-Pagination"] and 'rel="next"' in listed.headers["Link"]
    assert client.get(f"{API}/ladders", query_string={"status": "closed"}).get_json() == []
    assert len(client.get(f"{API}/ladders", query_string={"status": "open"}).get_json()) == 2


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"table_size": 5}, "table_size"),
        ({"budget_per_hour": 0}, "budget_per_hour"),
        ({"budget_per_hour": 3601}, "budget_per_hour"),
        ({"max_in_play": 65}, "max_in_play"),
        ({"game": "chess"}, "game"),
        ({"settings": {"players": 3}}, "settings.players (3) and table_size (2) disagree"),
        ({"settings": {"pawns": 99}}, "settings:"),
        ({"move_timeout_ms": 1}, "move_timeout_ms"),
    ],
)
def test_bad_fields_are_a_422_that_names_them(client: FlaskClient, fields: dict[str, object], said: str) -> None:
    ada = new_player(client, "ada")
    refused = client.post(f"{API}/ladders", json={"game": "card", **fields}, headers=ada.headers)
    assert refused.status_code == 422
    assert said in refused.get_data(as_text=True)


def test_opening_needs_an_owners_token(client: FlaskClient) -> None:
    assert client.post(f"{API}/ladders", json={"game": "card"}).status_code == 401
    ada = new_player(client, "ada")
    bot = pull_bot(client, ada, "b1")
    refused = client.post(
        f"{API}/ladders", json={"game": "card"}, headers={"Authorization": f"Bearer {bot['token']}"}
    )
    assert refused.status_code == 403


def test_an_account_has_at_most_its_quota_of_open_ladders(client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    first = open_ladder(client, ada.headers)
    open_ladder(client, ada.headers)
    refused = client.post(f"{API}/ladders", json={"game": "card"}, headers=ada.headers)
    assert refused.status_code == 429
    assert (
        "quota SORRY_ARENA_QUOTA_LADDERS: an account has at most 2 open ladders" in refused.get_json()["message"]
    )
    open_ladder(client, bob.headers)  # another account's count is its own
    official = open_ladder(client, OPERATOR)
    assert official["official"] is True
    for _ in range(2):  # the operator's count in no quota
        open_ladder(client, OPERATOR)
    assert client.post(f"{API}/ladders/{first['id']}/close", headers=ada.headers).status_code == 200
    open_ladder(client, ada.headers)  # a closed ladder frees its place
    # open ladders are not counted as tournaments: the tournaments' quota (5) is whole
    body = {"game": "card", "bot_ids": [pull_bot(client, ada, f"t{n}")["id"] for n in range(2)]}
    for _ in range(5):
        made = client.post(f"{API}/tournaments", json=body, headers=ada.headers)
        assert made.status_code == 201, made.get_data(as_text=True)


def test_an_idempotency_key_opens_one_ladder(arena: Flask, client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    headers = {**ada.headers, "Idempotency-Key": "ladder-1"}
    first = client.post(f"{API}/ladders", json={"game": "card", "name": "one"}, headers=headers)
    again = client.post(f"{API}/ladders", json={"game": "card", "name": "one"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json()["id"] == first.get_json()["id"] and again.headers["Idempotent-Replayed"] == "true"
    other = client.post(f"{API}/ladders", json={"game": "card", "name": "two"}, headers=headers)
    assert other.status_code == 422 and "different request" in other.get_json()["message"]
    assert len(client.get(f"{API}/ladders").get_json()) == 1
    assert arena.extensions["queue"].rounds == [first.get_json()["id"]]


def test_who_may_enter_which_bot(arena: Flask, client: FlaskClient) -> None:
    ada, bob, cid = new_player(client, "ada"), new_player(client, "bob"), new_player(client, "cid")
    ladder = open_ladder(client, ada.headers)["id"]
    mine = pull_bot(client, ada, "mine")
    closed = pull_bot(client, bob, "closed")
    opened = pull_bot(client, bob, "opened", open_to_others=True)
    board = pull_bot(client, ada, "boardonly", games=["board"])
    joined = join(client, ada.headers, ladder, mine["id"])
    assert joined.status_code == 201, joined.get_data(as_text=True)
    row = joined.get_json()
    assert (row["bot_id"], row["name"], row["games"], row["left"], row["paused"]) == (
        mine["id"],
        "mine",
        0,
        False,
        False,
    )
    assert (row["mu"], row["sigma"], row["rating"], row["provisional"]) == (
        wenglin.MU,
        wenglin.SIGMA,
        1500.0,
        True,
    )
    refused = join(client, ada.headers, ladder, closed["id"])
    assert refused.status_code == 403 and "open_to_others" in refused.get_json()["message"]
    refused = join(client, cid.headers, ladder, opened["id"])  # open, but neither cid's bot nor cid's ladder
    assert refused.status_code == 403 and "its owner enters it into ladders" in refused.get_json()["message"]
    assert join(client, ada.headers, ladder, opened["id"]).status_code == 201  # the ladder's owner, an open bot
    assert join(client, bob.headers, ladder, closed["id"]).status_code == 201  # its owner, anyone's ladder
    assert join(client, OPERATOR, ladder, board["id"]).status_code == 422  # the operator: any bot, of the game
    other = pull_bot(client, cid, "other")
    assert join(client, OPERATOR, ladder, other["id"]).status_code == 201
    again = join(client, ada.headers, ladder, mine["id"])
    assert again.status_code == 409 and "already" in again.get_json()["message"]
    assert join(client, ada.headers, ladder, 999_999).status_code == 404
    assert join(client, ada.headers, 999_999, mine["id"]).status_code == 404
    assert join(client, ada.headers, ladder, 0).status_code == 422
    assert client.post(f"{API}/ladders/{ladder}/bots", json={"bot_id": mine["id"]}).status_code == 401
    with database(arena) as session:
        seats = session.scalar(select(LadderEntry.seat_counts).where(LadderEntry.bot_id == mine["id"]))
        assert seats == [0, 0]
    assert arena.extensions["queue"].rounds == [ladder] * 5  # the opening, then each bot that joined
    standings = client.get(f"{API}/ladders/{ladder}").get_json()["standings"]
    assert {row["name"] for row in standings} == {"mine", "opened", "closed", "other"}
    shown = client.get(f"{API}/bots/{mine['id']}").get_json()["ladders"]
    assert [(place["ladder_id"], place["rating"], place["games"], place["left"]) for place in shown] == [
        (ladder, 1500.0, 0, False)
    ]
    assert set(shown[0]) == {
        "ladder_id",
        "name",
        "status",
        "rating",
        "fitted",
        "low",
        "high",
        "games",
        "provisional",
        "paused",
        "pause_reason",
        "left",
    }


def test_a_bot_leaves_and_joins_again_with_its_rating(arena: Flask, client: FlaskClient) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    ladder = open_ladder(client, ada.headers)["id"]
    strong, weak = pull_bot(client, ada, "strong"), pull_bot(client, bob, "weak")
    for bot, owner in ((strong, ada), (weak, bob)):
        assert join(client, owner.headers, ladder, bot["id"]).status_code == 201
    with database(arena) as session:
        session.execute(
            update(LadderEntry).where(LadderEntry.bot_id == strong["id"]).values(mu=30.0, sigma=2.0, games=40)
        )
    assert (
        client.delete(
            f"{API}/ladders/{ladder}/bots/{weak['id']}", headers=new_player(client, "cid").headers
        ).status_code
        == 403
    )
    left = client.delete(f"{API}/ladders/{ladder}/bots/{strong['id']}", headers=ada.headers)
    assert left.status_code == 200 and left.get_json()["left"] is True and left.get_json()["mu"] == 30.0
    standings = client.get(f"{API}/ladders/{ladder}").get_json()["standings"]
    assert [row["name"] for row in standings] == ["weak", "strong"]  # the bots that left after the others
    again = client.delete(f"{API}/ladders/{ladder}/bots/{strong['id']}", headers=ada.headers)
    assert again.status_code == 409 and "left" in again.get_json()["message"]
    paused = client.post(f"{API}/ladders/{ladder}/bots/{strong['id']}/pause", headers=ada.headers)
    assert paused.status_code == 409 and "joins again" in paused.get_json()["message"]
    back = join(client, ada.headers, ladder, strong["id"])
    assert back.status_code == 201
    assert (back.get_json()["left"], back.get_json()["mu"], back.get_json()["games"]) == (False, 30.0, 40)
    standings = client.get(f"{API}/ladders/{ladder}").get_json()["standings"]
    assert [row["name"] for row in standings] == ["strong", "weak"]  # best first
    paged = client.get(f"{API}/ladders/{ladder}/standings", query_string={"page_size": 1, "page": 2})
    assert [row["name"] for row in paged.get_json()] == ["weak"] and '"total": 2' in paged.headers["X-Pagination"]
    assert client.get(f"{API}/ladders/{ladder}").get_json()["standings_total"] == 2
    # the ladder's owner takes another's bot out; nobody takes out a bot that is not in
    assert client.delete(f"{API}/ladders/{ladder}/bots/{weak['id']}", headers=ada.headers).status_code == 200
    outsider = pull_bot(client, bob, "outsider")
    missing = client.delete(f"{API}/ladders/{ladder}/bots/{outsider['id']}", headers=bob.headers)
    assert missing.status_code == 404 and "not in ladder" in missing.get_json()["message"]


def test_pause_and_resume_say_who_and_clear_the_streak(arena: Flask, client: FlaskClient) -> None:
    ada, bob, cid = new_player(client, "ada"), new_player(client, "bob"), new_player(client, "cid")
    ladder = open_ladder(client, ada.headers)["id"]
    bot = pull_bot(client, bob, "bobs")
    assert join(client, bob.headers, ladder, bot["id"]).status_code == 201
    path = f"{API}/ladders/{ladder}/bots/{bot['id']}"
    assert client.post(f"{path}/pause", headers=cid.headers).status_code == 403
    by_ladder_owner = client.post(f"{path}/pause", headers=ada.headers).get_json()
    assert (by_ladder_owner["paused"], by_ladder_owner["pause_reason"]) == (True, "paused by the ladder's owner")
    again = client.post(f"{path}/pause", headers=bob.headers).get_json()  # paused already: nothing changes
    assert again["pause_reason"] == "paused by the ladder's owner"
    refused = client.post(f"{path}/resume", headers=ada.headers)  # the ladder's owner pauses, but does not resume
    assert refused.status_code == 403 and "its owner or the operator resumes it" in refused.get_json()["message"]
    rounds = len(arena.extensions["queue"].rounds)
    resumed = client.post(f"{path}/resume", headers=bob.headers).get_json()
    assert (resumed["paused"], resumed["pause_reason"]) == (False, None)
    assert arena.extensions["queue"].rounds[rounds:] == [ladder]
    assert client.post(f"{path}/pause", headers=bob.headers).get_json()["pause_reason"] == "paused by its owner"
    client.post(f"{path}/resume", headers=OPERATOR)
    assert client.post(f"{path}/pause", headers=OPERATOR).get_json()["pause_reason"] == "paused by the operator"
    with database(arena) as session:  # as the workers pause a bot after games with faults
        session.execute(
            update(LadderEntry)
            .where(LadderEntry.bot_id == bot["id"])
            .values(pause_reason="paused automatically: faults in 3 games in a row", fault_streak=3)
        )
    resumed = client.post(f"{path}/resume", headers=OPERATOR).get_json()
    assert resumed["paused"] is False
    with database(arena) as session:
        entry = session.get_one(LadderEntry, (ladder, bot["id"]))
        assert (entry.fault_streak, entry.paused_at, entry.pause_reason) == (0, None, None)
    assert client.post(f"{API}/ladders/{ladder}/bots/999999/pause", headers=bob.headers).status_code == 404
    assert client.post(f"{API}/ladders/999999/bots/{bot['id']}/resume", headers=bob.headers).status_code == 404


def test_closing_cancels_the_games_not_begun_and_lets_those_in_play_finish(
    arena: Flask, client: FlaskClient
) -> None:
    ada, bob = new_player(client, "ada"), new_player(client, "bob")
    made = open_ladder(client, ada.headers)
    ladder = made["id"]
    bots = [pull_bot(client, ada, f"b{n}")["id"] for n in range(4)]
    for bot_id in bots:
        assert join(client, ada.headers, ladder, bot_id).status_code == 201
    with database(arena) as session:  # as matchmaking made them: one game being played, one waiting for a worker
        games = []
        for number, (status, seated) in enumerate((("running", bots[:2]), ("pending", bots[2:]))):
            scheduled = TournamentGame(
                tournament_id=made["tournament_id"],
                number=number,
                round=0,
                bot_ids=seated,
                seed=number,
                status=status,
            )
            session.add(scheduled)
            session.flush()
            games.append(scheduled.id)
            session.add(
                LadderGame(tournament_game_id=scheduled.id, ladder_id=ladder, made_at=now(), bot_ids=seated)
            )
        session.execute(update(LadderEntry).where(LadderEntry.ladder_id == ladder).values(busy=1))
        session.execute(update(Tournament).where(Tournament.id == made["tournament_id"]).values(games_total=2))
    assert client.get(f"{API}/ladders/{ladder}").get_json()["games_in_play"] == 2
    refused = client.post(f"{API}/ladders/{ladder}/close", headers=bob.headers)
    assert refused.status_code == 403 and "not yours" in refused.get_json()["message"]
    closed = client.post(f"{API}/ladders/{ladder}/close", headers=ada.headers)
    assert closed.status_code == 200
    shown = closed.get_json()
    assert shown["status"] == "closed" and shown["closed_at"] is not None
    assert (shown["games_made"], shown["games_in_play"]) == (2, 1)  # the game cancelled is no longer in play
    listed = client.get(f"{API}/ladders/{ladder}/games").get_json()
    assert [game["tournament_game_id"] for game in listed] == [games[0]]
    assert arena.extensions["queue"].rounds[-1] == ladder  # the workers' round settles the cancelled game
    with database(arena) as session:
        assert session.get_one(TournamentGame, games[1]).status == "cancelled"
        assert session.get_one(TournamentGame, games[0]).status == "running"
        assert session.get_one(Tournament, made["tournament_id"]).status == "running"  # done when its game ends
    again = client.post(f"{API}/ladders/{ladder}/close", headers=ada.headers)
    assert again.status_code == 409 and "closed already" in again.get_json()["message"]
    for refused in (
        join(client, ada.headers, ladder, pull_bot(client, ada, "late")["id"]),
        client.post(f"{API}/ladders/{ladder}/bots/{bots[0]}/pause", headers=ada.headers),
        client.delete(f"{API}/ladders/{ladder}/bots/{bots[0]}", headers=ada.headers),
    ):
        assert refused.status_code == 409 and "is closed" in refused.get_json()["message"]
    assert [item["id"] for item in client.get(f"{API}/ladders", query_string={"status": "closed"}).get_json()] == [
        ladder
    ]
    other = open_ladder(client, bob.headers)  # the operator closes any
    assert client.post(f"{API}/ladders/{other['id']}/close", headers=OPERATOR).status_code == 200


def test_a_ladders_tournament_is_closed_as_a_ladder_not_cancelled(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    made = open_ladder(client, ada.headers)
    refused = client.post(f"{API}/tournaments/{made['tournament_id']}/cancel", headers=ada.headers)
    assert refused.status_code == 409
    assert f"POST /api/v1/ladders/{made['id']}/close" in refused.get_json()["message"]


def test_unknown_ladders_are_a_404(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    for path in ("", "/games", "/chart"):
        missing = client.get(f"{API}/ladders/424242{path}")
        assert missing.status_code == 404 and "no ladder 424242" in missing.get_json()["message"]
    assert client.post(f"{API}/ladders/424242/close", headers=ada.headers).status_code == 404
    assert client.get(f"{API}/ladders/99999999999").status_code == 404


def test_the_operator_closes_a_disabled_accounts_ladders_and_cancels_no_ladders_tournament(
    arena: Flask, client: FlaskClient
) -> None:
    ada = new_player(client, "ada")
    made = open_ladder(client, ada.headers)
    refused = client.post(f"{API}/admin/tournaments/{made['tournament_id']}/cancel", headers=OPERATOR)
    assert refused.status_code == 409 and f"ladder {made['id']}'s" in refused.get_json()["message"]
    disabled = client.post(f"{API}/admin/accounts/{ada.id}/disable", headers=OPERATOR)
    assert disabled.status_code == 200, disabled.get_data(as_text=True)
    assert (disabled.get_json()["closed_ladders"], disabled.get_json()["cancelled_tournaments"]) == (
        [made["id"]],
        [],
    )
    assert client.get(f"{API}/ladders/{made['id']}").get_json()["status"] == "closed"
    assert arena.extensions["queue"].rounds[-1] == made["id"]
    with database(arena) as session:
        assert session.get_one(Tournament, made["tournament_id"]).status == "running"  # the workers finish it


def test_a_deleted_bot_leaves_its_ladders(client: FlaskClient) -> None:
    ada = new_player(client, "ada")
    ladders = [open_ladder(client, ada.headers)["id"] for _ in range(2)]
    bot, kept = pull_bot(client, ada, "gone"), pull_bot(client, ada, "kept")
    for ladder in ladders:
        for joined in (bot, kept):
            assert join(client, ada.headers, ladder, joined["id"]).status_code == 201
    assert client.delete(f"{API}/bots/{bot['id']}", headers=ada.headers).status_code == 204
    for ladder in ladders:
        rows = {row["name"]: row for row in client.get(f"{API}/ladders/{ladder}").get_json()["standings"]}
        assert (rows["gone"]["left"], rows["kept"]["left"]) == (True, False)
    gone = join(client, ada.headers, ladders[0], bot["id"])
    assert gone.status_code == 404 and f"no bot {bot['id']}" in gone.get_json()["message"]
