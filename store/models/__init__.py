"""The stored data, one module per subject: accounts (players, bots), games (games, seats, actions),
tournaments (schedules, results, rating pools), tallies (running counts of finished games), archive (finished games whose
moves retention deleted), admin (the operator's audit log), idempotency (the keys of create requests), ladders (continuous rated arenas). Every table joins
``Base.metadata`` on import of this package."""

from store.models.accounts import Bot, BotVersion, Player
from store.models.admin import AdminAction
from store.models.archive import ArchivedGame
from store.models.base import Base, now
from store.models.games import ActionRecord, Game, Seat
from store.models.idempotency import IdempotencyKey
from store.models.ladders import Ladder, LadderEntry, LadderGame, LadderPair, LadderPoint, LadderSeat
from store.models.matches import Match
from store.models.tallies import BotTally, TournamentFaultTally
from store.models.tournaments import VOID_REASONS, RatingPool, Result, Tournament, TournamentGame, new_seed_salt

__all__ = [
    "VOID_REASONS",
    "ActionRecord",
    "AdminAction",
    "ArchivedGame",
    "Base",
    "Bot",
    "BotTally",
    "BotVersion",
    "Game",
    "IdempotencyKey",
    "Ladder",
    "LadderEntry",
    "LadderGame",
    "LadderPair",
    "LadderPoint",
    "LadderSeat",
    "Match",
    "Player",
    "RatingPool",
    "Result",
    "Seat",
    "Tournament",
    "TournamentFaultTally",
    "TournamentGame",
    "new_seed_salt",
    "now",
]
