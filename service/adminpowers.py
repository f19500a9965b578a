"""The operator's powers over accounts, tokens, bots and tournaments (``/api/v1/admin``), each written with its
audit row (``admin_actions``) in the transaction of its effect.

- Disabling an account sets ``players.disabled`` on it and on the accounts of the bots it registered: their tokens
  are refused at once by every API process (``service/auth.py`` reads the flag with every token), and its bots
  forfeit every new game from its start, uncalled (``tournament/play/runner.py``), in its tournaments and in
  others'. Its tournaments still to play (scheduled or running) are cancelled as their owner would cancel them
  (``service/cancellation.py``): the disable and its audit row commit in the first cancellation's transaction,
  each further tournament in a transaction of its own; its open ladders are closed (``service/ladders.py``: their
  results stay rated), each in a transaction of its own. Enabling clears the flags (cancelled tournaments stay so,
  closed ladders closed).
- Revoking a token gives the account a new one, returned once to the operator to hand over; the old one is
  unknown from then on (a 401), in every process.
- A paused bot enters no new tournament (a 422) and forfeits every new game of the tournaments it is in;
  unpausing lets it play again. Deleting a bot is its owner's delete (``active`` false), done by the operator.
- Cancelling a tournament is its owner's cancel, done by the operator and logged.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import exists, select, update
from sqlalchemy.orm import Session

from service import auth, cancellation, ladders
from service.errors import fail
from store.models import AdminAction, Bot, Ladder, Player, Tournament, now

ACTIONS = (
    "disable",
    "enable",
    "revoke_token",
    "pause_bot",
    "unpause_bot",
    "delete_bot",
    "cancel_tournament",
)


def record(session: Session, actor_id: int, action: str, kind: str, target_id: int, **detail: Any) -> None:
    """Add the audit row of an action to the session's transaction (committed with the action's effect)."""
    assert action in ACTIONS
    session.add(
        AdminAction(
            at=now(), actor_id=actor_id, action=action, target_kind=kind, target_id=target_id, detail=detail
        )
    )


def account(session: Session, player_id: int) -> Player:
    """The account, or a 404 that names the id."""
    player = session.get(Player, player_id) if 0 < player_id <= 2**31 - 1 else None
    if player is None:
        fail(404, f"no account {player_id}")
    return player


def bot_of(session: Session, bot_id: int) -> Bot:
    """The bot (active or deleted), or a 404 that names the id."""
    bot = session.get(Bot, bot_id) if 0 < bot_id <= 2**31 - 1 else None
    if bot is None:
        fail(404, f"no bot {bot_id}")
    return bot


def not_the_operator(player: Player, what: str) -> None:
    if player.operator:
        fail(409, f"account {player.id} is the operator's: it cannot {what} (rotate SORRY_ARENA_OPERATOR_TOKEN)")


def set_disabled(session: Session, actor_id: int, player: Player, disabled: bool) -> dict[str, Any]:
    """Disable (or enable) the account and its bots' accounts; when disabling, cancel its tournaments still to
    play and close its open ladders. What was done: the bots' accounts, the tournaments cancelled and the ladders
    closed."""
    not_the_operator(player, "be disabled" if disabled else "be enabled")
    bot_accounts = list(session.scalars(select(Bot.player_id).where(Bot.owner_id == player.id).order_by(Bot.id)))
    changed = player.disabled != disabled
    session.execute(update(Player).where(Player.id.in_([player.id, *bot_accounts])).values(disabled=disabled))
    live: list[int] = []
    open_ladders: list[int] = []
    if disabled:
        not_a_ladder = ~exists().where(Ladder.tournament_id == Tournament.id)  # a ladder is closed, not cancelled
        open_ladders = list(
            session.scalars(
                select(Ladder.id)
                .join(Tournament, Tournament.id == Ladder.tournament_id)
                .where(Tournament.owner_id == player.id, Ladder.status == "open")
                .order_by(Ladder.id)
            )
        )
        live = list(
            session.scalars(
                select(Tournament.id)
                .where(
                    Tournament.owner_id == player.id,
                    Tournament.status.in_(cancellation.LIVE),
                    Tournament.parent_id.is_(None),
                    not_a_ladder,
                )
                .order_by(Tournament.id)
            )
        )
        # a later run still live whose first run is over (or was cancelled before the run began)
        live += list(
            session.scalars(
                select(Tournament.id)
                .where(
                    Tournament.owner_id == player.id,
                    Tournament.status.in_(cancellation.LIVE),
                    Tournament.parent_id.is_not(None),
                    Tournament.parent_id.not_in(live),
                )
                .order_by(Tournament.id)
            )
        )
    record(
        session,
        actor_id,
        "disable" if disabled else "enable",
        "account",
        player.id,
        changed=changed,
        bot_accounts=bot_accounts,
        cancelled_tournaments=live,
        closed_ladders=open_ladders,
    )
    if not live:
        session.commit()
    for tournament_id in live:
        cancel(session, tournament_id)
    for ladder_id in open_ladders:
        ladders.close(session, ladders.found(session, ladder_id), actor_id, operator=True)
        current_app.extensions["queue"].queue_ladder_round(ladder_id)
    return {"bot_accounts": bot_accounts, "cancelled_tournaments": live, "closed_ladders": open_ladders}


def cancel(session: Session, tournament_id: int) -> bool:
    """Cancel the tournament (committing what the session holds with it), wake its waiting games and refit its pool;
    whether anything changed."""
    tournament = session.get(Tournament, tournament_id)
    assert tournament is not None
    stopped = cancellation.cancel(session, tournament)
    if stopped is None:
        session.commit()
        return False
    for game_id, ply in stopped:  # a game waiting for a pull bot's move stops now, not at its deadline
        current_app.extensions["notifier"].publish(game_id, ply)
    current_app.extensions["queue"].queue_cancelled(tournament_id)
    return True


def revoke_token(session: Session, actor_id: int, player: Player) -> str:
    """Give the account a new token (returned, never stored: only its hash); the old one is unknown at once."""
    not_the_operator(player, "have its token revoked here")
    token = auth.new_token()
    player.token_hash = auth.token_hash(token)
    record(session, actor_id, "revoke_token", "account", player.id)
    session.commit()
    return token


def set_paused(session: Session, actor_id: int, bot: Bot, paused: bool) -> None:
    changed = bot.paused != paused
    bot.paused = paused
    record(session, actor_id, "pause_bot" if paused else "unpause_bot", "bot", bot.id, changed=changed)
    session.commit()


def delete_bot(session: Session, actor_id: int, bot: Bot) -> None:
    changed = bot.active
    bot.active = False
    ladders.leave_all(session, bot.id)
    record(session, actor_id, "delete_bot", "bot", bot.id, changed=changed, owner_id=bot.owner_id)
    session.commit()


def cancel_tournament(session: Session, actor_id: int, tournament: Tournament) -> bool:
    """Cancel any tournament (a 409 if it is done with no run to come); whether anything changed."""
    record(session, actor_id, "cancel_tournament", "tournament", tournament.id, owner_id=tournament.owner_id)
    return cancel(session, tournament.id)
