"""English and French names and messages (engine/i18n.py): the table is complete and every real action and event
of both games reads as a sentence in both languages."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

import engine
from engine import i18n
from engine.board import cards as board_cards
from engine.board.state import KINDS as BOARD_DECISIONS
from engine.card import cards as card_cards
from engine.card.state import KINDS as CARD_DECISIONS

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("board", {"variant": "standard"}),
    ("board", {"variant": "team"}),
    ("board", {"variant": "points"}),
    ("board", {"variant": "standard", "edition": "1972", "players": 2}),
    ("board", {"variant": "standard", "players": 3, "turn_cap": 30}),  # a game the turn cap ends
    ("card", {}),
    ("card", {"longer_game": True}),
    ("card", {"players": 2, "pawns": 8}),  # more rounds: more chances of reshuffles, steals and blocks
]
SEEDS = range(4)


@cache
def played(game: str, variant: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    """Events, action descriptions and decision kinds of one complete random game."""
    settings = VARIANTS[variant][1]
    state = engine.new_game(game, dict(settings), seed)
    events = engine.opening_events(state)
    rng = random.Random(seed)
    descriptions: list[dict[str, Any]] = []
    decisions: list[str] = []
    while (asked := engine.decision(state)) is not None:
        decisions.append(asked.kind)
        actions = engine.legal_actions(state, asked.seat)
        descriptions.extend(action.description for action in actions)
        events.extend(engine.apply(state, rng.choice(actions).id, asked.seat))
    return events, descriptions, decisions


def all_played(game: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[str]]:
    events: list[dict[str, Any]] = []
    descriptions: list[dict[str, Any]] = []
    decisions: list[str] = []
    for index, (kind, _) in enumerate(VARIANTS):
        if kind != game:
            continue
        for seed in SEEDS:
            more = played(game, index, seed)
            events += more[0]
            descriptions += more[1]
            decisions += more[2]
    return events, descriptions, decisions


def test_every_key_has_exactly_both_languages_and_non_empty_texts() -> None:
    assert i18n.LANGUAGES == ("en", "fr")
    for key, texts in i18n.MESSAGES.items():
        assert set(texts) == set(i18n.LANGUAGES), key
        assert all(isinstance(text, str) and text for text in texts.values()), key


def test_every_key_has_the_same_placeholders_in_both_languages() -> None:
    for key, texts in i18n.MESSAGES.items():
        assert i18n.placeholders(texts["en"]) == i18n.placeholders(texts["fr"]), key


@pytest.mark.parametrize(("game", "cards"), [("board", board_cards.CARDS), ("card", card_cards.CARDS)])
def test_every_card_has_a_name_in_both_languages(game: str, cards: tuple[str, ...]) -> None:
    for card in cards:
        assert f"card.{game}.{card}" in i18n.MESSAGES
        for language in i18n.LANGUAGES:
            assert i18n.card_name(game, card, language)


@pytest.mark.parametrize(
    ("game", "card", "language", "name"),
    [
        ("card", "slide15", "fr", "Glissez à 15"),
        ("card", "slide15", "en", "Slide to 15"),
        ("card", "take2", "fr", "Pigez-en 2"),
        ("card", "switch", "fr", "Changement de direction"),
        ("card", "play2", "fr", "Jouez-en 2"),
        ("card", "block", "fr", "SORRY! Pas vraiment…"),
        ("card", "block", "en", "Don't Be SORRY!"),
        ("board", "sorry", "fr", "SORRY!"),
        ("board", "12", "en", "12"),
    ],
)
def test_card_names_are_the_sheets_words(game: str, card: str, language: str, name: str) -> None:
    assert i18n.card_name(game, card, language) == name


@pytest.mark.parametrize(
    ("key", "fr"),
    [
        ("location.start", "DÉPART"),
        ("location.home", "ARRIVÉE"),
        ("pile.card.play", "Pile de jeu"),
        ("pile.card.draw", "Pile de pige"),
        ("colour.green", "vert"),
    ],
)
def test_vocabulary_of_the_french_sheets(key: str, fr: str) -> None:
    assert i18n.message(key, "fr") == fr


def test_every_kind_and_type_of_the_engine_has_messages() -> None:
    assert set(i18n.BOARD_DECISION_KINDS) == set(BOARD_DECISIONS)
    assert set(i18n.CARD_DECISION_KINDS) == set(CARD_DECISIONS)
    for kind in (*BOARD_DECISIONS, *CARD_DECISIONS):
        assert f"decision.{kind}" in i18n.MESSAGES
    for kind in i18n.BOARD_ACTION_KINDS:
        assert f"action.board.{kind}" in i18n.MESSAGES
    for kind in i18n.CARD_ACTION_KINDS:
        assert f"action.card.{kind}" in i18n.MESSAGES
    for kind in i18n.BOARD_EVENT_TYPES:
        assert f"event.board.{kind}" in i18n.MESSAGES
    for kind in i18n.CARD_EVENT_TYPES:
        assert f"event.card.{kind}" in i18n.MESSAGES


@pytest.mark.parametrize("game", ["board", "card"])
def test_every_action_and_event_of_random_games_reads_in_both_languages(game: str) -> None:
    events, descriptions, decisions = all_played(game)
    kinds = i18n.BOARD_ACTION_KINDS if game == "board" else i18n.CARD_ACTION_KINDS
    types = i18n.BOARD_EVENT_TYPES if game == "board" else i18n.CARD_EVENT_TYPES
    seen_descriptions = {repr(description): description for description in descriptions}
    for description in seen_descriptions.values():
        assert description["kind"] in kinds, description
        texts = {language: i18n.describe_action(game, description, language) for language in i18n.LANGUAGES}
        assert all(texts.values()), description
        assert "{" not in texts["en"] + texts["fr"], texts
    for event in events:
        assert event["type"] in types, event
        for language in i18n.LANGUAGES:
            text = i18n.describe_event(game, event, language)
            assert text and "{" not in text, (event, text)
            assert not text.startswith(i18n.message("event.unknown", language, type="")), event
    for kind in set(decisions):
        assert i18n.describe_decision(kind, 0, "fr") != i18n.describe_decision(kind, 0, "en")


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        ("board", {"forward", "backward", "start", "split", "swap", "sorry", "pass", "discard"}),
        # the rare ones (discard: a turn with no playable card) need not occur in a handful of games
        ("card", {"play", "sorry", "steal", "block", "pass", "tiebreak"}),
    ],
)
def test_the_random_games_reach_the_action_kinds(game: str, expected: set[str]) -> None:
    """Guards the coverage of the test above: the games played do produce these kinds."""
    _, descriptions, _ = all_played(game)
    assert expected <= {description["kind"] for description in descriptions}


@pytest.mark.parametrize(
    ("game", "expected"),
    [
        ("board", {"draw", "reshuffle", "forfeit", "move", "game_over"}),
        (
            "card",
            {"deal", "first_player", "draw", "action", "twenty_one", "bust", "home", "start", "round_over"}
            | {"direction", "game_over"},
        ),
    ],
)
def test_the_random_games_reach_the_event_types(game: str, expected: set[str]) -> None:
    events, _, _ = all_played(game)
    assert expected <= {event["type"] for event in events}


@pytest.mark.parametrize("game", ["board", "card"])
def test_french_differs_from_english(game: str) -> None:
    events, descriptions, _ = all_played(game)
    public = [event for event in events if event["type"] in ("move", "action", "draw", "game_over")][:50]
    assert public
    for event in public:
        assert i18n.describe_event(game, event, "fr") != i18n.describe_event(game, event, "en"), event
    different = [
        description
        for description in descriptions[:200]
        if i18n.describe_action(game, description, "fr") != i18n.describe_action(game, description, "en")
    ]
    assert len(different) > 150


def test_board_action_sentences() -> None:
    split = {
        "card": "7",
        "kind": "split",
        "moves": [
            {"pawn": "red0", "from": "track:9", "to": "track:13", "steps": 4},
            {"pawn": "red2", "from": "track:19", "to": "track:28", "steps": 3},
        ],
        "bumps": [{"pawn": "blue1", "from": "track:13"}],
        "slides": [{"pawn": "red2", "from": "track:24", "to": "track:28"}],
    }
    assert i18n.describe_action("board", split) == (
        "7: red 0 forward 4, red 2 forward 3; red 2 slides to square 29; blue 1 bumped back to START"
    )
    assert i18n.describe_action("board", split, "fr") == (
        "7 : rouge 0 avance de 4, rouge 2 avance de 3; rouge 2 glisse jusqu'à case 29; bleu 1 renvoyé à DÉPART"
    )
    start = {
        "card": "1",
        "kind": "start",
        "moves": [{"pawn": "green3", "from": "start", "to": "track:49", "steps": 0}],
        "bumps": [],
        "slides": [],
    }
    assert i18n.describe_action("board", start, "fr") == "1 : vert 3 sort de DÉPART vers case 50"
    back = {
        "card": "10",
        "kind": "backward",
        "moves": [{"pawn": "yellow0", "from": "safety:0", "to": "track:32", "steps": -1}],
        "bumps": [],
        "slides": [],
    }
    assert i18n.describe_action("board", back) == "10: yellow 0 backward 1"
    sorry = {
        "card": "sorry",
        "kind": "sorry",
        "moves": [{"pawn": "red1", "from": "start", "to": "track:33", "steps": 0}],
        "bumps": [{"pawn": "blue0", "from": "track:33"}],
        "slides": [],
    }
    assert i18n.describe_action("board", sorry, "fr") == (
        "SORRY! : rouge 1 prend la place de bleu 0; bleu 0 renvoyé à DÉPART"
    )


def test_a_pawn_is_named_as_its_id_numbers_it() -> None:
    """One rule for pawns: the number in words is the id's (``red0`` is "red 0"), in both languages, so that a
    sentence and its action id agree; an unexpected name is shown as it is."""
    for colour, french in (("red", "rouge"), ("blue", "bleu"), ("yellow", "jaune"), ("green", "vert")):
        for index in range(4):
            assert i18n.pawn_name(f"{colour}{index}") == f"{colour} {index}"
            assert i18n.pawn_name(f"{colour}{index}", "fr") == f"{french} {index}"
    assert i18n.pawn_name("purple1") == "purple1" and i18n.pawn_name("red") == "red"
    forward = {
        "card": "4",
        "kind": "backward",
        "moves": [{"pawn": "red0", "from": "track:9", "to": "track:5", "steps": -4}],
        "bumps": [],
        "slides": [],
    }
    assert i18n.describe_action("board", forward) == "4: red 0 backward 4"  # the action 4:red0-4


def test_card_action_and_event_sentences() -> None:
    assert i18n.describe_action("card", {"kind": "play", "cards": ["slide15"], "total_after": 15}, "fr") == (
        "jouer Glissez à 15 (total 15)"
    )
    assert i18n.describe_action("card", {"kind": "play", "cards": ["take2"]}) == "play Take 2"
    sorry = {"kind": "sorry", "cards": ["sorry"], "target": 3, "target_colour": "green"}
    assert i18n.describe_action("card", sorry, "fr") == "jouer SORRY! contre Joueur 4 (vert)"
    bust_tiebreak = {"kind": "tiebreak", "cards": ["10", "slide21"], "score": -1}
    assert i18n.describe_action("card", bust_tiebreak) == "tiebreaker: 10, Slide to 21 (bust)"
    assert i18n.describe_action("card", {"kind": "tiebreak", "cards": [], "score": 0}, "fr") == (
        "bris d'égalité : aucune carte (score 0)"
    )
    assert i18n.describe_event("card", {"type": "bust", "to": None, "seat": 1, "total": 23}, "fr") == (
        "Joueur 2 est cuit à 23!"
    )
    stolen = {"type": "home", "to": None, "seat": 0, "reason": "stolen 21", "home": 2}
    assert i18n.describe_event("card", stolen).startswith("Player 1 steals the 21")
    over = {"type": "game_over", "to": None, "ranks": [2, 1, 1], "reason": "win", "winners": [1, 2]}
    assert i18n.describe_event("card", over, "fr") == (
        "Fin de la partie : victoire de Joueur 2 et Joueur 3. Classement : 1. Joueur 2, 1. Joueur 3, 2. Joueur 1"
    )
    capped = {
        "type": "game_over",
        "to": None,
        "ranks": [1, 2],
        "reason": "turn_cap",
        "winners": [],
        "scores": [5, 0],
    }
    assert i18n.describe_event("board", capped) == (
        "Game over: the turn limit was reached. Ranking: 1. Player 1 (5 points), 2. Player 2 (0 points)"
    )
    ties = {
        "type": "tiebreak_cards",
        "to": None,
        "choices": {"2": ["1", "1"], "0": ["2", "7"]},
        "scores": {"0": 9, "2": 2},
    }
    assert (
        i18n.describe_event("card", ties) == "Tiebreaker cards: Player 1: 2, 7 (score 9); Player 3: 1, 1 (score 2)"
    )
    assert i18n.describe_event("card", {"type": "draw", "to": None, "seat": 0, "count": 1}, "fr") == (
        "Joueur 1 pige 1 carte"
    )


@pytest.mark.parametrize(
    ("game", "event", "en", "fr"),
    [
        (
            "card",
            {
                "type": "action",
                "to": None,
                "seat": 2,
                "action": "discard:block",
                "kind": "discard",
                "cards": ["block"],
            },
            "Player 3: discard Don't Be SORRY!",
            "Joueur 3 : défausser SORRY! Pas vraiment…",
        ),
        (
            "card",
            {"type": "no_cards", "to": None, "seat": 0},
            "Player 1 has no cards and is skipped",
            "Joueur 1 n'a aucune carte et passe son tour",
        ),
        (
            "card",
            {"type": "round_over", "to": None, "pile": ["sorry"]},
            "The round is over; the play pile (1 card) is set aside",
            "La ronde est terminée; la pile de jeu (1 carte) est mise de côté",
        ),
        (
            "board",
            {"type": "forfeit", "to": None, "seat": 1, "card": "sorry"},
            "Player 2 cannot move with SORRY!",
            "Joueur 2 ne peut pas se déplacer avec la carte SORRY!",
        ),
        (
            "board",
            {"type": "draw", "to": 3, "seat": 3, "cards": ["sorry", "1"]},
            "Player 4 draws SORRY!, 1",
            "Joueur 4 tire SORRY!, 1",
        ),
    ],
)
def test_events_rare_in_random_games(game: str, event: dict[str, Any], en: str, fr: str) -> None:
    assert i18n.describe_event(game, event, "en") == en
    assert i18n.describe_event(game, event, "fr") == fr


def test_a_tiebreak_choice_without_its_cards_does_not_invent_them() -> None:
    hidden = {"type": "action", "to": None, "seat": 0, "action": "tiebreak", "kind": "tiebreak"}
    assert i18n.describe_event("card", hidden) == "Player 1: tiebreaker cards chosen in secret"


def test_the_public_twin_of_a_secret_tiebreak_choice_says_it_was_made_in_secret() -> None:
    """The public twin carries "cards": [] but no score: it must not read as "no cards (score 0)"."""
    public = {"type": "action", "to": None, "seat": 1, "action": "tiebreak", "kind": "tiebreak", "cards": []}
    assert i18n.describe_event("card", public, "en") == "Player 2: tiebreaker cards chosen in secret"
    assert i18n.describe_event("card", public, "fr") == "Joueur 2 : cartes du bris d'égalité choisies en secret"
    for language in i18n.LANGUAGES:
        text = i18n.describe_event("card", public, language)
        assert "score" not in text and i18n.message("cards.none", language) not in text
    private = {**public, "to": 1, "action": "tiebreak:none", "score": 0}
    assert i18n.describe_event("card", private, "en") == "Player 2: tiebreaker: no cards (score 0)"
    assert i18n.describe_event("card", private, "fr") == "Joueur 2 : bris d'égalité : aucune carte (score 0)"


@pytest.mark.parametrize(
    ("event", "en", "fr"),
    [
        (
            {"type": "start", "to": None, "seat": 1, "home": 2, "flipped_to": "start"},
            "SORRY! Player 2 flips a pawn card back to START (pawn cards at HOME: 2)",
            "SORRY! Joueur 2 remet une carte Pion du côté DÉPART (cartes Pion du côté ARRIVÉE : 2)",
        ),
        (
            {"type": "start", "to": None, "seat": 1, "home": 2},  # an event stored before "flipped_to"
            "SORRY! Player 2 flips a pawn card back to START (pawn cards at HOME: 2)",
            "SORRY! Joueur 2 remet une carte Pion du côté DÉPART (cartes Pion du côté ARRIVÉE : 2)",
        ),
        (
            {"type": "start", "to": None, "seat": 0, "home": 3, "flipped_to": "home"},
            "SORRY! Player 1 flips a pawn card back to HOME (pawn cards at HOME: 3)",
            "SORRY! Joueur 1 remet une carte Pion du côté ARRIVÉE (cartes Pion du côté ARRIVÉE : 3)",
        ),
        (
            {"type": "home", "to": None, "seat": 2, "reason": "bust", "home": 1},
            "Player 3 flips a pawn card after the bust (pawn cards at HOME: 1)",
            "Joueur 3 retourne une carte Pion, car le total a dépassé 21 (cartes Pion du côté ARRIVÉE : 1)",
        ),
    ],
)
def test_pawn_card_flip_sentences(event: dict[str, Any], en: str, fr: str) -> None:
    assert i18n.describe_event("card", event, "en") == en
    assert i18n.describe_event("card", event, "fr") == fr
    assert "cuit" not in i18n.describe_event("card", event, "fr")


def test_decisions() -> None:
    assert i18n.describe_decision("steal", 1, "fr") == "Joueur 2 : jouez SORRY! pour voler le 21, ou passez"
    assert i18n.describe_decision("move", 0) == "Player 1: move a pawn with the card drawn"


def test_an_unknown_event_type_is_named_not_raised() -> None:
    assert i18n.describe_event("board", {"type": "earthquake", "to": None}) == "Event: earthquake"


def test_message_formats_and_falls_back_to_english() -> None:
    assert i18n.message("action.board.forward", "fr", pawn="rouge 1", steps=4) == "rouge 1 avance de 4"
    assert i18n.message("action.board.forward", "de", pawn="red 1", steps=4) == "red 1 forward 4"
    assert i18n.message("location.home", "fr-CA") == "ARRIVÉE"
    assert i18n.message("location.home") == "HOME"
    assert i18n.card_name("card", "switch", "xx") == "Switch"


def test_an_unknown_key_raises_key_error_naming_it() -> None:
    with pytest.raises(KeyError, match=r"no\.such\.key"):
        i18n.message("no.such.key", "fr")
    with pytest.raises(KeyError, match=r"card\.board\.6"):
        i18n.card_name("board", "6")


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("fr-CA,fr;q=0.9,en;q=0.8", "fr"),
        ("fr", "fr"),
        ("FR-ca", "fr"),
        ("en-US,en;q=0.9,fr;q=0.8", "en"),
        ("fr;q=0.5, en;q=0.9", "en"),
        ("en;q=0.5, fr;q=0.9", "fr"),
        ("de, fr;q=0.1", "fr"),
        ("de, es", "en"),
        ("en;q=0, fr", "fr"),
        ("fr;q=0", "en"),
        ("*", "en"),
        ("*;q=0.5, fr;q=0.6", "fr"),
        ("*;q=0.6, fr;q=0.5", "en"),
        ("fr;q=0.8, en;q=0.8", "fr"),  # a tie goes to the first
        (" fr ; q = 0.7 , en ; q=0.6", "fr"),
        ("fr;q=abc, en;q=0.1", "en"),  # a malformed entry is ignored
        ("fr;q=2", "en"),
        ("fr;q=nan", "en"),
        ("fr;q=-1", "en"),
        ("fr;level=1;q=0.9", "fr"),
        ("", "en"),
        (";;,,;q=", "en"),
        ("\x00\xff", "en"),
        (None, "en"),
    ],
)
def test_pick_language(header: str | None, language: str) -> None:
    assert i18n.pick_language(header) == language


def test_pick_language_never_raises_on_odd_input() -> None:
    rng = random.Random(3)
    alphabet = "frenFR-;q=,.*0123456789 \t"
    for _ in range(2000):
        header = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        assert i18n.pick_language(header) in i18n.LANGUAGES
    assert i18n.pick_language(12) == "en"  # type: ignore[arg-type]
