"""The board game behind the shared game API (:mod:`engine.ruleset`)."""

from __future__ import annotations

from engine.board import codec, rules, sampling
from engine.board.settings import normalize
from engine.ruleset import Ruleset

BOARD = Ruleset(
    "board",
    normalize,
    rules.setup,
    rules.legal,
    rules.play,
    codec.to_json,
    codec.from_json,
    codec.view,
    sampling.determinize,
)
