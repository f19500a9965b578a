"""Fixtures of the starter bots' tests (tests/arenakit.py, shared with tests/tournament/ and tests/clients/): an app
that may call loopback bots and runs its jobs on its own threads, its client, and a player who owns the bots."""

from tests.arenakit import arena, client, owner  # noqa: F401 (fixtures)
from tests.starters.starterkit import go_binary, starter  # noqa: F401 (fixtures)
