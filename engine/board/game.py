"""The board game's :class:`engine.ruleset.Ruleset`: its functions behind the game API (:mod:`engine.api`)."""

from __future__ import annotations

from engine.board import codec, rules, sampling
from engine.board.settings import normalize
from engine.board.state import BoardState
from engine.ruleset import Ruleset

BOARD: Ruleset[BoardState] = Ruleset(
    name="board",
    normalize_settings=normalize,
    setup=rules.setup,
    legal=rules.legal,
    apply=rules.play,
    view=codec.view,
    to_json=codec.to_json,
    from_json=codec.from_json,
    determinize=sampling.determinize,
)
