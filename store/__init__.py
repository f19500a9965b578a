"""The data floor: the tables (``store.models``), the database engine without Flask (``store.database``), the
fast lane and group commit of the move path (``store.fastlane``, ``store.groupcommit``), the one writer of a
game's log (``store.gamelog``) and the migrations (``store.migrate``, ``store/migrations/``).

The REST service and the tournament workers both stand on it; it imports neither, nor Flask, only the engine.
"""
