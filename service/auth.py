"""Bearer tokens: a player's token is shown once at creation and stored only as its SHA-256.

Tokens carry 256 random bits, so a plain hash is enough (no password stretching), and a lookup by hash compares no
secret byte by byte in Python. A missing or unknown token is a 401; a disabled account's token a 403 that says so.
Every request looks its token up in the database (one indexed read, with the account's ``disabled`` and
``operator`` flags): no process remembers a token's player, so an account the operator disables, or a token the
operator revokes (a new hash), is refused at once by every API process.

The operator's token (``SORRY_ARENA_OPERATOR_TOKEN``) is a player's token too: its account (named ``operator``,
marked ``players.operator``) is made the first time the token is used, and :func:`is_operator` tells the requests
that carry it. The account is bound to the CURRENT token: a process whose setting names a token whose hash the
account does not hold yet writes the new hash into the account on that token's first use (its official tournaments
stay with it), and a process refuses the operator account's stored token whenever its own setting names another
(so after a rotation the old token is a 401 in every process that has the new setting, whether or not the new token
was used yet). While processes with the old and the new setting both run, each accepts only its own.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import current_app, g, request
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError

from service import db
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


_PLAYER_BY_HASH = select(Player.id, Player.disabled, Player.operator).where(
    Player.token_hash == param("token_hash")
)


def disabled_message(player_id: int) -> str:
    return f"account {player_id} is disabled by the operator: its tokens are refused"


def optional_player_id() -> int | None:
    """The player id of the request's bearer token, ``None`` without one; a bad token is a 401."""
    if "player_id" in g:
        return g.player_id  # type: ignore[no-any-return]
    # the header read from the environ, as request.headers would find it, for less
    player_id = g.player_id = player_id_of(request.environ.get("HTTP_AUTHORIZATION"))
    if player_id is not None:
        request.environ[ACCOUNT] = player_id  # for the access log (service/observe.py)
    return player_id


def bearer_token(header: str) -> str:
    """The token of an ``Authorization: Bearer <token>`` header; a 401 for any other header."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        fail(401, "the Authorization header must be 'Bearer <token>'")
    return token


def player_id_of(header: str | None) -> int | None:
    """The player id of an ``Authorization`` header's bearer token, ``None`` without a header; a bad token is a
    401, a disabled account's a 403. Needs the app's context only (the move path calls it outside a request's:
    ``service/api/movepath.py``)."""
    if header is None:
        return None
    digest = token_hash(bearer_token(header))
    row = db.lane().execute(_PLAYER_BY_HASH, {"token_hash": digest}).fetchone()
    operator = operator_digest()
    current = operator is not None and hmac.compare_digest(digest, operator)
    if row is None:
        if not current:
            fail(401, "unknown token")
        return operator_account(digest)
    player_id, disabled, is_operator_account = row
    if is_operator_account and not current:
        fail(401, "unknown token")  # an operator token rotated away (or no operator any more)
    if disabled:
        fail(403, disabled_message(player_id))
    return int(player_id)


def operator_digest() -> str | None:
    """The hash of the operator's token, ``None`` when there is no operator."""
    token: str | None = current_app.extensions["settings"].operator_token
    return None if token is None else token_hash(token)


_FIRST_OPERATOR = select(func.min(Player.id)).where(Player.operator.is_(True)).scalar_subquery()


def operator_account(digest: str) -> int:
    """The operator's account, bound to the token of hash ``digest``: the marked account takes the new hash (the
    old token is unknown from then on), or one is made on the first use of any operator token (two requests at
    once: one write wins)."""
    session = db.session()
    try:
        moved = session.execute(update(Player).where(Player.id == _FIRST_OPERATOR).values(token_hash=digest))
        if not moved.rowcount:  # type: ignore[attr-defined]
            session.add(Player(name="operator", token_hash=digest, operator=True))
        session.commit()
    except IntegrityError:
        session.rollback()
    row = session.execute(_PLAYER_BY_HASH, {"token_hash": digest}).first()
    session.rollback()
    if row is None:
        fail(401, "unknown token")
    return int(row[0])


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
