"""English and French names and messages of both games: cards, actions, events and decisions.

The vocabulary comes from the printed rule sheets (docs/rules.md lists the names): the SORRY! Card Game's
bilingual Canadian sheet ("Pile de jeu", "Pile de pige", "Cartes Pion", "Glissez à 15", "Pigez-en 2",
"Changement de direction", "Jouez-en 2", "SORRY! Pas vraiment…", "Vous êtes cuit!", "Bris d'égalité", DÉPART,
ARRIVÉE) and the board game's 1992 English sheet and 1972 French sheet (DÉPART, ARRIVÉE, ZONE DE SÛRETÉ, GLISSADE,
pions, "tire une carte", "perd son tour", ROUGE, BLEU, JAUNE, VERT).

:data:`MESSAGES` maps a stable dotted id to its text in each of :data:`LANGUAGES`; texts are ``str.format``
templates. A pawn is named as its id names it, so that a sentence and the action id beside it agree: pawn
``red0`` is "red 0" (``4:red0-4``: "red 0 backward 4"). Places and players, which no action id numbers, are
counted from 1 as people count them: seat 0 is "Player 1", ``track:0`` is "square 1" and ``safety:0`` is "SAFETY
ZONE 1".

The REST service picks the language with :func:`pick_language` from an ``Accept-Language`` header.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from typing import Any

LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"

BOARD_ACTION_KINDS = ("forward", "backward", "start", "split", "swap", "sorry", "pass", "discard")
CARD_ACTION_KINDS = ("play", "discard", "sorry", "steal", "block", "pass", "tiebreak")
BOARD_EVENT_TYPES = ("draw", "reshuffle", "forfeit", "move", "game_over")
CARD_EVENT_TYPES = (
    "deal",
    "first_player",
    "draw",
    "reshuffle",
    "no_cards",
    "action",
    "twenty_one",
    "bust",
    "home",
    "start",
    "round_over",
    "direction",
    "tiebreak",
    "tiebreak_cards",
    "game_over",
)
BOARD_DECISION_KINDS = ("move", "play")
CARD_DECISION_KINDS = ("turn", "play2", "steal", "block", "tiebreak")

_BOARD_NUMBERS = ("1", "2", "3", "4", "5", "7", "8", "10", "11", "12")
_CARD_NUMBERS = tuple(str(value) for value in range(11))

MESSAGES: dict[str, dict[str, str]] = {
    # games and piles
    "game.board": {"en": "SORRY!", "fr": "SORRY!"},
    "game.card": {"en": "SORRY! Card Game", "fr": "SORRY! Jeu de cartes"},
    "pile.board.draw": {"en": "Draw pile", "fr": "paquet"},
    "pile.board.discard": {"en": "Discards", "fr": "cartes défaussées"},
    "pile.card.play": {"en": "Play pile", "fr": "Pile de jeu"},
    "pile.card.draw": {"en": "Draw pile", "fr": "Pile de pige"},
    "card.card.pawn": {"en": "Pawn card", "fr": "Carte Pion"},
    # board cards (the 1992 sheet "THE CARDS"; the 1972 French sheet "SORRY")
    **{f"card.board.{number}": {"en": number, "fr": number} for number in _BOARD_NUMBERS},
    "card.board.sorry": {"en": "SORRY!", "fr": "SORRY!"},
    # card game cards (the card game's English and French sheets)
    **{f"card.card.{number}": {"en": number, "fr": number} for number in _CARD_NUMBERS},
    **{
        f"card.card.slide{value}": {"en": f"Slide to {value}", "fr": f"Glissez à {value}"}
        for value in (10, 15, 21)
    },
    "card.card.take2": {"en": "Take 2", "fr": "Pigez-en 2"},
    "card.card.switch": {"en": "Switch", "fr": "Changement de direction"},
    "card.card.play2": {"en": "Play 2", "fr": "Jouez-en 2"},
    "card.card.sorry": {"en": "SORRY!", "fr": "SORRY!"},
    "card.card.steal": {"en": "SORRY! (steal a 21)", "fr": "SORRY! (voler un 21)"},
    "card.card.block": {"en": "Don't Be SORRY!", "fr": "SORRY! Pas vraiment…"},
    # colours, pawns, seats, locations
    "colour.red": {"en": "red", "fr": "rouge"},
    "colour.blue": {"en": "blue", "fr": "bleu"},
    "colour.yellow": {"en": "yellow", "fr": "jaune"},
    "colour.green": {"en": "green", "fr": "vert"},
    "pawn": {"en": "{colour} {number}", "fr": "{colour} {number}"},
    "seat": {"en": "Player {number}", "fr": "Joueur {number}"},
    "location.start": {"en": "START", "fr": "DÉPART"},
    "location.home": {"en": "HOME", "fr": "ARRIVÉE"},
    "location.safety": {"en": "SAFETY ZONE {number}", "fr": "ZONE DE SÛRETÉ {number}"},
    "location.track": {"en": "square {number}", "fr": "case {number}"},
    # lists and counts
    "list.separator": {"en": ", ", "fr": ", "},
    "list.and": {"en": "{first} and {last}", "fr": "{first} et {last}"},
    "cards.none": {"en": "no cards", "fr": "aucune carte"},
    "count.cards.one": {"en": "{count} card", "fr": "{count} carte"},
    "count.cards.other": {"en": "{count} cards", "fr": "{count} cartes"},
    # board actions (Move.describe: card, kind, moves, bumps, slides)
    "action.board": {"en": "{card}: {details}", "fr": "{card} : {details}"},
    "action.board.forward": {"en": "{pawn} forward {steps}", "fr": "{pawn} avance de {steps}"},
    "action.board.backward": {"en": "{pawn} backward {steps}", "fr": "{pawn} recule de {steps}"},
    "action.board.start": {"en": "{pawn} leaves START for {to}", "fr": "{pawn} sort de DÉPART vers {to}"},
    "action.board.split": {"en": "{parts}", "fr": "{parts}"},
    "action.board.swap": {"en": "{pawn} swaps places with {other}", "fr": "{pawn} change de place avec {other}"},
    "action.board.sorry": {"en": "{pawn} takes the place of {target}", "fr": "{pawn} prend la place de {target}"},
    "action.board.pass": {"en": "no move", "fr": "aucun déplacement"},
    "action.board.discard": {"en": "discard", "fr": "défausse"},
    "action.board.bump": {"en": "{pawn} bumped back to START", "fr": "{pawn} renvoyé à DÉPART"},
    "action.board.slide": {"en": "{pawn} slides to {to}", "fr": "{pawn} glisse jusqu'à {to}"},
    # card game actions (CardAction.describe: kind, cards, target, target_colour, total_after, score)
    "action.card.play": {"en": "play {card}", "fr": "jouer {card}"},
    "action.card.play_total": {"en": "play {card} (total {total})", "fr": "jouer {card} (total {total})"},
    "action.card.discard": {"en": "discard {card}", "fr": "défausser {card}"},
    "action.card.sorry": {
        "en": "play SORRY! on {player} ({colour})",
        "fr": "jouer SORRY! contre {player} ({colour})",
    },
    "action.card.steal": {"en": "play SORRY! to steal the 21", "fr": "jouer SORRY! pour voler le 21"},
    "action.card.block": {"en": "block with Don't Be SORRY!", "fr": "bloquer avec SORRY! Pas vraiment…"},
    "action.card.pass": {"en": "pass", "fr": "passer"},
    "action.card.tiebreak": {
        "en": "tiebreaker: {cards} (score {score})",
        "fr": "bris d'égalité : {cards} (score {score})",
    },
    "action.card.tiebreak_hidden": {
        "en": "tiebreaker cards chosen in secret",
        "fr": "cartes du bris d'égalité choisies en secret",
    },
    "action.card.tiebreak_bust": {"en": "tiebreaker: {cards} (bust)", "fr": "bris d'égalité : {cards} (cuit)"},
    # board events
    "event.board.draw": {"en": "{player} draws {card}", "fr": "{player} tire la carte {card}"},
    "event.board.draw_count": {"en": "{player} draws {cards}", "fr": "{player} tire {cards}"},
    "event.board.draw_cards": {"en": "{player} draws {cards}", "fr": "{player} tire {cards}"},
    "event.board.reshuffle": {
        "en": "The discards are shuffled into a new draw pile ({cards})",
        "fr": "Les cartes défaussées sont mêlées pour former un nouveau paquet ({cards})",
    },
    "event.board.forfeit": {
        "en": "{player} cannot move with {card}",
        "fr": "{player} ne peut pas se déplacer avec la carte {card}",
    },
    "event.board.move": {"en": "{player} plays {action}", "fr": "{player} joue {action}"},
    "event.board.game_over": {
        "en": "Game over: {winners} won. {ranking}",
        "fr": "Fin de la partie : victoire de {winners}. {ranking}",
    },
    "event.board.game_over_cap": {
        "en": "Game over: the turn limit was reached. {ranking}",
        "fr": "Fin de la partie : la limite de tours est atteinte. {ranking}",
    },
    # card game events
    "event.card.deal": {"en": "{player} is dealt {cards}", "fr": "{player} reçoit {cards}"},
    "event.card.deal_count": {"en": "Each player is dealt {cards}", "fr": "Chaque joueur reçoit {cards}"},
    "event.card.first_player": {"en": "{player} goes first", "fr": "{player} commence la partie"},
    "event.card.draw": {"en": "{player} draws {cards}", "fr": "{player} pige {cards}"},
    "event.card.draw_count": {"en": "{player} draws {cards}", "fr": "{player} pige {cards}"},
    "event.card.reshuffle": {
        "en": "The discarded play piles are shuffled into a new draw pile ({cards})",
        "fr": "Les piles de jeu mises de côté sont brassées pour former une nouvelle pile de pige ({cards})",
    },
    "event.card.no_cards": {
        "en": "{player} has no cards and is skipped",
        "fr": "{player} n'a aucune carte et passe son tour",
    },
    "event.card.action": {"en": "{player}: {action}", "fr": "{player} : {action}"},
    "event.card.twenty_one": {
        "en": "{player} brings the play pile to exactly 21!",
        "fr": "{player} porte la pile de jeu à 21 exactement!",
    },
    "event.card.bust": {"en": "{player} is bust at {total}!", "fr": "{player} est cuit à {total}!"},
    "event.card.home": {
        "en": "{player} flips a pawn card (pawn cards at HOME: {home})",
        "fr": "{player} retourne une carte Pion (cartes Pion du côté ARRIVÉE : {home})",
    },
    "event.card.home.21": {
        "en": "{player} wins the round and flips a pawn card (pawn cards at HOME: {home})",
        "fr": "{player} gagne la ronde et retourne une carte Pion (cartes Pion du côté ARRIVÉE : {home})",
    },
    "event.card.home.stolen_21": {
        "en": "{player} steals the 21 and flips a pawn card (pawn cards at HOME: {home})",
        "fr": "{player} vole le 21 et retourne une carte Pion (cartes Pion du côté ARRIVÉE : {home})",
    },
    "event.card.home.bust": {
        "en": "{player} flips a pawn card after the bust (pawn cards at HOME: {home})",
        "fr": "{player} retourne une carte Pion, car le total a dépassé 21 (cartes Pion du côté ARRIVÉE : {home})",
    },
    "event.card.start": {
        "en": "SORRY! {player} flips a pawn card back to START (pawn cards at HOME: {home})",
        "fr": "SORRY! {player} remet une carte Pion du côté DÉPART (cartes Pion du côté ARRIVÉE : {home})",
    },
    "event.card.start.home": {
        "en": "SORRY! {player} flips a pawn card back to HOME (pawn cards at HOME: {home})",
        "fr": "SORRY! {player} remet une carte Pion du côté ARRIVÉE (cartes Pion du côté ARRIVÉE : {home})",
    },
    "event.card.round_over": {
        "en": "The round is over; the play pile ({cards}) is set aside",
        "fr": "La ronde est terminée; la pile de jeu ({cards}) est mise de côté",
    },
    "event.card.direction": {"en": "The order of play is reversed", "fr": "L'ordre du jeu est inversé"},
    "event.card.tiebreak": {
        "en": "Tiebreaker between {players}",
        "fr": "Bris d'égalité entre {players}",
    },
    "event.card.tiebreak_cards": {
        "en": "Tiebreaker cards: {choices}",
        "fr": "Cartes du bris d'égalité : {choices}",
    },
    "event.card.tiebreak_choice": {
        "en": "{player}: {cards} (score {score})",
        "fr": "{player} : {cards} (score {score})",
    },
    "event.card.tiebreak_choice_bust": {"en": "{player}: {cards} (bust)", "fr": "{player} : {cards} (cuit)"},
    "event.card.game_over": {
        "en": "Game over: {winners} won. {ranking}",
        "fr": "Fin de la partie : victoire de {winners}. {ranking}",
    },
    "event.card.game_over_cap": {
        "en": "Game over: the turn limit was reached. {ranking}",
        "fr": "Fin de la partie : la limite de tours est atteinte. {ranking}",
    },
    "event.card.game_over_stalled": {
        "en": "Game over: every card is stuck in the play pile, nobody can play. {ranking}",
        "fr": "Fin de la partie : toutes les cartes sont dans la pile de jeu, personne ne peut jouer. {ranking}",
    },
    "event.unknown": {"en": "Event: {type}", "fr": "Événement : {type}"},
    # results
    "result.ranking": {"en": "Ranking: {ranks}", "fr": "Classement : {ranks}"},
    "result.rank": {"en": "{rank}. {player}", "fr": "{rank}. {player}"},
    "result.rank_points": {"en": "{rank}. {player} ({points} points)", "fr": "{rank}. {player} ({points} points)"},
    # decisions (engine.Decision.kind)
    "decision.move": {
        "en": "{player}: move a pawn with the card drawn",
        "fr": "{player} : déplacez un pion selon la carte tirée",
    },
    "decision.play": {
        "en": "{player}: play a card from your hand",
        "fr": "{player} : jouez une carte de votre main",
    },
    "decision.turn": {"en": "{player}: play a card", "fr": "{player} : jouez une carte"},
    "decision.play2": {
        "en": "{player}: play a number card (Play 2)",
        "fr": "{player} : jouez une carte Nombre (Jouez-en 2)",
    },
    "decision.steal": {
        "en": "{player}: play SORRY! to steal the 21, or pass",
        "fr": "{player} : jouez SORRY! pour voler le 21, ou passez",
    },
    "decision.block": {
        "en": "{player}: block with Don't Be SORRY!, or pass",
        "fr": "{player} : bloquez avec SORRY! Pas vraiment…, ou passez",
    },
    "decision.tiebreak": {
        "en": "{player}: choose your tiebreaker cards",
        "fr": "{player} : choisissez vos cartes pour le bris d'égalité",
    },
}


def _language(language: str) -> str:
    if language in LANGUAGES:
        return language
    primary = str(language).split("-")[0].strip().lower()
    return primary if primary in LANGUAGES else DEFAULT_LANGUAGE


def message(key: str, language: str = DEFAULT_LANGUAGE, **fields: Any) -> str:
    """The text of ``key`` in ``language`` (English for an unknown language), formatted with ``fields``.

    Raises ``KeyError`` naming the key when it is not in :data:`MESSAGES`.
    """
    try:
        texts = MESSAGES[key]
    except KeyError:
        raise KeyError(key) from None
    return texts[_language(language)].format(**fields)


def placeholders(template: str) -> set[str]:
    """The names of the ``str.format`` fields of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def card_name(game: str, card: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The printed name of a card of ``game`` (``"board"`` or ``"card"``)."""
    return message(f"card.{game}.{card}", language)


def _join(items: Sequence[str], language: str) -> str:
    return message("list.separator", language).join(items)


def _join_and(items: Sequence[str], language: str) -> str:
    if len(items) < 2:
        return "".join(items)
    return message("list.and", language, first=_join(items[:-1], language), last=items[-1])


def _cards(game: str, cards: Sequence[str], language: str) -> str:
    if not cards:
        return message("cards.none", language)
    return _join([card_name(game, card, language) for card in cards], language)


def _count(count: int, language: str) -> str:
    return message("count.cards.one" if count == 1 else "count.cards.other", language, count=count)


def _seat(seat: Any, language: str) -> str:
    return message("seat", language, number=int(seat) + 1)


def pawn_name(name: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A pawn in words, numbered as its id: ``red0`` -> "red 0" / "rouge 0"; anything unexpected is shown as it
    is."""
    colour, index = name[:-1], name[-1:]
    if f"colour.{colour}" not in MESSAGES or not index.isdigit():
        return name
    return message("pawn", language, colour=message(f"colour.{colour}", language), number=int(index))


def _location(name: str, language: str) -> str:
    """``start``, ``home``, ``track:N``, ``safety:N`` (engine.board.geometry.location_name) in words."""
    zone, _, number = name.partition(":")
    key = f"location.{zone}"
    if key not in MESSAGES or (number and not number.isdigit()) or (not number) != (zone in ("start", "home")):
        return name
    return message(key, language, number=int(number) + 1) if number else message(key, language)


def _board_part(part: Mapping[str, Any], language: str) -> str:
    steps = int(part["steps"])
    pawn = pawn_name(part["pawn"], language)
    if steps < 0:
        return message("action.board.backward", language, pawn=pawn, steps=-steps)
    return message("action.board.forward", language, pawn=pawn, steps=steps)


def _describe_board(description: Mapping[str, Any], language: str) -> str:
    kind = description["kind"]
    moves: list[Mapping[str, Any]] = list(description.get("moves") or [])
    bumps: list[Mapping[str, Any]] = list(description.get("bumps") or [])
    slides: list[Mapping[str, Any]] = list(description.get("slides") or [])
    if kind in ("forward", "backward", "split"):
        parts = _join([_board_part(part, language) for part in moves], language)
        details = parts if kind != "split" else message("action.board.split", language, parts=parts)
    elif kind == "start" and moves:
        details = message(
            "action.board.start",
            language,
            pawn=pawn_name(moves[0]["pawn"], language),
            to=_location(moves[0]["to"], language),
        )
    elif kind == "swap" and len(moves) >= 2:
        details = message(
            "action.board.swap",
            language,
            pawn=pawn_name(moves[0]["pawn"], language),
            other=pawn_name(moves[1]["pawn"], language),
        )
    elif kind == "sorry" and moves:
        target = bumps[0]["pawn"] if bumps else moves[0]["to"]
        details = message(
            "action.board.sorry",
            language,
            pawn=pawn_name(moves[0]["pawn"], language),
            target=pawn_name(target, language) if bumps else _location(target, language),
        )
    else:
        details = message(f"action.board.{kind}", language)
    extras = [
        message(
            "action.board.slide",
            language,
            pawn=pawn_name(slide["pawn"], language),
            to=_location(slide["to"], language),
        )
        for slide in slides
    ]
    extras += [message("action.board.bump", language, pawn=pawn_name(bump["pawn"], language)) for bump in bumps]
    if extras:
        details = "; ".join([details, *extras])
    return message(
        "action.board", language, card=card_name("board", description["card"], language), details=details
    )


def _tiebreak(cards: Sequence[str], score: int, language: str, key: str, **fields: Any) -> str:
    named = _cards("card", cards, language)
    if score < 0:
        return message(key + "_bust", language, cards=named, **fields)
    return message(key, language, cards=named, score=score, **fields)


def _describe_card(description: Mapping[str, Any], language: str) -> str:
    kind = description["kind"]
    cards: list[str] = list(description.get("cards") or [])
    if kind == "play":
        card = card_name("card", cards[0], language)
        if description.get("total_after") is not None:
            return message("action.card.play_total", language, card=card, total=description["total_after"])
        return message("action.card.play", language, card=card)
    if kind == "discard":
        return message("action.card.discard", language, card=card_name("card", cards[0], language))
    if kind == "sorry":
        colour = description.get("target_colour")
        return message(
            "action.card.sorry",
            language,
            player=_seat(description["target"], language),
            colour=message(f"colour.{colour}", language) if f"colour.{colour}" in MESSAGES else str(colour),
        )
    if kind == "tiebreak" and "score" not in description:
        # the public twin of a secret choice (action "tiebreak", "cards": []): it says a choice was made, not which
        return message("action.card.tiebreak_hidden", language)
    if kind == "tiebreak":
        return _tiebreak(cards, int(description.get("score", 0)), language, "action.card.tiebreak")
    return message(f"action.card.{kind}", language)


def describe_action(game: str, description: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> str:
    """A readable sentence for an action's ``description`` (or a ``move`` / ``action`` event) of ``game``.

    Board: "7: red 0 forward 4, red 2 forward 3" / "7 : rouge 0 avance de 4, rouge 2 avance de 3" (the action
    ``7:red0+4,red2+3``).
    Card game: "play 7 (total 12)" / "jouer 7 (total 12)".
    """
    language = _language(language)
    if game == "board":
        return _describe_board(description, language)
    if game == "card":
        return _describe_card(description, language)
    raise KeyError(f"game.{game}")


def _ranking(event: Mapping[str, Any], language: str) -> str:
    ranks: list[int] = list(event.get("ranks") or [])
    scores: list[int] | None = event.get("scores")
    entries = []
    for seat in sorted(range(len(ranks)), key=lambda seat: (ranks[seat], seat)):
        player = _seat(seat, language)
        if scores is not None and seat < len(scores):
            entries.append(
                message("result.rank_points", language, rank=ranks[seat], player=player, points=scores[seat])
            )
        else:
            entries.append(message("result.rank", language, rank=ranks[seat], player=player))
    return message("result.ranking", language, ranks=_join(entries, language))


def _game_over(game: str, event: Mapping[str, Any], language: str) -> str:
    ranking = _ranking(event, language)
    winners = [_seat(seat, language) for seat in event.get("winners") or []]
    if event.get("reason") == "win" and winners:
        return message(f"event.{game}.game_over", language, winners=_join_and(winners, language), ranking=ranking)
    if event.get("reason") == "stalled":
        return message(f"event.{game}.game_over_stalled", language, ranking=ranking)
    return message(f"event.{game}.game_over_cap", language, ranking=ranking)


def _board_event(event: Mapping[str, Any], language: str) -> str:
    kind = event["type"]
    player = _seat(event["seat"], language) if "seat" in event else ""
    if kind == "draw":
        if "card" in event:
            return message(
                "event.board.draw", language, player=player, card=card_name("board", event["card"], language)
            )
        if "cards" in event:
            return message(
                "event.board.draw_cards", language, player=player, cards=_cards("board", event["cards"], language)
            )
        return message(
            "event.board.draw_count", language, player=player, cards=_count(int(event["count"]), language)
        )
    if kind == "reshuffle":
        return message("event.board.reshuffle", language, cards=_count(int(event["cards"]), language))
    if kind == "forfeit":
        return message(
            "event.board.forfeit", language, player=player, card=card_name("board", event["card"], language)
        )
    if kind == "move":
        return message("event.board.move", language, player=player, action=_describe_board(event, language))
    if kind == "game_over":
        return _game_over("board", event, language)
    return message("event.unknown", language, type=kind)


def _card_event(event: Mapping[str, Any], language: str) -> str:
    kind = event["type"]
    player = _seat(event["seat"], language) if "seat" in event else ""
    if kind in ("deal", "draw"):
        if "cards" in event:
            return message(
                f"event.card.{kind}", language, player=player, cards=_cards("card", event["cards"], language)
            )
        return message(
            f"event.card.{kind}_count", language, player=player, cards=_count(int(event["count"]), language)
        )
    if kind == "reshuffle":
        return message("event.card.reshuffle", language, cards=_count(int(event["cards"]), language))
    if kind == "action":
        return message("event.card.action", language, player=player, action=_describe_card(event, language))
    if kind == "bust":
        return message("event.card.bust", language, player=player, total=event["total"])
    if kind == "home":
        key = "event.card.home." + str(event.get("reason", "")).replace(" ", "_")
        return message(key if key in MESSAGES else "event.card.home", language, player=player, home=event["home"])
    if kind == "start":
        # the longer game, counting back down: the SORRY! flips a pawn card from START back to HOME (A5)
        key = "event.card.start.home" if event.get("flipped_to") == "home" else "event.card.start"
        return message(key, language, player=player, home=event["home"])
    if kind == "round_over":
        return message("event.card.round_over", language, cards=_count(len(event.get("pile") or []), language))
    if kind == "tiebreak":
        seats = [_seat(seat, language) for seat in event.get("seats") or []]
        return message("event.card.tiebreak", language, players=_join_and(seats, language))
    if kind == "tiebreak_cards":
        choices: Mapping[str, list[str]] = event.get("choices") or {}
        scores: Mapping[str, int] = event.get("scores") or {}
        parts = [
            _tiebreak(
                cards,
                int(scores.get(seat, 0)),
                language,
                "event.card.tiebreak_choice",
                player=_seat(int(seat), language),
            )
            for seat, cards in sorted(choices.items(), key=lambda item: int(item[0]))
        ]
        return message("event.card.tiebreak_cards", language, choices="; ".join(parts))
    if kind == "game_over":
        return _game_over("card", event, language)
    if f"event.card.{kind}" in MESSAGES:  # first_player, no_cards, twenty_one, direction
        return message(f"event.card.{kind}", language, player=player)
    return message("event.unknown", language, type=kind)


def describe_event(game: str, event: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> str:
    """A readable sentence for an event dict of ``game`` (see ``engine.board.rules`` and ``engine.card.rules``).

    An event type this module does not know yet reads "Event: <type>" rather than failing.
    """
    language = _language(language)
    if game == "board":
        return _board_event(event, language)
    if game == "card":
        return _card_event(event, language)
    raise KeyError(f"game.{game}")


def describe_decision(kind: str, seat: int, language: str = DEFAULT_LANGUAGE) -> str:
    """What the seat asked must do, from an ``engine.Decision``'s kind and seat."""
    return message(f"decision.{kind}", language, player=_seat(seat, language))


def pick_language(accept_language: str | None) -> str:
    """The best of :data:`LANGUAGES` for an ``Accept-Language`` header value (RFC 9110 12.5.4); English by default.

    ``"fr-CA,fr;q=0.9,en;q=0.8"`` gives ``"fr"``. Quality values are respected (``q=0``: not acceptable), ``*``
    stands for English, ties go to the earlier entry, and a malformed entry is ignored. Never raises.
    """
    if not isinstance(accept_language, str):
        return DEFAULT_LANGUAGE
    best: tuple[float, int, str] | None = None
    for position, entry in enumerate(accept_language[:1000].split(",")):
        tag, *params = (piece.strip() for piece in entry.split(";"))
        quality = 1.0
        valid = True
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() != "q":
                continue
            value = value.strip()
            if not value or len(value) > 5 or not all(ch.isdigit() or ch == "." for ch in value):
                valid = False
                break
            try:
                quality = float(value)
            except ValueError:
                valid = False
                break
            if not 0.0 <= quality <= 1.0:
                valid = False
        primary = tag.split("-")[0].lower()
        language = DEFAULT_LANGUAGE if primary == "*" else primary
        if not valid or quality <= 0.0 or language not in LANGUAGES:
            continue
        if best is None or quality > best[0]:
            best = (quality, position, language)
    return best[2] if best is not None else DEFAULT_LANGUAGE
