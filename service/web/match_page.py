"""A page per match, ``/matches/<id>``: its two bots, the test (``elo0``, ``elo1``, ``alpha``, ``beta``, the Elo
model), its plan before it started (the chance of H1, of no verdict and the games expected at elo0, halfway and
elo1), the log-likelihood ratio drawn between its two bounds, the verdict in words with its test and table size, the
Elo difference in normalized and logistic Elo, each with its nominal 95% interval labelled as not corrected for early
stopping,
whether its deals are paired, the pentanomial counts of the completed pairs (the trinomial counts of the games, on
independent deals) and the games pair by pair. It reloads itself every few seconds while
the match is played. Its figures are those of ``GET /api/v1/matches/{id}`` (``service.api.matches.detail``), the
one place they are computed; docs/ratings.md says what they mean."""

from __future__ import annotations

from typing import Any

from flask import render_template
from flask.typing import ResponseReturnValue
from markupsafe import Markup
from sqlalchemy import select

from ratings.verdict_words import STOPPED_COVERAGE
from service import db
from service.api import matches
from service.web.errors import PageError, whole
from service.web.messages import PAGES, text
from service.web.views import MAX_ID, blp, lang
from store.models import Match

PAGES.update(
    {
        "match.title": {"en": "Match {id}: {a} against {b}", "fr": "Match {id} : {a} contre {b}"},
        "match.about": {
            "en": "{game}, {seats} seats; {deals}; H0: A is at most {elo0} Elo "
            "stronger, H1: at least {elo1} ({model} Elo); alpha {alpha}, beta {beta}; at most {max_games} games.",
            "fr": "{game}, {seats} sièges; {deals}; H0 : A a au plus {elo0} "
            "Elo de plus, H1 : au moins {elo1} (Elo {model}); alpha {alpha}, bêta {beta}; au plus {max_games} "
            "parties.",
        },
        "match.deals.paired": {
            "en": "paired deals (one seed per pair, seats swapped, played one after the other: every bot is its "
            "maker's own)",
            "fr": "donnes appariées (une graine par paire, sièges échangés, jouées l'une après l'autre : chaque bot "
            "est à l'auteur du match)",
        },
        "match.deals.independent": {
            "en": "independent deals (each game its own seed: a bot may remember a deal it held)",
            "fr": "donnes indépendantes (une graine par partie : un bot peut se souvenir d'une donne qu'il a eue)",
        },
        "match.verdict": {"en": "Verdict", "fr": "Verdict"},
        "match.verdict.continue": {"en": "playing: no verdict yet", "fr": "en cours : pas encore de verdict"},
        "match.test": {
            "en": "elo0={elo0}, elo1={elo1}, {model} Elo, at {seats} seats",
            "fr": "elo0={elo0}, elo1={elo1}, Elo {model}, à {seats} sièges",
        },
        "match.holm": {
            "en": "{test}, Holm-corrected over a gauntlet of {k}",
            "fr": "{test}, correction de Holm sur un tournoi de {k} matchs",
        },
        "match.verdict.H1": {
            "en": "H1: evidence that {a} is stronger than {b} (H1 accepted at {test})",
            "fr": "H1 : des preuves que {a} est plus fort que {b} (H1 acceptée à {test})",
        },
        "match.verdict.H0": {
            "en": "H0: no evidence of a gain of {elo1} by {a} over {b} (H0 accepted at {test})",
            "fr": "H0 : pas de preuve d'un gain de {elo1} de {a} sur {b} (H0 acceptée à {test})",
        },
        "match.verdict.inconclusive": {
            "en": "inconclusive: every game played without a verdict",
            "fr": "non concluant : toutes les parties jouées sans verdict",
        },
        "match.verdict.cancelled": {"en": "cancelled", "fr": "annulé"},
        "match.llr": {"en": "Log-likelihood ratio", "fr": "Log du rapport de vraisemblance"},
        "match.elo": {"en": "Elo difference (A − B)", "fr": "Écart Elo (A − B)"},
        "match.elo.normalized": {"en": "normalized Elo", "fr": "Elo normalisé"},
        "match.elo.logistic": {"en": "logistic Elo", "fr": "Elo logistique"},
        "match.elo.note": {
            "en": "nominal 95% intervals, not corrected for early stopping: after a verdict they cover the truth in "
            f"about {STOPPED_COVERAGE} of matches (docs/ratings.md)",
            "fr": "intervalles nominaux à 95 %, non corrigés de l'arrêt précoce : après un verdict ils couvrent la "
            f"vraie valeur dans environ {STOPPED_COVERAGE} des matchs (docs/ratings.md)",
        },
        "match.stopped": {
            "en": "Corrected for early stopping (median-unbiased, 95% interval)",
            "fr": "Corrigé de l'arrêt précoce (sans biais médian, intervalle à 95 %)",
        },
        "match.plan": {
            "en": "Before it started (Wald's approximation)",
            "fr": "Avant le début (approximation de Wald)",
        },
        "match.plan.point": {
            "en": "if A is truly {elo} {model} Elo: H1 {p_h1} ({p_h1_ever} without a limit), no verdict {p_none}, "
            "about {games} games",
            "fr": "si A a vraiment {elo} Elo {model} de plus : H1 {p_h1} ({p_h1_ever} sans limite), pas de verdict "
            "{p_none}, environ {games} parties",
        },
        "match.pairs": {
            "en": "{pairs} pairs completed, {games} games played",
            "fr": "{pairs} paires complètes, {games} parties jouées",
        },
        "match.counts": {
            "en": "Pairs by A's points out of 2 (pentanomial counts)",
            "fr": "Paires selon les points de A sur 2 (effectifs pentanomiaux)",
        },
        "match.counts.games": {
            "en": "Games by A's points (trinomial counts: lost, tied, won)",
            "fr": "Parties selon les points de A (effectifs trinomiaux : perdues, nulles, gagnées)",
        },
        "match.games": {"en": "Games", "fr": "Parties"},
        "match.pair": {"en": "Pair", "fr": "Paire"},
        "match.score": {"en": "A's score", "fr": "Score de A"},
        "error.no_match": {"en": "There is no match {id}.", "fr": "Il n'y a pas de match {id}."},
        "what.match": {"en": "A match number", "fr": "Un numéro de match"},
    }
)

WIDTH, HEIGHT, MARGIN = 640, 56, 24


def llr_bar(llr: float, lower: float, upper: float) -> Markup:
    """The LLR as a marker on the line from the lower bound (H0 accepted) to the upper (H1 accepted)."""
    span = upper - lower
    at = min(max((llr - lower) / span if span > 0 else 0.5, 0.0), 1.0)
    x = MARGIN + at * (WIDTH - 2 * MARGIN)
    zero = MARGIN + min(max(-lower / span if span > 0 else 0.5, 0.0), 1.0) * (WIDTH - 2 * MARGIN)
    return Markup(
        f'<svg class="llr-bar" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" data-llr="{llr:.4f}" '
        f'data-lower="{lower:.4f}" data-upper="{upper:.4f}" aria-label="LLR {llr:.2f} in [{lower:.2f}, {upper:.2f}]">'
        f'<line x1="{MARGIN}" x2="{WIDTH - MARGIN}" y1="24" y2="24" stroke="#888" stroke-width="4"/>'
        f'<line x1="{zero:.1f}" x2="{zero:.1f}" y1="16" y2="32" stroke="#888"/>'
        f'<text x="{MARGIN}" y="50" font-size="12">H0 {lower:.2f}</text>'
        f'<text x="{WIDTH - MARGIN}" y="50" font-size="12" text-anchor="end">H1 {upper:.2f}</text>'
        f'<circle class="llr" cx="{x:.1f}" cy="24" r="8" fill="#b5121b"/>'
        f'<text x="{x:.1f}" y="12" font-size="12" text-anchor="middle">{llr:.2f}</text></svg>'
    )


@blp.get("/matches/<match_id>")
def match_page(match_id: str) -> ResponseReturnValue:
    number = whole(match_id, "match")
    session = db.session()
    found = (
        matches.with_tournaments(session, select(Match).where(Match.id == number)) if 0 < number <= MAX_ID else []
    )
    if not found:
        raise PageError(404, "error.no_match", id=number)
    shown: dict[str, Any] = matches.detail(session, found[0])
    bar = llr_bar(shown["llr"], shown["lower"], shown["upper"])
    language = lang()
    test = text(
        "match.test",
        language,
        elo0=f"{shown['elo0']:g}",
        elo1=f"{shown['elo1']:g}",
        model=shown["model"],
        seats=shown["table_size"],
    )
    k = shown["gauntlet_size"]
    if k > 1:
        test = text("match.holm", language, test=test, k=k)
    verdict = text(
        f"match.verdict.{shown['verdict']}",
        language,
        a=shown["name_a"],
        b=shown["name_b"],
        test=test,
        elo1=f"{shown['elo1']:g}",
    )
    plan = [
        text(
            "match.plan.point",
            language,
            elo=f"{point['elo']:+g}",
            model=shown["model"],
            p_h1=f"{point['p_h1']:.0%}",
            p_h1_ever=f"{point['p_h1_ever']:.0%}",
            p_none=f"{point['p_none']:.0%}",
            games=f"{point['games']:.0f}",
        )
        for point in shown["plan"]
    ]
    live = shown["status"] in ("scheduled", "running")
    deals = text("match.deals.paired" if shown["paired"] else "match.deals.independent", language)
    return render_template(
        "match.html", match=shown, bar=bar, verdict=verdict, live=live, deals=deals, test=test, plan=plan
    )
