"""The card game's :class:`engine.ruleset.Ruleset`: its functions behind the game API (:mod:`engine.api`)."""

from __future__ import annotations

from engine.card import codec, rules, sampling
from engine.card.settings import normalize
from engine.card.state import CardState
from engine.ruleset import Ruleset

CARD: Ruleset[CardState] = Ruleset(
    name="card",
    normalize_settings=normalize,
    setup=rules.setup,
    legal=rules.legal,
    apply=rules.play,
    view=codec.view,
    to_json=codec.to_json,
    from_json=codec.from_json,
    determinize=sampling.determinize,
)
