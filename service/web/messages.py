"""The web pages' own strings in English and French (the games' words, card names and event sentences come from
``engine.i18n``). Texts are ``str.format`` templates; both languages of a key name the same fields."""

from __future__ import annotations

from typing import Any

PAGES: dict[str, dict[str, str]] = {
    # the frame of every page
    "site.name": {"en": "sorry-arena", "fr": "sorry-arena"},
    "nav.home": {"en": "Home", "fr": "Accueil"},
    "nav.tournaments": {"en": "Tournaments", "fr": "Tournois"},
    "nav.games": {"en": "Games", "fr": "Parties"},
    "nav.api": {"en": "API documentation", "fr": "Documentation de l'API"},
    "nav.language": {"en": "Language", "fr": "Langue"},
    "nothing_yet": {"en": "Nothing yet.", "fr": "Rien pour l'instant."},
    "label": {"en": "{label}:", "fr": "{label} :"},
    # the index
    "index.heading": {"en": "SORRY! bot arena", "fr": "Arène de robots SORRY!"},
    "index.intro": {
        "en": "Standings, tournaments and replays of the bots that play SORRY! and the SORRY! Card Game.",
        "fr": "Classements, tournois et rediffusions des robots qui jouent à SORRY! et au jeu de cartes SORRY!.",
    },
    "index.standings": {"en": "Standings", "fr": "Classements"},
    "index.recent_tournaments": {"en": "Recent tournaments", "fr": "Tournois récents"},
    "index.recent_games": {"en": "Recent games", "fr": "Parties récentes"},
    "index.all_tournaments": {"en": "All tournaments", "fr": "Tous les tournois"},
    "index.all_games": {"en": "All games", "fr": "Toutes les parties"},
    # variants (tournament variant ids: standard, team, points, *-1972, longer)
    "variant.standard": {"en": "standard", "fr": "standard"},
    "variant.team": {"en": "team play", "fr": "en équipes"},
    "variant.points": {"en": "play for points", "fr": "aux points"},
    "variant.longer": {"en": "longer game", "fr": "partie plus longue"},
    "variant.edition": {"en": "{variant}, {edition} edition", "fr": "{variant}, édition {edition}"},
    # table columns
    "col.game": {"en": "Game", "fr": "Jeu"},
    "col.variant": {"en": "Variant", "fr": "Variante"},
    "col.games": {"en": "Games", "fr": "Parties"},
    "col.leader": {"en": "Leader", "fr": "En tête"},
    "col.bot": {"en": "Bot", "fr": "Robot"},
    "col.rating": {"en": "Rating", "fr": "Cote"},
    "col.interval": {"en": "95% interval", "fr": "Intervalle à 95 %"},
    "col.wins": {"en": "Wins", "fr": "Victoires"},
    "col.shared_wins": {"en": "Shared wins", "fr": "Victoires partagées"},
    "col.mean_rank": {"en": "Mean rank", "fr": "Rang moyen"},
    "col.forfeits": {"en": "Forfeits", "fr": "Forfaits"},
    "col.status": {"en": "Status", "fr": "État"},
    "col.progress": {"en": "Progress", "fr": "Progression"},
    "col.name": {"en": "Name", "fr": "Nom"},
    "col.players": {"en": "Players", "fr": "Joueurs"},
    "col.moves": {"en": "Moves", "fr": "Coups"},
    "col.created": {"en": "Created", "fr": "Créée"},
    "col.round": {"en": "Round", "fr": "Ronde"},
    "col.result": {"en": "Result", "fr": "Résultat"},
    "col.reason": {"en": "Why", "fr": "Pourquoi"},
    "col.faults": {"en": "Faults", "fr": "Fautes"},
    "col.forfeit_rate": {"en": "Forfeits", "fr": "Abandons"},
    "col.faults_per_100": {"en": "Faults / 100 moves", "fr": "Fautes / 100 coups"},
    "col.step": {"en": "Step", "fr": "Étape"},
    "col.player": {"en": "Player", "fr": "Joueur"},
    "col.move": {"en": "Move", "fr": "Coup"},
    "col.latency": {"en": "Latency", "fr": "Latence"},
    "col.fault": {"en": "Fault", "fr": "Faute"},
    "col.home": {"en": "HOME", "fr": "ARRIVÉE"},
    "col.hand_size": {"en": "Cards in hand", "fr": "Cartes en main"},
    "col.hand": {"en": "Hand", "fr": "Main"},
    "col.rank": {"en": "Rank", "fr": "Rang"},
    # statuses of games, tournaments and scheduled games
    "status.open": {"en": "waiting for players", "fr": "en attente de joueurs"},
    "status.active": {"en": "in play", "fr": "en cours"},
    "status.over": {"en": "over", "fr": "terminée"},
    "status.cancelled": {"en": "cancelled", "fr": "annulé"},
    "status.scheduled": {"en": "scheduled", "fr": "prévu"},
    "status.running": {"en": "running", "fr": "en cours"},
    "status.done": {"en": "done", "fr": "terminé"},
    "status.pending": {"en": "to play", "fr": "à jouer"},
    "status.void": {"en": "void", "fr": "annulée"},
    # the standings of a pool
    "standings.title": {"en": "{game}, {variant}: standings", "fr": "{game}, {variant} : classement"},
    "standings.summary": {
        "en": "{games} rated games. Ratings fitted to all of them at once (Bradley-Terry on the Elo scale, mean "
        "1500): the order in which the games were played does not matter.",
        "fr": "{games} parties classées. Cotes ajustées à toutes à la fois (Bradley-Terry à l'échelle Elo, "
        "moyenne 1500) : l'ordre dans lequel les parties ont été jouées n'y change rien.",
    },
    "standings.notes": {
        "en": "95% interval: robust to the dependence between the opponents of one game. Wins: games finished "
        "alone in first place. Mean rank: 1 is first; tied seats share places. The chart shows each bot's Elo "
        "as it moved game by game (K = 32): it weighs recent games more, so its end differs a little from the "
        "fitted rating.",
        "fr": "Intervalle à 95 % : robuste à la dépendance entre les adversaires d'une même partie. Victoires : "
        "parties finies seul en tête. Rang moyen : 1 est le premier; des sièges à égalité se partagent les "
        "places. Le graphique montre la cote Elo de chaque robot, mise à jour partie par partie (K = 32) : elle "
        "pèse davantage les parties récentes, si bien que sa fin diffère un peu de la cote ajustée.",
    },
    "standings.chart": {"en": "Rating over time", "fr": "Évolution des cotes"},
    "standings.seats": {"en": "{seats} seats", "fr": "{seats} places"},
    "standings.by_size": {
        "en": "Each table size is rated apart: the Elo scale depends on the seats at the table, so ratings of "
        "different table sizes are not comparable.",
        "fr": "Chaque nombre de places est coté à part : l'échelle Elo dépend du nombre de places à la table, si "
        "bien que des cotes de nombres de places différents ne sont pas comparables.",
    },
    "standings.group": {
        "en": "Group {number} of {groups} ({count} bots)",
        "fr": "Groupe {number} sur {groups} ({count} robots)",
    },
    "standings.apart": {
        "en": "These {groups} groups of bots never met, directly or through others: each group is rated on its own "
        "games, with a mean of 1500, and ratings are not comparable across groups.",
        "fr": "Ces {groups} groupes de robots ne se sont jamais rencontrés, ni directement ni par d'autres : chaque "
        "groupe est coté sur ses propres parties, avec une moyenne de 1500, et les cotes ne se comparent pas d'un "
        "groupe à l'autre.",
    },
    "standings.forfeits_rated": {
        "en": "Forfeited games are rated as losses: the rating mixes strength and reliability, shown apart in the "
        "forfeit rate (forfeited games over games) and the faults per 100 moves.",
        "fr": "Les parties abandonnées sont cotées comme des défaites : la cote mêle force et fiabilité, montrées à "
        "part dans le taux d'abandon (parties abandonnées sur parties) et les fautes pour 100 coups.",
    },
    "standings.forfeits_not_rated": {
        "en": "Forfeited games are not rated: the rating is the bots' strength in the games finished without a "
        "forfeit; their reliability is in the forfeit rate (forfeited games over all games) and the faults per "
        "100 moves.",
        "fr": "Les parties abandonnées ne sont pas cotées : la cote est la force des robots dans les parties finies "
        "sans abandon; leur fiabilité est dans le taux d'abandon (parties abandonnées sur toutes les parties) et "
        "les fautes pour 100 coups.",
    },
    "chart.x": {"en": "rated games played in this pool", "fr": "parties classées jouées dans ce groupe"},
    "chart.y": {"en": "Elo rating", "fr": "cote Elo"},
    "chart.empty": {"en": "No rated game yet.", "fr": "Aucune partie classée pour l'instant."},
    "chart.more": {
        "en": "The chart shows the {shown} best-rated bots; the table lists all {count}.",
        "fr": "Le graphique montre les {shown} robots les mieux cotés; le tableau les présente tous les {count}.",
    },
    "chart.label": {
        "en": "Elo rating of each bot after each rated game",
        "fr": "Cote Elo de chaque robot après chaque partie classée",
    },
    # tournaments
    "tournaments.title": {"en": "Tournaments", "fr": "Tournois"},
    "tournament.title": {"en": "Tournament {id}: {name}", "fr": "Tournoi {id} : {name}"},
    "tournament.about": {
        "en": "{game}, {variant}; {seats} seats per game, {rounds}, {timeout} ms per move; {rated}.",
        "fr": "{game}, {variant}; {seats} sièges par partie, {rounds}, {timeout} ms par coup; {rated}.",
    },
    "tournament.rated": {"en": "rated", "fr": "classé"},
    "tournament.unrated": {"en": "not rated", "fr": "non classé"},
    "tournament.progress": {"en": "{done} of {total} games played", "fr": "{done} parties jouées sur {total}"},
    "tournament.live": {
        "en": "This page updates by itself while the tournament runs.",
        "fr": "Cette page se met à jour d'elle-même pendant le tournoi.",
    },
    "tournament.standings": {"en": "Standings", "fr": "Classement"},
    "tournament.standings_note": {
        "en": "Ratings fitted to this tournament's games (Bradley-Terry on the Elo scale, mean 1500), with their "
        "95% interval (robust to the dependence between the opponents of one game).",
        "fr": "Cotes ajustées aux parties de ce tournoi (Bradley-Terry à l'échelle Elo, moyenne 1500), avec leur "
        "intervalle à 95 % (robuste à la dépendance entre les adversaires d'une même partie).",
    },
    "tournament.h2h": {"en": "Head to head", "fr": "Face-à-face"},
    "tournament.h2h_note": {
        "en": "Row against column: points won (1 per game finished ahead, ½ per tie) out of the games together.",
        "fr": "Ligne contre colonne : points gagnés (1 par partie finie devant, ½ par égalité) sur les parties "
        "jouées ensemble.",
    },
    "tournament.games": {"en": "Games", "fr": "Parties"},
    "tournament.faults": {"en": "Faults by kind", "fr": "Fautes par type"},
    "tournament.faults_note": {
        "en": "Each bot's faults in the tournament's finished games: moves the game's fallback played in place of "
        "the bot's answer (its forfeited moves apart).",
        "fr": "Les fautes de chaque robot dans les parties terminées du tournoi : les coups que le repli de la "
        "partie a joués à la place de la réponse du robot (hors coups perdus par forfait).",
    },
    "tournament.no_faults": {
        "en": "No fault in the finished games.",
        "fr": "Aucune faute dans les parties terminées.",
    },
    "tournament.no_results": {"en": "No game finished yet.", "fr": "Aucune partie terminée pour l'instant."},
    "tournament.forfeited": {"en": "forfeited", "fr": "forfait"},
    "tournament.void": {"en": "Void games", "fr": "Parties annulées"},
    "tournament.void_note": {
        "en": "A void game is one that a seat forfeited for a reason on the service's side: it is kept, but counts "
        "in no rating, standings or test. {count} in all; the first {shown} are listed.",
        "fr": "Une partie annulée est une partie qu'un siège a perdue par forfait pour une raison du côté du "
        "service : elle est conservée, mais ne compte dans aucune cote, aucun classement ni aucun test. {count} en "
        "tout ; les {shown} premières sont listées.",
    },
    "void.excluded": {
        "en": "a bot was excluded by its health checks when the game began",
        "fr": "un robot était exclu par ses contrôles de santé au début de la partie",
    },
    "void.rejected": {
        "en": "a bot refused the service's signature on every call (a wrong secret or protocol)",
        "fr": "un robot a refusé la signature du service à chaque appel (mauvais secret ou protocole)",
    },
    # pages of a long list
    "pager.previous": {"en": "Previous", "fr": "Précédente"},
    "pager.next": {"en": "Next", "fr": "Suivante"},
    "pager.page": {"en": "Page {page} of {pages}", "fr": "Page {page} sur {pages}"},
    "pager.newest": {"en": "Newest", "fr": "Les plus récentes"},
    "pager.older": {"en": "Older", "fr": "Plus anciennes"},
    # the game viewer
    "games.title": {"en": "Games", "fr": "Parties"},
    "game.title": {"en": "Game {id}: {game}", "fr": "Partie {id} : {game}"},
    "game.live": {
        "en": "Game in play: only what every player sees is shown (no hand, no private card).",
        "fr": "Partie en cours : seul ce que tous les joueurs voient est affiché (ni main, ni carte privée).",
    },
    "game.over": {
        "en": "Finished game: everything is shown, every hand included.",
        "fr": "Partie terminée : tout est affiché, toutes les mains comprises.",
    },
    "game.open": {
        "en": "Waiting for players: {taken} of {seats} seats taken.",
        "fr": "En attente de joueurs : {taken} sièges pris sur {seats}.",
    },
    "game.of_tournament": {"en": "Game of tournament {id}", "fr": "Partie du tournoi {id}"},
    "game.players": {"en": "Players", "fr": "Joueurs"},
    "game.moves": {"en": "Moves", "fr": "Coups"},
    "game.opening": {"en": "Opening", "fr": "Mise en place"},
    "game.step": {"en": "Step {ply} of {plies}", "fr": "Étape {ply} sur {plies}"},
    "game.first": {"en": "First", "fr": "Début"},
    "game.previous": {"en": "Back", "fr": "Reculer"},
    "game.next": {"en": "Forward", "fr": "Avancer"},
    "game.last": {"en": "Last", "fr": "Fin"},
    "game.play": {"en": "Play", "fr": "Lecture"},
    "game.pause": {"en": "Pause", "fr": "Pause"},
    "game.keys": {
        "en": "Arrow keys step back and forward; a move in the list jumps to it.",
        "fr": "Les flèches reculent et avancent; un coup de la liste y mène directement.",
    },
    "game.events": {"en": "What happened", "fr": "Ce qui s'est passé"},
    "game.no_events": {"en": "Nothing visible happened.", "fr": "Rien de visible ne s'est passé."},
    "game.now": {"en": "Now", "fr": "Maintenant"},
    "game.finished": {"en": "The game is over.", "fr": "La partie est terminée."},
    "game.card_drawn": {"en": "Card drawn", "fr": "Carte tirée"},
    "game.no_card": {"en": "none", "fr": "aucune"},
    "game.turn": {"en": "Turn {turn}", "fr": "Tour {turn}"},
    "game.direction": {"en": "Order of play", "fr": "Sens du jeu"},
    "game.direction.1": {"en": "normal", "fr": "normal"},
    "game.direction.-1": {"en": "reversed", "fr": "inversé"},
    "game.total": {"en": "Total", "fr": "Total"},
    "game.pile_empty": {"en": "empty", "fr": "vide"},
    "game.hands": {"en": "Hands", "fr": "Mains"},
    "game.hidden": {"en": "hidden", "fr": "cachée"},
    "game.seed": {"en": "Seed {seed}", "fr": "Graine {seed}"},
    "game.replay_json": {"en": "the full record (JSON)", "fr": "l'enregistrement complet (JSON)"},
    "game.ms": {"en": "{ms} ms", "fr": "{ms} ms"},
    "game.you_are_at": {"en": "Shown: step {ply}", "fr": "Affiché : étape {ply}"},
    "game.score": {"en": "{points} points", "fr": "{points} points"},
    # faults of a bot's move (ActionRecord.fault)
    "fault.timeout": {"en": "timeout", "fr": "délai dépassé"},
    "fault.connection": {"en": "connection error", "fr": "erreur de connexion"},
    "fault.status": {"en": "error status", "fr": "statut d'erreur"},
    "fault.unparsable": {"en": "unreadable answer", "fr": "réponse illisible"},
    "fault.too_large": {"en": "answer too large", "fr": "réponse trop grande"},
    "fault.redirect": {"en": "redirect", "fr": "redirection"},
    "fault.refused": {"en": "address refused", "fr": "adresse refusée"},
    "fault.rejected": {"en": "signature refused", "fr": "signature refusée"},
    "fault.illegal": {"en": "illegal move", "fr": "coup illégal"},
    "fault.forfeit": {"en": "forfeited", "fr": "forfait"},
    # error pages
    "error.400": {"en": "Bad request", "fr": "Requête invalide"},
    "error.404": {"en": "Not found", "fr": "Introuvable"},
    "error.405": {"en": "Method not allowed", "fr": "Méthode non permise"},
    "error.500": {"en": "Something went wrong", "fr": "Une erreur s'est produite"},
    "error.503": {"en": "Unavailable for a moment", "fr": "Indisponible un instant"},
    "error.other": {"en": "Error {code}", "fr": "Erreur {code}"},
    "error.home": {"en": "Back to the home page", "fr": "Retour à l'accueil"},
    "error.no_game": {"en": "There is no game {id}.", "fr": "Il n'y a pas de partie {id}."},
    "error.no_tournament": {"en": "There is no tournament {id}.", "fr": "Il n'y a pas de tournoi {id}."},
    "error.no_step": {
        "en": "Game {id} has no step {ply}: its steps are 0 to {plies}.",
        "fr": "La partie {id} n'a pas d'étape {ply} : ses étapes vont de 0 à {plies}.",
    },
    "error.not_a_number": {
        "en": "{what} must be a whole number, not “{value}”.",
        "fr": "{what} doit être un nombre entier, pas « {value} ».",
    },
    "error.no_game_kind": {
        "en": "There is no game “{game}”: choose board or card.",
        "fr": "Il n'y a pas de jeu « {game} » : choisissez board ou card.",
    },
    "error.no_variant": {
        "en": "The {game} game has no variant “{variant}”: choose one of {variants}.",
        "fr": "Le jeu {game} n'a pas de variante « {variant} » : choisissez parmi {variants}.",
    },
    "error.language": {
        "en": "There is no language “{lang}”: choose en or fr.",
        "fr": "Il n'y a pas de langue « {lang} » : choisissez en ou fr.",
    },
    "error.page": {
        "en": "There is no page {page}: the pages are 1 to {pages}.",
        "fr": "Il n'y a pas de page {page} : les pages vont de 1 à {pages}.",
    },
    "error.no_page": {"en": "There is no page at {path}.", "fr": "Il n'y a pas de page à l'adresse {path}."},
    "error.database": {
        "en": "The database cannot answer just now. Reload the page in a moment.",
        "fr": "La base de données ne peut pas répondre pour l'instant. Rechargez la page dans un moment.",
    },
    "error.internal": {
        "en": "The page could not be shown. The error is logged.",
        "fr": "La page n'a pas pu être affichée. L'erreur est consignée.",
    },
    # counts: the ``.one`` form where the language says "1 round" (French: 0 and 1), else the other
    "count.rounds": {"en": "{count} rounds", "fr": "{count} rondes"},
    "count.rounds.one": {"en": "{count} round", "fr": "{count} ronde"},
    "what.game": {"en": "A game number", "fr": "Un numéro de partie"},
    "what.tournament": {"en": "A tournament number", "fr": "Un numéro de tournoi"},
    "what.step": {"en": "A step", "fr": "Une étape"},
    "what.page": {"en": "A page number", "fr": "Un numéro de page"},
}


def counted(key: str, count: int, language: str) -> str:
    """``count`` things of ``key`` (``count.rounds``) in ``language``, singular where its grammar wants it."""
    one = count == 1 or (language == "fr" and count == 0)
    return text(f"{key}.one" if one else key, language, count=count)


def text(key: str, language: str, **fields: Any) -> str:
    """The page string ``key`` in ``language`` (English if it has none), its fields filled in."""
    entry = PAGES[key]
    return entry.get(language, entry["en"]).format(**fields)
