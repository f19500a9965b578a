"""Bearer tokens: a player's token is shown once at creation and stored only as its SHA-256.

Tokens carry 256 random bits, so a plain hash is enough (no password stretching), and a lookup by hash compares no
secret byte by byte in Python. A missing or unknown token is a 401. A token never changes hands, so each process
remembers the player of every token it has seen (``service/caches.py``); unknown tokens are not remembered.

The operator's token (``SORRY_ARENA_OPERATOR_TOKEN``) is a player's token too: its account (named ``operator``)
is made the first time the token is used, and :func:`is_operator` tells the requests that carry it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import current_app, g, request
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from service import db
from service.caches import Caches
from service.errors import fail
from service.observe import ACCOUNT
from store.fastlane import param
from store.models import Bot, Player

TOKEN_PREFIX = "sa_"
REQUIRED = "this needs a player's token: 'Authorization: Bearer <token>' (POST /api/v1/players makes one)"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_PLAYER_BY_HASH = select(Player.id).where(Player.token_hash == param("token_hash"))


def optional_player_id() -> int | None:
    """The player id of the request's bearer token, ``None`` without one; a bad token is a 401."""
    if "player_id" in g:
        return g.player_id  # type: ignore[no-any-return]
    # the header read from the environ, as request.headers would find it, for less
    player_id = g.player_id = player_id_of(request.environ.get("HTTP_AUTHORIZATION"))
    if player_id is not None:
        request.environ[ACCOUNT] = player_id  # for the access log (service/observe.py)
    return player_id


def player_id_of(header: str | None) -> int | None:
    """The player id of an ``Authorization`` header's bearer token, ``None`` without a header; a bad token is a
    401. Needs the app's context only (the move path calls it outside a request's: ``service/api/movepath.py``)."""
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        fail(401, "the Authorization header must be 'Bearer <token>'")
    digest = token_hash(token)
    caches: Caches = current_app.extensions["caches"]
    player_id = caches.players.get(digest)
    if player_id is None:
        player_id = db.lane().scalar(_PLAYER_BY_HASH, {"token_hash": digest})
        operator = operator_digest()
        if player_id is None and operator is not None and hmac.compare_digest(digest, operator):
            player_id = operator_account(digest)
        if player_id is None:
            fail(401, "unknown token")
        caches.players.put(digest, player_id)
    return player_id


def operator_digest() -> str | None:
    """The hash of the operator's token, ``None`` when there is no operator."""
    token: str | None = current_app.extensions["settings"].operator_token
    return None if token is None else token_hash(token)


def operator_account(digest: str) -> int:
    """The operator's account, made on the first use of its token (two requests at once: one insert wins)."""
    session = db.session()
    try:
        session.add(Player(name="operator", token_hash=digest))
        session.commit()
    except IntegrityError:
        session.rollback()
    player_id: int | None = db.lane().scalar(_PLAYER_BY_HASH, {"token_hash": digest})
    assert player_id is not None
    return player_id


def is_operator() -> bool:
    """Whether the request carries the operator's token."""
    digest = operator_digest()
    if digest is None:
        return False
    header = request.environ.get("HTTP_AUTHORIZATION") or ""
    scheme, _, token = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token_hash(token.strip()), digest)


def required_player_id() -> int:
    player_id = optional_player_id()
    if player_id is None:
        fail(401, REQUIRED)
    return player_id


def optional_player() -> Player | None:
    """The player of the request's bearer token, ``None`` without one; a bad token is a 401."""
    player_id = optional_player_id()
    if player_id is None:
        return None
    player = db.session().get(Player, player_id)
    if player is None:  # not possible while players are never deleted
        fail(401, "unknown token")
    return player


def required_player() -> Player:
    player = optional_player()
    if player is None:
        fail(401, REQUIRED)
    return player


BOT_TOKEN = (
    "this is a bot's token, which plays the bot's games only: register, change and delete bots, and create "
    "tournaments and matches, with its owner's token"
)


def required_owner() -> Player:
    """The player of the request's token, acting as an account holder: one who may register and change bots and
    create tournaments and matches. A bot's own account may not (a 403): else a bot's token would register more bots,
    each an account with rate limits and quotas of its own, without end."""
    player = required_player()
    if db.session().scalar(select(Bot.id).where(Bot.player_id == player.id)) is not None:
        fail(403, BOT_TOKEN)
    return player
