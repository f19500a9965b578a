"""The strings of the operator's pages (``/admin``, ``service/web/admin_page.py``), in English and French. Joined
to the pages' own (``service.web.messages.PAGES``) when ``admin_page.py`` loads."""

from __future__ import annotations

ADMIN_PAGES: dict[str, dict[str, str]] = {
    "admin.title": {"en": "Operator", "fr": "Opérateur"},
    "admin.about": {
        "en": "Sign in with the operator's token (SORRY_ARENA_OPERATOR_TOKEN). The token stays in this tab only.",
        "fr": "Connectez-vous avec le jeton de l'opérateur (SORRY_ARENA_OPERATOR_TOKEN). Le jeton ne quitte pas "
        "cet onglet.",
    },
    "admin.accounts": {"en": "Accounts", "fr": "Comptes"},
    "admin.bots": {
        "en": "Bots excluded, failing, stalling or paused",
        "fr": "Robots exclus, en échec, lents ou en pause",
    },
    "admin.queue": {"en": "Queue", "fr": "File d'attente"},
    "admin.workers": {"en": "Workers", "fr": "Workers"},
    "admin.audit": {"en": "Audit log", "fr": "Journal d'audit"},
    "admin.search": {"en": "Search by name", "fr": "Chercher par nom"},
    "admin.name": {"en": "Name", "fr": "Nom"},
    "admin.owner": {"en": "Owner", "fr": "Propriétaire"},
    "admin.bots_count": {"en": "Bots", "fr": "Robots"},
    "admin.queued": {"en": "Games queued", "fr": "Parties en attente"},
    "admin.played": {"en": "Games played", "fr": "Parties jouées"},
    "admin.faults": {"en": "Faults", "fr": "Fautes"},
    "admin.state": {"en": "State", "fr": "État"},
    "admin.disabled": {"en": "disabled", "fr": "désactivé"},
    "admin.enabled": {"en": "enabled", "fr": "actif"},
    "admin.operator": {"en": "operator", "fr": "opérateur"},
    "admin.disable": {"en": "Disable", "fr": "Désactiver"},
    "admin.enable": {"en": "Enable", "fr": "Réactiver"},
    "admin.revoke": {"en": "Revoke token", "fr": "Révoquer le jeton"},
    "admin.pause": {"en": "Pause", "fr": "Mettre en pause"},
    "admin.unpause": {"en": "Unpause", "fr": "Reprendre"},
    "admin.delete": {"en": "Delete", "fr": "Supprimer"},
    "admin.excluded": {"en": "excluded", "fr": "exclu"},
    "admin.failed_checks": {"en": "failed checks", "fr": "contrôles échoués"},
    "admin.stalling": {"en": "stalling", "fr": "lent"},
    "admin.paused": {"en": "paused", "fr": "en pause"},
    "admin.fed": {"en": "Fed", "fr": "Distribuées"},
    "admin.unfed": {"en": "Not fed", "fr": "Non distribuées"},
    "admin.running": {"en": "Running", "fr": "En cours"},
    "admin.oldest": {
        "en": "Oldest game waiting: tournament {tournament} (account {account}), {age} s.",
        "fr": "Plus ancienne partie en attente : tournoi {tournament} (compte {account}), {age} s.",
    },
    "admin.none_waiting": {"en": "No game waiting.", "fr": "Aucune partie en attente."},
    "admin.slots": {"en": "Slots busy", "fr": "Emplacements occupés"},
    "admin.moves": {"en": "Moves/s", "fr": "Coups/s"},
    "admin.seen": {"en": "Last heartbeat (s ago)", "fr": "Dernier signe de vie (il y a, s)"},
    "admin.at": {"en": "When", "fr": "Quand"},
    "admin.actor": {"en": "By", "fr": "Par"},
    "admin.action": {"en": "Action", "fr": "Action"},
    "admin.target": {"en": "Target", "fr": "Cible"},
    "admin.detail": {"en": "Detail", "fr": "Détail"},
    "admin.nothing": {"en": "Nothing.", "fr": "Rien."},
    "admin.new_token": {
        "en": "New token of account {id}, shown once: {token}",
        "fr": "Nouveau jeton du compte {id}, affiché une seule fois : {token}",
    },
    "admin.no_section": {
        "en": "No section {section} here: accounts, bots, queue, workers or audit.",
        "fr": "Pas de section {section} ici : accounts, bots, queue, workers ou audit.",
    },
    "error.403": {"en": "Forbidden", "fr": "Interdit"},
    "error.not_operator": {
        "en": "This page needs the operator's token (SORRY_ARENA_OPERATOR_TOKEN).",
        "fr": "Cette page demande le jeton de l'opérateur (SORRY_ARENA_OPERATOR_TOKEN).",
    },
}
