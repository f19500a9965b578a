"""The strings of a bot's page (``service/web/bot_page.py``), in English and French: joined to the pages' own
(``service.web.messages.PAGES``) when that module is loaded."""

from __future__ import annotations

BOT_PAGES: dict[str, dict[str, str]] = {
    "bot.title": {"en": "Bot {name}", "fr": "Robot {name}"},
    "bot.owner": {"en": "Owner", "fr": "Propriétaire"},
    "bot.mode": {"en": "Mode", "fr": "Mode"},
    "bot.games_played": {"en": "Finished games", "fr": "Parties terminées"},
    "bot.health": {"en": "Health", "fr": "Santé"},
    "bot.healthy": {"en": "healthy", "fr": "en forme"},
    "bot.excluded": {"en": "excluded (failed health checks)", "fr": "exclu (contrôles de santé échoués)"},
    "bot.deleted": {"en": "deleted", "fr": "supprimé"},
    "bot.recent_clean": {
        "en": "no fault in its last {games}",
        "fr": "aucune faute dans ses {games} les plus récentes",
    },
    "bot.recent_faults": {
        "en": "{faults} and {forfeits} in its last {games}",
        "fr": "{faults} et {forfeits} dans ses {games} les plus récentes",
    },
    # counts (``counted``): the ``.one`` form where the language wants the singular
    "count.faults": {"en": "{count} faults", "fr": "{count} fautes"},
    "count.faults.one": {"en": "{count} fault", "fr": "{count} faute"},
    "count.forfeits": {"en": "{count} forfeits", "fr": "{count} forfaits"},
    "count.forfeits.one": {"en": "{count} forfeit", "fr": "{count} forfait"},
    "count.games": {"en": "{count} games", "fr": "{count} parties"},
    "count.games.one": {"en": "{count} game", "fr": "{count} partie"},
    "bot.checks": {
        "en": "{failed} failed, {passed} passed checks in a row",
        "fr": "{failed} contrôles échoués, {passed} réussis d'affilée",
    },
    "bot.protocol": {"en": "Protocol", "fr": "Protocole"},
    "bot.protocol_old": {
        "en": "This bot speaks protocol v{version} (a client older than 0.2), deprecated: it is refused from "
        "{date}. Upgrade its client to 0.2 or later (protocol v2); its next health check records the change.",
        "fr": "Ce robot parle le protocole v{version} (un client antérieur à 0.2), obsolète : il sera refusé à "
        "partir du {date}. Mettez son client à jour en 0.2 ou plus (protocole v2) ; son prochain contrôle de santé "
        "enregistre le changement.",
    },
    "bot.protocol_refused": {
        "en": "This bot speaks protocol v{version} only (a client older than 0.2), refused since {date}: it fails "
        "its health checks. Upgrade its client to 0.2 or later (protocol v2).",
        "fr": "Ce robot ne parle que le protocole v{version} (un client antérieur à 0.2), refusé depuis le {date} : "
        "il échoue à ses contrôles de santé. Mettez son client à jour en 0.2 ou plus (protocole v2).",
    },
    "bot.ratings": {"en": "Rating over time", "fr": "Cote au fil du temps"},
    "bot.versions": {"en": "Versions", "fr": "Versions"},
    "bot.versions_note": {
        "en": "Each version is rated on its own, from the games begun after it was made; the standings show the "
        "latest one rated.",
        "fr": "Chaque version a sa propre cote, tirée des parties commencées après sa création ; le classement "
        "montre la dernière qui a une cote.",
    },
    "col.version": {"en": "Version", "fr": "Version"},
    "col.since": {"en": "Since", "fr": "Depuis"},
    "col.note": {"en": "Note", "fr": "Note"},
    "col.ratings": {"en": "Ratings", "fr": "Cotes"},
    "bot.seats": {"en": "Wins by seat", "fr": "Victoires par place"},
    "bot.faults": {"en": "Faults by kind", "fr": "Fautes par type"},
    "bot.no_faults": {"en": "No fault in finished games.", "fr": "Aucune faute dans les parties terminées."},
    "bot.latency": {"en": "Answer times", "fr": "Temps de réponse"},
    "bot.recent": {"en": "Recent games", "fr": "Parties récentes"},
    "bot.owner_note": {
        "en": "Faults and answer times count finished games; while a game runs its bot's owner reads them with "
        "GET /api/v1/bots/{id}/faults.",
        "fr": "Fautes et temps de réponse comptent les parties terminées ; pendant une partie, le propriétaire du "
        "robot les lit avec GET /api/v1/bots/{id}/faults.",
    },
    "col.seat": {"en": "Seat", "fr": "Place"},
    "col.percentile": {"en": "Percentile", "fr": "Centile"},
    "col.count": {"en": "Count", "fr": "Nombre"},
    "col.kind": {"en": "Kind", "fr": "Type"},
    "error.no_bot": {"en": "There is no bot {id}.", "fr": "Il n'y a pas de robot {id}."},
    "what.bot": {"en": "A bot number", "fr": "Un numéro de robot"},
}
