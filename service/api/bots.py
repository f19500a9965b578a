"""``/api/v1/bots``: bots registered by their owners, played by tournaments at their endpoint (push) or through
the games API with their own token (pull).

Registering a push bot proves the endpoint answers for it: the service POSTs a fresh nonce to ``{url}/info`` (signed
with the bot's secret, which its owner chose and started the bot with) and the nonce must come back; the protocol
version it proves itself in is recorded (``botlink/protocols.py``: v2, or the deprecated v1 of a client before
0.2 while its window lasts, with a warning on the bot). A new url or a
new secret is proved the same way before it is kept: to rotate a secret, the owner restarts the bot accepting both
the old and the new one, sends the new one, then drops the old. Only the owner changes or deletes a bot; a deleted
bot keeps its rated games and joins no new tournament, and its name is free again: the names of the active bots
are unique (a 409 says so). A bot has versions: version 1 at registration, the next at each new url or when its
owner declares new code (``new_version``); each is rated on its own, and ``GET /bots/{id}`` lists them.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any, NoReturn

from flask import current_app
from flask.views import MethodView
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from botlink import protocols
from botlink.calls import BotConnection, BotReply
from botlink.netguard import RefusedAddress, UnresolvableHost, check_url, parse_allowlist, resolve
from service import auth, db, idempotency, ladderrows, ladders, ratelimits, versions
from service.bot_schemas import (
    SECRET_NEEDED,
    BotCreatedSchema,
    BotCreateSchema,
    BotDetailSchema,
    BotListSchema,
    BotUpdateSchema,
    BotVersionListSchema,
)
from service.clientaddress import client_address
from service.errors import ErrorSchema, fail
from service.fault_schemas import FaultListSchema, FaultsQuerySchema
from service.pagination import MAX_PAGE_SIZE, Blueprint, window
from store import botfaults
from store.models import Bot, BotVersion, Player, now
from store.recentfaults import recent_faults

log = logging.getLogger(__name__)

blp = Blueprint(
    "bots", __name__, url_prefix="/api/v1/bots", description="Bots: registered endpoints and pull bots"
)

UNAUTHORIZED = {"schema": ErrorSchema, "description": "a missing or unknown bearer token"}
INVALID = {"schema": ErrorSchema, "description": "bad fields, or the endpoint did not prove it is the bot"}


def describe(bot: Bot, viewer: int | None, version: int, **extra: Any) -> dict[str, Any]:
    """The bot as ``viewer`` (a player id) may see it: its URL only to its owner (an endpoint is no one else's
    business, and a published one invites load). ``version``: its current version's number."""
    return {
        "id": bot.id,
        "name": bot.name,
        "owner_id": bot.owner_id,
        "player_id": bot.player_id,
        "mode": "push" if bot.url else "pull",
        "url": bot.url if viewer == bot.owner_id else None,
        "games": bot.games,
        "active": bot.active,
        "excluded": bot.excluded,
        "open_to_others": bot.open_to_others,
        "failed_checks": bot.failed_checks,
        "passed_checks": bot.passed_checks,
        "created_at": bot.created_at,
        "version": version,
        "protocol": bot.protocol if bot.url else None,
        "last_check_failure": bot.check_failure if bot.url else None,
        "protocol_warning": protocol_warning(bot),
        **extra,
    }


def protocol_warning(bot: Bot) -> str | None:
    """What the owner of a push bot speaking a deprecated protocol version is told (``None``: nothing)."""
    if not bot.url:
        return None
    return protocols.warning(bot.protocol, current_app.extensions["settings"].old_protocol_days)


def detail(bot: Bot, viewer: int | None) -> dict[str, Any]:
    """The bot with its latest versions (``versions.SHOWN``), oldest first, each with its ratings (its URL to the
    owner only), and how many it has in all (every one: ``GET /bots/{id}/versions``); its place in each ladder
    it is or was in; its faults and forfeits in its last games (``store/recentfaults.py``)."""
    session = db.session()
    made = versions.latest(session, bot.id)
    return describe(
        bot,
        viewer,
        made[-1].number if made else 1,
        versions=shown_versions(session, bot, viewer, made),
        versions_total=versions.count(session, bot.id),
        ladders=ladderrows.bot_ladders(session, bot.id),
        recent=asdict(recent_faults(session, bot.player_id)),
    )


def shown_versions(session: Session, bot: Bot, viewer: int | None, made: list[BotVersion]) -> list[dict[str, Any]]:
    """``made`` (versions of ``bot``) as ``viewer`` may see them, each with its ratings."""
    rated = versions.ratings(session, bot.id)
    return [
        {
            "number": version.number,
            "url": version.url if viewer == bot.owner_id else None,
            "note": version.note,
            "created_at": version.created_at,
            "ratings": rated.get(version.number, []),
        }
        for version in made
    ]


def name_free(name: str, bot_id: int | None = None) -> None:
    """409 unless no other active bot has this name."""
    taken = select(Bot.id).where(Bot.name == name, Bot.active.is_(True))
    if bot_id is not None:
        taken = taken.where(Bot.id != bot_id)
    if db.session().scalar(taken.limit(1)) is not None:
        fail(409, f"name: a bot named {name!r} already exists: choose another name")


@contextmanager
def committed(name: str, bot_id: int | None = None) -> Iterator[Session]:
    """The session, committed at the end; a 409 if another bot took the name meanwhile (the unique index of the
    active bots' names), or if another change of the bot made the same version number first."""
    session = db.session()
    try:
        yield session
        session.commit()
    except IntegrityError:
        session.rollback()
        name_free(name, bot_id)
        fail(409, "another change of this bot came first: send yours again")


PROOF_TIMEOUT_S = 2.0
"""How long a push bot's endpoint has to answer its proof (registration, a new url, a new secret)."""
NOT_PROVED = (
    "url: the bot at this URL did not prove itself: it must answer a POST to its url + /info with the nonce it "
    f"was sent, signed with its secret, within {PROOF_TIMEOUT_S:g} s (docs/bot-protocol.md)"
)
"""The one answer to every failed proof but a refused signature: a refused connection, a timeout, an unknown host,
any other HTTP status, a body that is not JSON and a wrong nonce all read the same, and all come at the proof's
deadline, so that the registration says nothing of what answers at an address (else it scans ports for whoever
asks)."""
SIGNATURE_REJECTED = f"url: {protocols.SIGNATURE_REJECTED}"
"""The answer when the endpoint refused the signature (401 or 403) in every protocol version: the owner's likely
mistake (a wrong secret) is named, at the proof's deadline too, and nothing of the reply's body is quoted."""


def prove(url: str, secret: str) -> int:
    """The endpoint must echo a fresh nonce from its info route, asked in protocol v2, then v1 if it refuses the
    signature (``protocols.prove``), all within :data:`PROOF_TIMEOUT_S`: a 422 for a malformed or refused URL (which
    says why: that is the URL's, not the target's), :data:`SIGNATURE_REJECTED` when the signature was refused in
    both, a 422 saying why for a bot speaking v1 only after its window, else :data:`NOT_PROVED` whatever failed.
    The protocol version the bot proved itself in."""
    try:
        check_url(url)
    except ValueError as error:
        fail(422, f"url: {error}")
    allow = parse_allowlist(current_app.extensions["settings"].bot_allow)
    started = time.monotonic()
    try:
        resolve(url, allow)
    except RefusedAddress as error:
        fail(422, f"url: {error}")
    except UnresolvableHost as error:
        unproved(url, started, "connection", str(error))
    nonce = secrets.token_hex(16)
    payload = {"type": "info", "nonce": nonce}

    def ask(version: int) -> BotReply:
        left = max(started + PROOF_TIMEOUT_S - time.monotonic(), 0.05)  # both versions within the one deadline
        with BotConnection(url, secret, allow=allow, timeout=left, protocol=version) as connection:
            return connection.call("info", payload)

    proof = protocols.prove(ask, nonce)
    if proof.protocol is None:
        answer = SIGNATURE_REJECTED if proof.signature_rejected else NOT_PROVED
        unproved(url, started, proof.fault or "nonce", proof.detail, answer)
    days = current_app.extensions["settings"].old_protocol_days
    if not protocols.accepted(proof.protocol, days):
        log.info(
            "a bot endpoint speaks protocol v%s only, refused since its window ended (%s)", proof.protocol, url
        )
        fail(422, f"url: {protocols.refusal(days)}")
    return proof.protocol


def unproved(url: str, started: float, fault: str, detail: str, answer: str = NOT_PROVED) -> NoReturn:
    """Log what failed (for the operator), wait out the proof's deadline, answer ``answer``."""
    log.info("a bot endpoint did not prove itself: %s: %s (%s)", fault, detail, url)
    time.sleep(max(0.0, started + PROOF_TIMEOUT_S - time.monotonic()))
    fail(422, answer)


def owned_bot(bot_id: int) -> Bot:
    player = auth.required_owner()
    bot = get_bot(bot_id)
    if bot.owner_id != player.id:
        fail(403, f"bot {bot_id} is not yours")
    return bot


def get_bot(bot_id: int) -> Bot:
    bot = db.session().get(Bot, bot_id) if 0 < bot_id <= 2**31 - 1 else None
    if bot is None or not bot.active:
        fail(404, f"no bot {bot_id}")
    return bot


@blp.route("")
class Bots(MethodView):
    @idempotency.keyed(blp)
    @blp.arguments(BotCreateSchema)
    @blp.response(201, BotCreatedSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(409, schema=ErrorSchema, description="another active bot has this name")
    @blp.alt_response(422, **INVALID)
    @blp.alt_response(429, **ratelimits.TOO_MANY)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Register a bot (owner's token); a push bot's endpoint must echo the nonce sent to its info route"""
        owner = auth.required_owner()
        name_free(body["name"])  # a name taken is said at once, with nothing counted or called
        # counted before the endpoint is proved (each proof is an outbound call): per owner, and as an account
        # creation per client address (the bot's account), with the accounts made by POST /players; refused by
        # either, it counts against neither
        ratelimits.check(ratelimits.BOTS, owner.id, (ratelimits.ACCOUNTS, client_address()))
        secret = body["secret"] or secrets.token_urlsafe(32)  # a pull bot's, for a url given later
        games = sorted(set(body["games"]))
        protocol = prove(body["url"], secret) if body["url"] is not None else None
        token = auth.new_token()
        with committed(body["name"]) as session:
            account = Player(name=body["name"], token_hash=auth.token_hash(token))
            session.add(account)
            session.flush()
            bot = Bot(
                owner_id=owner.id,
                player_id=account.id,
                name=body["name"],
                url=body["url"],
                games=games,
                secret=secret,
                active=True,
                failed_checks=0,
                passed_checks=0,
                excluded=False,
                open_to_others=body["open_to_others"],
                created_at=now(),
                protocol=protocol,
            )
            session.add(bot)
            session.flush()  # the bot's id, for its first version
            session.add(
                BotVersion(bot_id=bot.id, number=1, url=bot.url, note=body["version_note"], created_at=now())
            )
        protocols.warn_once(bot.id, protocol, current_app.extensions["settings"].old_protocol_days)
        return describe(bot, owner.id, 1, secret=secret, token=token)

    @blp.response(200, BotListSchema)
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    def get(self, pagination_parameters: Any) -> dict[str, Any]:
        """List the active bots, oldest first (paginated: page, page_size; X-Pagination and Link headers)"""
        viewer = auth.optional_player()
        session = db.session()
        active = select(Bot).where(Bot.active.is_(True))
        pagination_parameters.item_count = session.scalar(select(func.count()).select_from(active.subquery()))
        found = window(pagination_parameters)
        if found is None:
            return {"bots": []}
        offset, limit = found
        bots = list(session.scalars(active.order_by(Bot.id).offset(offset).limit(limit)))
        current = versions.current(session, [bot.id for bot in bots])
        return {"bots": [describe(bot, viewer.id if viewer else None, current.get(bot.id, 1)) for bot in bots]}


@blp.route("/<int:bot_id>")
class OneBot(MethodView):
    @blp.response(200, BotDetailSchema)
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def get(self, bot_id: int) -> dict[str, Any]:
        """Show a bot, with its versions and each version's ratings"""
        viewer = auth.optional_player()
        return detail(get_bot(bot_id), viewer.id if viewer else None)

    @blp.arguments(BotUpdateSchema)
    @blp.response(200, BotDetailSchema)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="not the bot's owner, or a bot's own token")
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    @blp.alt_response(409, schema=ErrorSchema, description="another active bot has this name")
    @blp.alt_response(422, **INVALID)
    @blp.alt_response(429, **ratelimits.TOO_MANY)
    def patch(self, body: dict[str, Any], bot_id: int) -> dict[str, Any]:
        """Change a bot (owner only): a new url or a new secret is proved (the bot must already accept it); a new
        url, or new_version, starts a new version"""
        bot = owned_bot(bot_id)
        secret = body.get("secret", bot.secret)
        url = body.get("url", bot.url)
        if url is not None and bot.url is None and "secret" not in body:
            fail(422, f"secret: {SECRET_NEEDED}")
        new_version = bool(body.get("new_version")) or url != bot.url
        if "version_note" in body and not new_version:
            fail(422, "version_note: a note goes with a new version: add new_version: true (or a new url)")
        name = body.get("name", bot.name)
        if name != bot.name:
            name_free(name, bot.id)
        if url != bot.url or secret != bot.secret:  # counted as a registration: it calls out
            ratelimits.check(ratelimits.BOTS, bot.owner_id)
        elif new_version:  # new code at the same url: each is a version kept and rated apart
            ratelimits.check(ratelimits.VERSIONS, bot.id)
        if url is not None and (url != bot.url or secret != bot.secret):
            # a push bot accepts the new secret (beside the old one) before the service uses it
            bot.protocol = prove(url, secret)
            bot.check_failure = None
        elif url is None:
            bot.protocol = None
        bot.url = url
        bot.secret = secret
        bot.name = name
        if "games" in body:
            bot.games = sorted(set(body["games"]))
        # closing it keeps it in the runs under way it was entered in meanwhile, and out of the runs of others'
        # repeating tournaments made after (tournament/plans/runs.py)
        if "open_to_others" in body:
            bot.open_to_others = body["open_to_others"]
        with committed(name, bot.id) as session:
            if new_version:  # it plays the games begun from now on (tournament/play/results.py)
                last = session.scalar(select(func.max(BotVersion.number)).where(BotVersion.bot_id == bot.id))
                note = body.get("version_note")
                session.add(
                    BotVersion(bot_id=bot.id, number=(last or 0) + 1, url=url, note=note, created_at=now())
                )
        return detail(bot, bot.owner_id)

    @blp.response(204)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(403, schema=ErrorSchema, description="not the bot's owner, or a bot's own token")
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def delete(self, bot_id: int) -> None:
        """Delete a bot (owner only): it joins no new tournament and leaves its ladders; its rated games stay"""
        bot = owned_bot(bot_id)
        bot.active = False
        ladders.leave_all(db.session(), bot.id)
        db.session().commit()


@blp.route("/<int:bot_id>/versions")
class Versions(MethodView):
    @blp.response(200, BotVersionListSchema)
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def get(self, bot_id: int, pagination_parameters: Any) -> dict[str, Any]:
        """A bot's versions, oldest first, each with its ratings (paginated: page, page_size)"""
        viewer = auth.optional_player()
        bot = get_bot(bot_id)
        session = db.session()
        pagination_parameters.item_count = versions.count(session, bot.id)
        found = window(pagination_parameters)
        made = [] if found is None else versions.versions(session, bot.id, *found)
        return {"bot_id": bot.id, "versions": shown_versions(session, bot, viewer.id if viewer else None, made)}


@blp.route("/<int:bot_id>/faults")
class Faults(MethodView):
    @blp.arguments(FaultsQuerySchema, location="query")
    @blp.response(200, FaultListSchema)
    @blp.paginate(page_size=50, max_page_size=MAX_PAGE_SIZE)
    @blp.alt_response(401, **UNAUTHORIZED)
    @blp.alt_response(404, schema=ErrorSchema, description="no such bot")
    def get(self, query: dict[str, Any], bot_id: int, pagination_parameters: Any) -> dict[str, Any]:
        """A bot's faults, newest first: kind, detail, latency, debug text (paginated: page, page_size)

        Its owner's token lists the faults of the games it still plays too; anyone else sees those of finished
        games only.
        """
        viewer = auth.optional_player()
        bot = get_bot(bot_id)
        owner = viewer is not None and viewer.id == bot.owner_id
        session = db.session()
        game_id = query["game_id"]
        pagination_parameters.item_count = botfaults.count(session, bot.player_id, owner, game_id)
        found = window(pagination_parameters)
        faults = [] if found is None else botfaults.page(session, bot.player_id, owner, *found, game_id=game_id)
        return {"bot_id": bot.id, "faults": faults}
