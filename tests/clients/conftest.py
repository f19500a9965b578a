"""Fixtures of the example-bot tests (tests/arenakit.py, shared with tests/tournament/): an app that may call
loopback bots and runs its jobs on its own threads (the embedded queue), its client, and a player who owns the
bots; on SQLite and PostgreSQL."""

from tests.arenakit import arena, client, owner  # noqa: F401 (fixtures)
