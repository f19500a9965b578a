"""The card game behind the shared game API (:mod:`engine.ruleset`)."""

from __future__ import annotations

from engine.card import codec, rules, sampling
from engine.card.settings import normalize
from engine.ruleset import Ruleset

CARD = Ruleset(
    "card",
    normalize,
    rules.setup,
    rules.legal,
    rules.play,
    codec.to_json,
    codec.from_json,
    codec.view,
    sampling.determinize,
)
