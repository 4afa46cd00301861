"""Results shaped by what a tool *does*: a summary for summarize, a number with a unit for
calculate, ``valid`` and issues for validate, page state for a browser click, stdout for a
command, trades for a market, status fields for health/session/info.

``synth.simulator.results.purpose`` reads what the tool does from its name and description; ``shape``
builds the result for that purpose, a pure function of (tool, args, ctx.rng).
"""

from __future__ import annotations

import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator.results import content, judgements, shapes, texts, things
from synth.simulator.results import entities as E
from synth.simulator.results.calculate import calculate
from synth.simulator.values.values import Context, words


def shape(p: str, tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The result of a tool whose purpose is ``p``, or None when no shape is known for it."""
    text = " ".join(words(tool.name)) + " " + tool.description[:300].lower()
    return _SHAPES[p](tool, args, ctx, text) if p in _SHAPES else None


# --- summarize / translate -------------------------------------------------------------------------

_ABOUT = {  # when only an id is given, the content is unknown: any plausible content of that kind will do
    "video": (
        "The video walks through setting up a home espresso bar: choosing a grinder, dialling in a shot and steaming milk.",
        "A 12-minute explainer on how heat pumps work, comparing running costs with gas boilers.",
    ),
    "meeting": (
        "The team agreed to ship the billing changes on 9 June, Priya will update the rollout plan, and support needs a FAQ by Friday.",
        "Budget for Q3 was approved; hiring for the data role is paused until August; next review is on 15 June.",
    ),
    "thread": (
        "Customers report slow checkout on mobile since Tuesday; engineering traced it to an image CDN change and a fix is deploying today.",
    ),
    "paper": (
        "The paper proposes a retrieval step before generation and shows a 7-point gain on open-domain QA at the same model size.",
    ),
    "document": (
        "The document outlines the 2026 travel policy: economy for flights under six hours, a EUR 180 nightly hotel cap and pre-approval for trips abroad.",
        "A two-page brief proposing a four-day pilot of hybrid work, with success measured by delivery dates and a staff survey.",
    ),
}
_TRANSLATIONS = {
    "Running about ten minutes late, start without me.": {
        "es": "Llego unos diez minutos tarde, empezad sin mí.",
        "fr": "J'ai une dizaine de minutes de retard, commencez sans moi.",
        "de": "Ich bin etwa zehn Minuten zu spät, fangt ohne mich an.",
        "pt": "Vou chegar uns dez minutos atrasado, comecem sem mim.",
        "it": "Sono in ritardo di una decina di minuti, iniziate senza di me.",
    },
    "Can we move our 1:1 to Thursday afternoon?": {
        "es": "¿Podemos pasar nuestra reunión 1:1 al jueves por la tarde?",
        "fr": "Pouvons-nous déplacer notre point individuel à jeudi après-midi ?",
        "de": "Können wir unser 1:1 auf Donnerstagnachmittag verschieben?",
        "pt": "Podemos mudar a nossa reunião 1:1 para quinta à tarde?",
        "it": "Possiamo spostare il nostro 1:1 a giovedì pomeriggio?",
    },
    "The quarterly report is ready for review.": {
        "es": "El informe trimestral está listo para revisión.",
        "fr": "Le rapport trimestriel est prêt à être relu.",
        "de": "Der Quartalsbericht ist bereit zur Durchsicht.",
        "pt": "O relatório trimestral está pronto para revisão.",
        "it": "Il report trimestrale è pronto per la revisione.",
    },
    "Reminder: the team offsite is on Friday at 9am.": {
        "es": "Recordatorio: la jornada fuera de la oficina es el viernes a las 9.",
        "fr": "Rappel : le séminaire d'équipe a lieu vendredi à 9 h.",
        "de": "Erinnerung: Das Team-Offsite ist am Freitag um 9 Uhr.",
        "pt": "Lembrete: o offsite da equipa é na sexta às 9h.",
        "it": "Promemoria: l'offsite del team è venerdì alle 9.",
    },
    "Thanks for the quick turnaround on the invoice.": {
        "es": "Gracias por tramitar la factura tan rápido.",
        "fr": "Merci pour le traitement rapide de la facture.",
        "de": "Danke für die schnelle Bearbeitung der Rechnung.",
        "pt": "Obrigado pela rapidez com a fatura.",
        "it": "Grazie per la rapidità con la fattura.",
    },
    "Please review the draft before the client call.": {
        "es": "Por favor, revisa el borrador antes de la llamada con el cliente.",
        "fr": "Merci de relire le brouillon avant l'appel client.",
        "de": "Bitte sieh dir den Entwurf vor dem Kundentermin an.",
        "pt": "Por favor, revê o rascunho antes da chamada com o cliente.",
        "it": "Per favore, rivedi la bozza prima della call con il cliente.",
    },
    "Deployment finished, all checks are green.": {
        "es": "Despliegue terminado, todas las comprobaciones en verde.",
        "fr": "Déploiement terminé, tous les contrôles sont au vert.",
        "de": "Deployment abgeschlossen, alle Checks sind grün.",
        "pt": "Implementação concluída, todas as verificações a verde.",
        "it": "Deploy completato, tutti i controlli sono verdi.",
    },
}
_LANG = dict(
    pair.split(":")
    for pair in "spanish:es french:fr german:de portuguese:pt italian:it english:en japanese:ja chinese:zh".split()
)
_LANG |= {code: code for code in "es fr de pt it en".split()}  # a code names itself


def _summarize(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    key, value = E.focus(args)
    count = len(value.split())
    if set(words(tool.name)) & {"fact", "facts", "keyword", "keywords", "entities", "takeaways"}:
        sentences = [x.strip() for x in re.split(r"(?<=[.!?])\s+", value) if len(x.split()) > 2] or [value]
        if "keyword" in tool.name.lower():
            return {
                "keywords": sorted({x.lower() for x in re.findall(r"[A-Za-z]{5,}", value)}, key=lambda x: (-len(x), x))[
                    :5
                ]
            }
        return {"facts": sentences[:5], "count": min(len(sentences), 5)}
    if value in texts.KNOWN:
        summary = texts.KNOWN[value]
    elif value.startswith("http"):
        summary = f"The page on {E.host(value)} is about {E.url_topic(value)}; it gives an overview, the main details and links to related pages."
    elif count > 6 and set(words(key)) & {
        "text",
        "content",
        "transcript",
        "document",
        "body",
        "message",
        "input",
        "article",
    }:
        first = re.split(r"(?<=[.!?])\s+", value.strip())[0]
        if len(first.split()) > 25:  # cut at a clause boundary, never mid-phrase
            head = first[: len(" ".join(first.split()[:25]))]
            first = (head[: head.rfind(",")] if "," in head else head).rstrip(" ,;") + "..."
        audience = str(next((v for k, v in args.items() if "audience" in k.lower()), "")).lower()
        lead = {"business": "For the business: ", "technical": "Technical summary: ", "academic": "In brief: "}.get(
            audience, ""
        )
        summary = lead + (first[0].lower() + first[1:] if lead and not first[:2].isupper() else first)
    else:
        kind = next(
            (
                k
                for k, keys in (
                    ("video", ("video", "youtube", "transcript", "podcast")),
                    ("meeting", ("meeting", "call")),
                    ("thread", ("thread", "email", "chat", "channel", "conversation", "issue")),
                    ("paper", ("paper", "arxiv", "pubmed")),
                )
                if any(x in text for x in keys)
            ),
            "document",
        )
        summary = rng.choice(_ABOUT[kind])
    out: dict[str, Any] = {"summary": summary}
    if count > 3:
        out["original_words"] = count
    out["summary_words"] = len(summary.split())
    return out


def _translate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    _, value = E.focus(args)
    target = next(
        (str(v) for k, v in args.items() if set(words(k)) & {"target", "to", "dest", "destination"}), ""
    ) or next((str(v) for k, v in args.items() if set(words(k)) & {"language", "lang", "locale"}), "es")
    code = _LANG.get(target.lower().split("-")[0], target.lower()[:2])
    known = _TRANSLATIONS.get(value, {})
    if code in known:
        return {"translated_text": known[code], "source_language": "en", "target_language": code}
    if code == "en" or not value:
        return {
            "translated_text": value,
            "source_language": "en",
            "target_language": "en",
            "note": "text is already in English",
        }
    return {
        "source_language": "en",
        "target_language": code,
        "characters": len(value),
        "status": "queued",
        "job_id": E.ident("translation", ctx),
        "estimated_seconds": ctx.rng.randint(2, 20),
    }


_SHAPES: dict[str, Any] = {
    "summarize": _summarize,
    "translate": _translate,
    "calculate": calculate,
    "transcribe": lambda tool, args, ctx, text: things.record(["transcript"], text, args, ctx),
    "answer": lambda tool, args, ctx, text: content.answer(args, ctx),
}
_SHAPES.update(shapes.SHAPES)
_SHAPES.update(content.SHAPES)
_SHAPES.update(judgements.SHAPES)
