"""Seeded randomness: every random choice of a game comes from here (no global random).

Rather than carry a generator's 2.5 KB internal state in every saved game, each random event derives a fresh
generator from the game's seed, a purpose and a counter (``"shuffle", 3``): the game stays a pure function of
its seed and actions, and its JSON form needs only the counters. ``random.Random`` seeded with a ``str`` hashes it
with SHA-512, independently of ``PYTHONHASHSEED``, so the streams are the same on every machine and run.
"""

from __future__ import annotations

import random


def derived_random(seed: int, purpose: str, counter: int = 0) -> random.Random:
    return random.Random(f"{seed}:{purpose}:{counter}")


def shuffled(cards: list[str], seed: int, purpose: str, counter: int) -> list[str]:
    """A new list with ``cards`` in an order drawn from (seed, purpose, counter).

    The order is ``random.Random.shuffle``'s from the same generator, spelled out: a Fisher-Yates shuffle whose
    index below ``n`` is ``getrandbits(n.bit_length())`` redrawn until below ``n``, the draws CPython's ``shuffle``
    makes (``_randbelow``). Inline, the deck is dealt without a Python call per card, and its order no longer
    hangs on how a future ``random`` module shuffles.
    """
    deck = list(cards)
    getrandbits = derived_random(seed, purpose, counter).getrandbits
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
