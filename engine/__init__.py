"""sorry-arena's game engine: the pure rules of SORRY! games behind one API, :mod:`engine.api` (docs/architecture.md).

This package re-exports exactly that module's names (``engine.__all__ == engine.api.__all__``), so that callers
write ``import engine`` and ``engine.new_game(...)``, ``engine.decision(state)``, ``engine.apply(...)``; the types
are defined in :mod:`engine.types`, each game's rules in :mod:`engine.board` and :mod:`engine.card`.
This package imports nothing outside the standard library.
"""

from engine.api import *  # noqa: F403
from engine.api import __all__ as __all__
