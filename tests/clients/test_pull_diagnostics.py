"""The pull client says at once what is wrong with its token or URL: an account's token instead of the bot's
(``GET /api/v1/players/me`` tells them apart) is a fatal error when the account owns bots, a warning when it owns
none; a trailing ``/api/v1`` of the URL is dropped, as ``sorry-arena tournament`` does."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from clients.__main__ import main
from clients.pull import PullClient, PullError
from clients.serviceapi import Api
from tests.apikit import API, SQLITE_ONLY, new_player
from tests.arenakit import Running, random_choice, register, wait_for
from tests.clients.conftest import Service


@SQLITE_ONLY
def test_players_me_tells_a_bots_token_from_its_owners(service: Service) -> None:
    owner = new_player(service.client, "owner")
    bot = register(service.client, owner, "puller", None)
    mine = service.client.get(f"{API}/players/me", headers=owner.headers).get_json()
    assert mine == {"id": owner.id, "name": "owner", "bot_id": None, "owned_bots": 1}
    its = service.client.get(f"{API}/players/me", headers={"Authorization": f"Bearer {bot['token']}"}).get_json()
    assert its == {"id": bot["player_id"], "name": "puller", "bot_id": bot["id"], "owned_bots": 0}
    assert service.client.get(f"{API}/players/me").status_code == 401


@SQLITE_ONLY
def test_an_owners_token_is_a_clear_fatal_error_at_once(
    service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    owner = new_player(service.client, "alice")
    register(service.client, owner, "puller", None)
    with pytest.raises(PullError, match=r"the account 'alice' \(the owner of 1 bot\), not a bot's"):
        PullClient(random_choice, service.url, owner.token, wait=30).run()  # the first poll does not wait
    assert main(["--bot", "random", "--pull", "--url", service.url, "--token", owner.token]) == 1
    err = capsys.readouterr().err
    assert "error: this is the token of the account 'alice'" in err and "Traceback" not in err


@SQLITE_ONLY
def test_a_persons_token_without_bots_is_warned_about(service: Service, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="clients.pull")
    person = new_player(service.client, "bob")
    running = Running(PullClient(random_choice, service.url, person.token, wait=1))

    def lines() -> list[str]:
        return [r.getMessage() for r in caplog.records if "this token is the account 'bob'" in r.getMessage()]

    wait_for("the warning", lines, timeout=60)
    running.finish()
    assert len(lines()) == 1


@pytest.mark.parametrize("suffix", ["", "/", "/api/v1", "/api/v1/"])
def test_a_trailing_api_v1_is_dropped(suffix: str) -> None:
    api = Api(f"http://127.0.0.1:8000/arena{suffix}", "sa_x")
    assert (api.url, api.prefix) == ("http://127.0.0.1:8000/arena", "/arena")
    bare = Api(f"http://127.0.0.1:8000{suffix}", "sa_x")
    assert (bare.url, bare.prefix) == ("http://127.0.0.1:8000", "")


@SQLITE_ONLY
def test_a_url_ending_in_api_v1_plays(service: Service) -> None:
    owner = new_player(service.client, "owner")
    bot = register(service.client, owner, "puller", None)
    client = Polling(random_choice, service.url + "/api/v1/", bot["token"], wait=0)
    running = Running(client)
    wait_for("two polls answered", lambda: client.polls >= 2, timeout=60)
    running.finish()  # a wrong path would have been a fatal error, which finish() raises
    assert client.api.url == service.url


class Polling(PullClient):
    """Counts the polls the service answered as its inbox."""

    polls = 0

    def poll(self) -> dict[str, Any]:
        inbox = super().poll()
        self.polls += 1
        return inbox
