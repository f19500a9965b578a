"""Request and response bodies of the operator's admin API (``/api/v1/admin``, marshmallow)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.schemas import PRINTABLE, Text


class AccountsQuerySchema(Schema):
    name = Text(
        load_default=None,
        validate=[validate.Length(min=1, max=64), PRINTABLE],
        metadata={"description": "only the accounts whose name holds this (any case)"},
    )
    disabled = fields.Boolean(load_default=None, metadata={"description": "only the disabled (true) or others"})


class AccountSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    created_at = fields.DateTime(required=True)
    disabled = fields.Boolean(required=True)
    operator = fields.Boolean(required=True, metadata={"description": "the operator's own account"})
    bots = fields.Integer(required=True, metadata={"description": "its active bots"})
    games_queued = fields.Integer(
        required=True, metadata={"description": "games of its tournaments not played yet (waiting or running)"}
    )
    games_played = fields.Integer(
        required=True, metadata={"description": "games of its tournaments with a result"}
    )
    faults = fields.Integer(required=True, metadata={"description": "its bots' faults in finished games"})


class AccountListSchema(Schema):
    accounts = fields.List(fields.Nested(AccountSchema), required=True)


class DisabledSchema(Schema):
    account = fields.Nested(AccountSchema, required=True)
    bot_accounts = fields.List(
        fields.Integer(), required=True, metadata={"description": "the accounts of its bots, disabled with it"}
    )
    cancelled_tournaments = fields.List(
        fields.Integer(), required=True, metadata={"description": "its tournaments cancelled (disable only)"}
    )
    closed_ladders = fields.List(
        fields.Integer(), required=True, metadata={"description": "its open ladders closed (disable only)"}
    )


class RevokedSchema(Schema):
    account_id = fields.Integer(required=True)
    token = fields.String(
        required=True,
        metadata={"description": "the account's new token, shown this once: hand it to the account's holder"},
    )


class FlaggedBotSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    owner_id = fields.Integer(required=True)
    excluded = fields.Boolean(required=True, metadata={"description": "excluded by its failed health checks"})
    failed_checks = fields.Integer(required=True, metadata={"description": "health checks failed in a row"})
    paused = fields.Boolean(required=True)
    account_disabled = fields.Boolean(required=True)
    stalling = fields.Boolean(
        required=True, metadata={"description": "a worker's last call to it ran out its deadline"}
    )
    checked_at = fields.DateTime(allow_none=True)


class BotAdminSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    owner_id = fields.Integer(required=True)
    active = fields.Boolean(required=True, metadata={"description": "false once deleted"})
    paused = fields.Boolean(required=True)


class FlaggedBotListSchema(Schema):
    bots = fields.List(fields.Nested(FlaggedBotSchema), required=True)


class QueuedAccountSchema(Schema):
    account_id = fields.Integer(required=True)
    name = fields.String(required=True)
    fed = fields.Integer(required=True, metadata={"description": "games given a job, waiting for a worker's slot"})
    unfed = fields.Integer(required=True, metadata={"description": "games waiting their turn in the database"})
    running = fields.Integer(required=True, metadata={"description": "games a worker plays now"})


class OldestWaitingSchema(Schema):
    scheduled_game_id = fields.Integer(required=True)
    tournament_id = fields.Integer(required=True)
    account_id = fields.Integer(required=True)
    since = fields.DateTime(required=True, metadata={"description": "its run's start (or creation)"})
    age_seconds = fields.Float(required=True)


class QueueSchema(Schema):
    accounts = fields.List(fields.Nested(QueuedAccountSchema), required=True)
    fed = fields.Integer(required=True)
    unfed = fields.Integer(required=True)
    running = fields.Integer(required=True)
    oldest_waiting = fields.Nested(OldestWaitingSchema, allow_none=True, required=True)


class WorkerSchema(Schema):
    name = fields.String(required=True)
    slots = fields.Integer(required=True)
    busy = fields.Integer(required=True, metadata={"description": "slots playing a game now"})
    moves_per_second = fields.Float(required=True, metadata={"description": "over its last clock tick"})
    stalling = fields.List(fields.Integer(), required=True, metadata={"description": "ids of bots stalling there"})
    seen_seconds_ago = fields.Float(required=True, metadata={"description": "since its last heartbeat"})


class WorkerListSchema(Schema):
    queue = fields.String(required=True, metadata={"description": "redis (RQ workers) or embedded (this process)"})
    workers = fields.List(fields.Nested(WorkerSchema), required=True)


class AuditSchema(Schema):
    id = fields.Integer(required=True)
    at = fields.DateTime(required=True)
    actor_id = fields.Integer(required=True)
    action = fields.String(required=True)
    target_kind = fields.String(required=True, metadata={"description": "account, bot or tournament"})
    target_id = fields.Integer(required=True)
    detail = fields.Dict(required=True)


class AuditListSchema(Schema):
    actions = fields.List(fields.Nested(AuditSchema), required=True, metadata={"description": "newest first"})
