"""Request and response bodies of the API (marshmallow), which flask-smorest turns into the OpenAPI document.

Engine views, action descriptions and events are JSON objects whose fields depend on the game (see docs/api.md,
"The game API"); the schemas name them and describe their common fields.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import Schema, fields, types, validate

MAX_SEED = 2**63 - 1
MAX_INT = 2**31 - 1
"""Ids, plies and counts are 32-bit in the database: larger numbers are refused before they reach it."""
PRINTABLE = validate.Regexp(r"^[^\x00-\x1f\x7f]*$", error="must not contain control characters")
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""NUL, which PostgreSQL keeps in no text value, and lone surrogates (a JSON ``\\ud800`` escape without its pair),
which are not UTF-8 at all: no database stores either."""


class Text(fields.String):
    """A string sent to the API: every free-text field and string query parameter of the request schemas is one.
    It refuses NUL and lone surrogate characters (a 422 naming the field), before any validator."""

    default_error_messages: types.ErrorMessages = {  # noqa: RUF012 (marshmallow merges the classes' dicts)
        "unstorable": "must not contain NUL or lone surrogate characters"
    }

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        if UNSTORABLE.search(text):
            raise self.make_error("unstorable")
        return text


class PlayerCreateSchema(Schema):
    name = Text(required=True, validate=[validate.Length(min=1, max=64), PRINTABLE])


class PlayerCreatedSchema(Schema):
    id = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(
        required=True, metadata={"description": "the bearer token: shown this once, stored only as a hash"}
    )


class WhoAmISchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the account of the token"})
    name = fields.String(required=True)
    bot_id = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the bot whose own account this is (a bot's token), null for a person's account"},
    )
    owned_bots = fields.Integer(required=True, metadata={"description": "the active bots this account owns"})


class GameCreateSchema(Schema):
    game = Text(required=True, validate=validate.OneOf(["board", "card"]))
    settings = fields.Dict(
        keys=Text(),
        load_default=dict,
        metadata={
            "description": "board: variant (standard|team|points), edition (1992|1972), turn_cap; "
            "card: deck, longer_game, pawns, turn_cap. Defaults fill what is missing."
        },
    )
    seats = fields.Integer(required=True, validate=validate.Range(min=2, max=4))
    seed = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={"description": "default: a random seed, stored and shown once the game is over"},
    )


class SeatHolderSchema(Schema):
    seat = fields.Integer(required=True)
    player_id = fields.Integer(required=True)
    name = fields.String(required=True)


class DecisionSchema(Schema):
    seat = fields.Integer(required=True)
    kind = fields.String(
        required=True, metadata={"description": "move, play, turn, play2, steal, block, tiebreak"}
    )


class GameSchema(Schema):
    id = fields.Integer(required=True)
    game = fields.String(required=True)
    settings = fields.Dict(required=True)
    seats = fields.Integer(required=True)
    status = fields.String(
        required=True, metadata={"description": "open, active, over, or cancelled (its tournament was cancelled)"}
    )
    ply = fields.Integer(required=True, metadata={"description": "actions applied so far"})
    players = fields.List(fields.Nested(SeatHolderSchema), required=True)
    your_seat = fields.Integer(allow_none=True, required=True)
    view = fields.Dict(
        required=True,
        metadata={"description": "the engine's view: the caller's seat view if it holds a seat, else public"},
    )
    result = fields.Dict(allow_none=True, required=True)
    void = fields.Boolean(
        required=True,
        metadata={"description": "a tournament game void: a seat forfeited for a reason on the service's side"},
    )
    void_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "why it is void (excluded, rejected: docs/ratings.md); null: it is not"},
    )
    seed = fields.Integer(allow_none=True, required=True, metadata={"description": "null until the game is over"})
    created_at = fields.DateTime(required=True)


GAMES_PAGE_SIZE = 10
"""Games per page of ``GET /games`` unless ``page_size`` says."""


class GameListQuerySchema(Schema):
    game = Text(validate=validate.OneOf(["board", "card"]))
    status = Text(validate=validate.OneOf(["open", "active", "over", "cancelled"]))
    player = fields.Integer(
        validate=validate.Range(min=1, max=MAX_INT), metadata={"description": "games with this player"}
    )
    before = fields.Integer(
        validate=validate.Range(min=1, max=MAX_INT),
        metadata={"description": "the games older than this game id (the next page: the Link header's rel=next)"},
    )
    page_size = fields.Integer(
        load_default=GAMES_PAGE_SIZE,
        validate=validate.Range(min=1, max=100),
        metadata={"description": f"games per page, 1 to 100 (default {GAMES_PAGE_SIZE})"},
    )
    page = fields.Integer(
        validate=validate.Range(
            min=1, max=1, error="games are paged with before=<game id> (the Link header's next), not page"
        ),
        metadata={"description": "gone: only 1 is accepted; the next page is before=<the last game's id>"},
    )


class SeatTakeSchema(Schema):
    seat = fields.Integer(load_default=None, allow_none=True, validate=validate.Range(min=0, max=3))


class SeatTakenSchema(Schema):
    game_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    status = fields.String(required=True)


class HandSchema(Schema):
    game_id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    cards = fields.List(fields.String(), required=True, metadata={"description": "empty in games without hands"})


DEADLINE = (
    "when `decision` must be answered (ISO 8601, UTC, to the millisecond). In a tournament game: the time the "
    "position was saved plus the tournament's move_timeout_ms. Conservative: the tournament's worker starts its "
    "timer only once the position is saved (or once it sees the move that led here), so the time it gives the seat "
    "never ends before this deadline (it ends later when a worker resumes a game after a crash, or after the "
    "opening's start notifications). Compare it with the service's clock (the Date header). null: no time limit "
    "(a game outside tournaments), or no decision"
)


class ActionsQuerySchema(Schema):
    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "long poll: wait up to this many seconds until you must decide"},
    )


class ActionSchema(Schema):
    id = fields.String(required=True)
    text = fields.String(required=True, metadata={"description": "the action in words (Accept-Language)"})

    class Meta:
        unknown = "include"


class ActionsSchema(Schema):
    game_id = fields.Integer(required=True)
    ply = fields.Integer(required=True)
    status = fields.String(required=True)
    seat = fields.Integer(required=True)
    decision = fields.Nested(DecisionSchema, allow_none=True, required=True)
    your_decision = fields.Boolean(required=True)
    deadline = fields.DateTime(allow_none=True, required=True, metadata={"description": DEADLINE})
    actions = fields.List(
        fields.Dict(), required=True, metadata={"description": "id, text and the structured description"}
    )


MAX_ACTION = 200
"""The longest action id (``ActionRecord.action`` is a String(200))."""


DEBUG = (
    "optional: the bot's debug text for this move (what it searched, why it chose), kept with the move as a push "
    "bot's: its first 1 KiB of UTF-8, control characters removed; shown to the bot's owner while the game runs, "
    "to everyone once it is over (the game viewer, the game's record)"
)


class ActionSubmitSchema(Schema):
    action = Text(required=True, validate=validate.Length(min=1, max=MAX_ACTION))
    expected_ply = fields.Integer(
        required=True, validate=validate.Range(min=0, max=MAX_INT), metadata={"description": "the ply it answers"}
    )
    # any string: the game log cleans it before it is stored (store.gamelog.clean_debug drops NUL and every other
    # control character, replaces lone surrogates, keeps 1 KiB), as it cleans a push bot's
    debug = fields.String(load_default=None, allow_none=True, metadata={"description": DEBUG})


class SubmittedSchema(Schema):
    game_id = fields.Integer(required=True)
    ply = fields.Integer(required=True, metadata={"description": "the game's ply after your action"})
    status = fields.String(required=True)
    view = fields.Dict(required=True, metadata={"description": "your seat's view after your action"})
    decision = fields.Nested(
        DecisionSchema,
        allow_none=True,
        required=True,
        metadata={"description": "who must decide now (null: over)"},
    )
    your_decision = fields.Boolean(
        required=True, metadata={"description": "true when you must decide again at once (no GET needed)"}
    )
    deadline = fields.DateTime(allow_none=True, required=True, metadata={"description": DEADLINE})
    actions = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "your legal actions now when your_decision, else []"},
    )


class EventsQuerySchema(Schema):
    since = fields.Integer(
        load_default=-1, validate=validate.Range(min=-1, max=MAX_INT), metadata={"description": "after seq"}
    )
    limit = fields.Integer(load_default=500, validate=validate.Range(min=1, max=1000))


class EventSchema(Schema):
    seq = fields.Integer(required=True)
    ply = fields.Integer(required=True)
    private = fields.Boolean(required=True, metadata={"description": "seen by the caller's seat only"})
    event = fields.Dict(required=True)
    text = fields.String(required=True)


class ReplaySchema(Schema):
    game = fields.String(required=True)
    settings = fields.Dict(required=True)
    seed = fields.Integer(required=True)
    actions = fields.List(fields.String(), required=True)


class EventsSchema(Schema):
    game_id = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    replay = fields.Nested(ReplaySchema, allow_none=True, required=True, metadata={"description": "once over"})


class DecisionsQuerySchema(Schema):
    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "long poll: wait up to this many seconds until you must decide in some game"},
    )
    limit = fields.Integer(
        load_default=50, validate=validate.Range(min=1, max=500), metadata={"description": "at most this many"}
    )
    texts = fields.Boolean(
        load_default=False,
        metadata={"description": "add each action's text (Accept-Language), as GET actions does"},
    )


class PendingDecisionSchema(Schema):
    game_id = fields.Integer(required=True)
    game = fields.String(required=True, metadata={"description": "board or card"})
    ply = fields.Integer(required=True, metadata={"description": "the ply to answer (expected_ply)"})
    seat = fields.Integer(required=True, metadata={"description": "your seat in that game"})
    decision = fields.Nested(DecisionSchema, required=True)
    deadline = fields.DateTime(allow_none=True, required=True, metadata={"description": DEADLINE})
    view = fields.Dict(required=True, metadata={"description": "your seat's view of the game"})
    actions = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "id and the structured description (and text with ?texts=true)"},
    )


class DecisionsSchema(Schema):
    decisions = fields.List(
        fields.Nested(PendingDecisionSchema),
        required=True,
        metadata={"description": "every active game where you must decide now, oldest game first"},
    )
    more = fields.Boolean(required=True, metadata={"description": "true when limit left some out"})
    games = fields.Integer(required=True, metadata={"description": "your active games"})
