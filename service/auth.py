"""Bearer tokens: a player's token is shown once at creation and stored only as its SHA-256.

Tokens carry 256 random bits, so a plain hash is enough (no password stretching), and a lookup by hash compares no
secret byte by byte in Python. A missing or unknown token is a 401.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import g, request
from sqlalchemy import select

from service import db
from service.errors import fail
from service.models import Player

TOKEN_PREFIX = "sa_"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def optional_player() -> Player | None:
    """The player of the request's bearer token, ``None`` without one; a bad token is a 401."""
    if "player" in g:
        return g.player  # type: ignore[no-any-return]
    header = request.headers.get("Authorization")
    player = None
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            fail(401, "the Authorization header must be 'Bearer <token>'")
        player = db.session().scalars(select(Player).where(Player.token_hash == token_hash(token.strip()))).first()
        if player is None:
            fail(401, "unknown token")
    g.player = player
    return player


def required_player() -> Player:
    player = optional_player()
    if player is None:
        fail(401, "this needs a player's token: 'Authorization: Bearer <token>' (POST /api/v1/players makes one)")
    return player
