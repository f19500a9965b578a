"""The strings of the play page (``service/web/play_page.py``), in English and French: joined to the pages' own
(``service.web.messages.PAGES``) when that module is loaded."""

from __future__ import annotations

PLAY_PAGES: dict[str, dict[str, str]] = {
    "nav.play": {"en": "Play", "fr": "Jouer"},
    "play.title": {"en": "Play against bots", "fr": "Jouer contre des robots"},
    "play.intro": {
        "en": "Take a seat in a game against bots: yours, or those their owners opened to others. They play as "
        "in a tournament; you see exactly what your seat sees.",
        "fr": "Prenez place dans une partie contre des robots : les vôtres, ou ceux que leurs propriétaires "
        "ouvrent aux autres. Ils jouent comme en tournoi ; vous voyez exactement ce que voit votre place.",
    },
    "play.account": {"en": "Your account", "fr": "Votre compte"},
    "play.name": {"en": "Your name", "fr": "Votre nom"},
    "play.create_account": {"en": "Create an account", "fr": "Créer un compte"},
    "play.token": {"en": "or your token", "fr": "ou votre jeton"},
    "play.use_token": {"en": "Use this token", "fr": "Utiliser ce jeton"},
    "play.signed_in": {"en": "Playing as {name}.", "fr": "Vous jouez sous le nom {name}."},
    "play.token_kept": {
        "en": "Your token is kept in this browser only.",
        "fr": "Votre jeton n'est gardé que dans ce navigateur.",
    },
    "play.forget": {"en": "Forget the token", "fr": "Oublier le jeton"},
    "play.setup": {"en": "The game", "fr": "La partie"},
    "play.game": {"en": "Game", "fr": "Jeu"},
    "play.variant": {"en": "Variant", "fr": "Variante"},
    "play.pawns": {"en": "Pawns each", "fr": "Pions par joueur"},
    "play.longer": {"en": "Longer game", "fr": "Partie plus longue"},
    "play.turn_cap": {"en": "Turn limit", "fr": "Limite de tours"},
    "play.opponents": {"en": "Opponents", "fr": "Adversaires"},
    "play.opponent": {"en": "Opponent {number}", "fr": "Adversaire {number}"},
    "play.nobody": {"en": "(nobody)", "fr": "(personne)"},
    "play.no_bots": {
        "en": "No bot to play against yet: register one, or ask an owner to open theirs to others.",
        "fr": "Aucun robot contre qui jouer : inscrivez-en un, ou demandez à un propriétaire d'ouvrir le sien.",
    },
    "play.your_seat": {"en": "Your seat", "fr": "Votre place"},
    "play.move_time": {"en": "Seconds per move", "fr": "Secondes par coup"},
    "play.start": {"en": "Start the game", "fr": "Commencer la partie"},
    "play.mode.push": {"en": "push", "fr": "push"},
    "play.mode.pull": {"en": "pull", "fr": "pull"},
    "play.mine": {"en": "yours", "fr": "à vous"},
    "play.challenge": {"en": "Game against bots #{id}", "fr": "Partie contre des robots n° {id}"},
    "play.starting": {"en": "The game is being set up…", "fr": "La partie se prépare…"},
    "play.your_turn": {"en": "Your move:", "fr": "À vous de jouer :"},
    "play.waiting": {"en": "The bots are playing…", "fr": "Les robots jouent…"},
    "play.over": {"en": "The game is over.", "fr": "La partie est finie."},
    "play.cancelled": {"en": "You left this game.", "fr": "Vous avez quitté cette partie."},
    "play.leave": {"en": "Leave the game", "fr": "Quitter la partie"},
    "play.replay": {"en": "Watch the replay", "fr": "Voir la rediffusion"},
    "play.no_token": {
        "en": "This browser holds no token for this game: start one from the play page.",
        "fr": "Ce navigateur n'a pas de jeton pour cette partie : commencez-en une depuis la page Jouer.",
    },
    "play.you": {"en": "you", "fr": "vous"},
    "play.hand": {"en": "Your hand", "fr": "Votre main"},
    "play.recent": {"en": "Last moves", "fr": "Derniers coups"},
    "play.rank": {"en": "Your rank: {rank}", "fr": "Votre rang : {rank}"},
    "play.deadline": {"en": "Answer before {time}.", "fr": "Répondez avant {time}."},
    "play.error": {"en": "The service said:", "fr": "Le service a répondu :"},
    "error.no_challenge": {
        "en": "There is no game against bots {id}.",
        "fr": "Il n'y a pas de partie contre des robots {id}.",
    },
    "error.not_seated": {
        "en": "You hold no seat in game {id}.",
        "fr": "Vous n'avez pas de place dans la partie {id}.",
    },
    "what.challenge": {"en": "A game number", "fr": "Un numéro de partie"},
}
