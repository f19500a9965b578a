"""Bearer tokens: a player's token is shown once at creation and stored only as its SHA-256.

Tokens carry 256 random bits, so a plain hash is enough (no password stretching), and a lookup by hash compares no
secret byte by byte in Python. A missing or unknown token is a 401. A token never changes hands, so each process
remembers the player of every token it has seen (``service/caches.py``); unknown tokens are not remembered.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import current_app, g, request
from sqlalchemy import select

from service import db
from service.caches import Caches
from service.errors import fail
from store.fastlane import param
from store.models import Player

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
    header = request.environ.get("HTTP_AUTHORIZATION")  # as request.headers would find it, for less
    player_id = None
    if header is not None:
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            fail(401, "the Authorization header must be 'Bearer <token>'")
        digest = token_hash(token)
        caches: Caches = current_app.extensions["caches"]
        player_id = caches.players.get(digest)
        if player_id is None:
            player_id = db.lane().scalar(_PLAYER_BY_HASH, {"token_hash": digest})
            if player_id is None:
                fail(401, "unknown token")
            caches.players.put(digest, player_id)
    g.player_id = player_id
    return player_id


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
