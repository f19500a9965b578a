"""The strings of the ladders' pages (``service/web/ladder_page.py``) and of a bot's ladders on its page, in English
and French: joined to the pages' own (``service.web.messages.PAGES``) when that module is loaded."""

from __future__ import annotations

LADDER_PAGES: dict[str, dict[str, str]] = {
    "nav.ladders": {"en": "Ladders", "fr": "Échelles"},
    "ladders.title": {"en": "Ladders", "fr": "Échelles"},
    "ladders.intro": {
        "en": "A ladder is a rated arena that never ends: whenever one of its bots is idle and under its hourly "
        "budget, a game is made for it against the opponents whose result teaches the ratings most.",
        "fr": "Une échelle est une arène classée qui ne s'arrête jamais : dès qu'un de ses robots est libre et sous "
        "son quota horaire, une partie lui est proposée contre les adversaires dont le résultat apprend le plus "
        "aux cotes.",
    },
    "ladders.none": {"en": "No ladder yet.", "fr": "Aucune échelle pour l'instant."},
    "ladder.title": {"en": "Ladder {id}: {name}", "fr": "Échelle {id} : {name}"},
    "ladder.about": {
        "en": "{game}, {variant}; {seats} seats per game, {timeout} ms per move; {rated}; at most {budget} games "
        "per bot per hour and {in_play} games in play at once. Made by {owner} on {created}.",
        "fr": "{game}, {variant}; {seats} sièges par partie, {timeout} ms par coup; {rated}; au plus {budget} "
        "parties par robot et par heure et {in_play} parties en cours à la fois. Créée par {owner} le {created}.",
    },
    "ladder.official": {"en": "official", "fr": "officielle"},
    "ladder.closed_at": {"en": "Closed on {when}.", "fr": "Fermée le {when}."},
    "ladder.made": {
        "en": "{made} games made, {in_play} in play.",
        "fr": "{made} parties proposées, {in_play} en cours.",
    },
    "ladder.live": {
        "en": "This page updates by itself while the ladder is open.",
        "fr": "Cette page se met à jour d'elle-même tant que l'échelle est ouverte.",
    },
    "ladder.standings": {"en": "Standings", "fr": "Classement"},
    "ladder.no_bots": {"en": "No bot in this ladder yet.", "fr": "Aucun robot dans cette échelle pour l'instant."},
    "ladder.standings_note": {
        "en": "Ratings on the Elo scale (mean 1500), fitted on all of the ladder's games every few seconds "
        "(Bradley-Terry), with their 95% interval; a version not fitted yet shows its game-by-game rating "
        "(Weng-Lin). A rating is provisional while its interval is wider than ±50. A new version of a bot starts "
        "near its old rating. Greyed: a bot that left, or without a game for {days} days.",
        "fr": "Cotes à l'échelle Elo (moyenne 1500), ajustées sur toutes les parties de l'échelle toutes les "
        "quelques secondes (Bradley-Terry), avec leur intervalle à 95 % ; une version pas encore ajustée montre sa "
        "cote partie par partie (Weng-Lin). Une cote est provisoire tant que son intervalle dépasse ±50. Une "
        "nouvelle version d'un robot part près de son ancienne cote. En gris : un robot parti, ou sans partie "
        "depuis {days} jours.",
    },
    "ladder.provisional": {"en": "provisional", "fr": "provisoire"},
    "ladder.provisional_title": {
        "en": "Its 95% interval is still wider than ±50: too few games to settle the rating.",
        "fr": "Son intervalle à 95 % dépasse encore ±50 : trop peu de parties pour fixer la cote.",
    },
    "ladder.left": {"en": "left", "fr": "parti"},
    "ladder.inactive": {"en": "inactive", "fr": "inactif"},
    "ladder.last_game": {"en": "last game {when}", "fr": "dernière partie {when}"},
    "ladder.no_game": {"en": "no game yet", "fr": "aucune partie"},
    "ladder.paused": {"en": "paused", "fr": "en pause"},
    "ladder.playing": {"en": "playing", "fr": "en jeu"},
    "ladder.new_version": {
        "en": "a new version, rated from its previous one's rating",
        "fr": "une nouvelle version, cotée à partir de la cote de la précédente",
    },
    "col.today": {"en": "Today", "fr": "Aujourd'hui"},
    "col.budget_left": {"en": "Budget left", "fr": "Quota restant"},
    "col.state": {"en": "State", "fr": "État"},
    "col.seats_made": {"en": "Seats", "fr": "Places"},
    "ladder.budget_note": {
        "en": "Today: the games each bot began today (UTC). Budget left: the games it may still begin in the "
        "last hour's budget of {budget}.",
        "fr": "Aujourd'hui : les parties que chaque robot a commencées aujourd'hui (UTC). Quota restant : les "
        "parties qu'il peut encore commencer dans le quota de {budget} de la dernière heure.",
    },
    "ladder.chart": {
        "en": "Game-by-game rating (Weng-Lin: the one that chooses the games)",
        "fr": "Cote partie par partie (Weng-Lin : celle qui choisit les parties)",
    },
    "ladder.chart_x": {
        "en": "the bot's rated games in this ladder",
        "fr": "parties classées du robot dans cette échelle",
    },
    "ladder.in_play": {"en": "Games in play", "fr": "Parties en cours"},
    "ladder.no_in_play": {"en": "No game in play.", "fr": "Aucune partie en cours."},
    "ladder.recent": {"en": "Recent games", "fr": "Parties récentes"},
    "ladder.no_recent": {"en": "No game finished yet.", "fr": "Aucune partie terminée pour l'instant."},
    "ladder.shown": {
        "en": "The {shown} most recent of {count}.",
        "fr": "Les {shown} plus récentes sur {count}.",
    },
    "ladder.waiting": {"en": "waiting for a worker", "fr": "en attente d'un serveur de jeu"},
    "ladder.status.open": {"en": "open", "fr": "ouverte"},
    "ladder.status.closed": {"en": "closed", "fr": "fermée"},
    "bot.ladders": {"en": "Ladders", "fr": "Échelles"},
    "bot.no_ladders": {"en": "In no ladder.", "fr": "Dans aucune échelle."},
    "bot.ladders_note": {
        "en": "Its owner pauses, resumes or takes it out of a ladder with sorry-arena ladder pause|resume|leave, "
        "or the API (POST /api/v1/ladders/{{id}}/bots/{{bot_id}}/pause).",
        "fr": "Son propriétaire le met en pause, le relance ou le retire d'une échelle avec sorry-arena ladder "
        "pause|resume|leave, ou l'API (POST /api/v1/ladders/{{id}}/bots/{{bot_id}}/pause).",
    },
    "error.no_ladder": {"en": "There is no ladder {id}.", "fr": "Il n'y a pas d'échelle {id}."},
    "what.ladder": {"en": "A ladder number", "fr": "Un numéro d'échelle"},
}
