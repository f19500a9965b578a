"""The strings of the owner's view, in English and French: the viewer's sign-in (``service/web/owner.py``). Joined
to the pages' own (``service.web.messages.PAGES``) when ``owner.py`` loads."""

from __future__ import annotations

OWNER_PAGES: dict[str, dict[str, str]] = {
    "owner.sign_in": {"en": "Sign in", "fr": "Se connecter"},
    "owner.sign_out": {"en": "Sign out", "fr": "Se déconnecter"},
    "owner.token": {"en": "Your token", "fr": "Votre jeton"},
    "owner.about": {
        "en": "Your bot plays here? Sign in with your account's token to see its faults in detail and its debug "
        "text while the game runs (everyone sees them once it is over). The token stays in this tab only.",
        "fr": "Votre robot joue ici ? Connectez-vous avec le jeton de votre compte pour voir le détail de ses "
        "fautes et son texte de débogage pendant la partie (tout le monde les voit une fois la partie finie). Le "
        "jeton ne quitte pas cet onglet.",
    },
    "owner.signed_in": {
        "en": "Signed in: the faults and debug text of your seats ({seats}) are shown.",
        "fr": "Connecté : les fautes et le texte de débogage de vos places ({seats}) sont affichés.",
    },
    "owner.no_seat": {
        "en": "Signed in, but this token owns no seat of this game.",
        "fr": "Connecté, mais ce jeton ne possède aucune place de cette partie.",
    },
    "error.401": {"en": "Not signed in", "fr": "Non connecté"},
    "error.token": {
        "en": "The token was refused: send 'Authorization: Bearer <token>' with a token of the arena.",
        "fr": "Le jeton a été refusé : envoyez « Authorization: Bearer <jeton> » avec un jeton de l'arène.",
    },
}
