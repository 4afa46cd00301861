"""Results shaped by what a tool *does*: a summary for summarize, a number with a unit for
calculate, ``valid`` and issues for validate, page state for a browser click, stdout for a
command, trades for a market, status fields for health/session/info.

``purpose`` reads the tool's name words first, then the leading verb of its description;
``shape`` builds the result. Both are pure functions of (tool, args, ctx.rng).
"""

from __future__ import annotations

import math
import re
import statistics
from typing import Any

from synth.offline import content, judgements, shapes, texts
from synth.offline import entities as E
from synth.offline.devtools import evaluate
from synth.offline.values import Context, words
from synth.records import ToolSpec

# word -> purpose. STRONG words decide before the themed packs; WEAK ones only after them.
STRONG = {
    **dict.fromkeys(("summarize", "summarise", "summarization", "summarizer", "tldr", "recap"), "summarize"),
    **dict.fromkeys(("translate", "translation", "translator"), "translate"),
    **dict.fromkeys(
        (
            "calculate",
            "calculator",
            "calc",
            "compute",
            "convert",
            "conversion",
            "converter",
            "estimate",
            "bmi",
            "subtract",
            "multiply",
            "divide",
            "sum",
            "power",
            "sqrt",
            "modulo",
            "average",
            "mean",
            "median",
            "factorial",
            "percentage",
            "arithmetic",
            "math",
            "permutations",
            "permutation",
            "combinations",
            "combination",
            "binomial",
            "gcd",
            "lcm",
            "variance",
            "stdev",
        ),
        "calculate",
    ),
    **dict.fromkeys(
        (
            "analyze",
            "analyse",
            "analysis",
            "analyzer",
            "evaluate",
            "evaluation",
            "assess",
            "assessment",
            "audit",
            "review",
            "sentiment",
            "classify",
            "diagnose",
            "detect",
        ),
        "analyze",
    ),
    **dict.fromkeys(
        ("generate", "gen", "generator", "compose", "brainstorm", "random", "dice", "uuid", "guid", "mnemonic"),
        "generate",
    ),
    **dict.fromkeys(("validate", "validation", "validator", "lint", "linter", "verify", "verification"), "validate"),
    **dict.fromkeys(("simulate", "simulation", "simulator", "predict", "prediction"), "simulate"),
    **dict.fromkeys(
        (
            "think",
            "thinking",
            "sequentialthinking",
            "reason",
            "reasoning",
            "reflect",
            "reflection",
            "mentalmodel",
            "decisionframework",
            "structuredargumentation",
            "scientificmethod",
            "metacognitivemonitoring",
            "visualreasoning",
            "collaborativereasoning",
            "systemsthinking",
            "debuggingapproach",
            "designpattern",
            "programmingparadigm",
            "smartthinking",
            "pentestthinking",
            "multiagentdebate",
            "lotuswisdom",
            "stochasticalgorithm",
        ),
        "think",
    ),
    **dict.fromkeys(("click", "navigate", "goto", "hover", "scroll", "screenshot", "act", "drag"), "browser"),
    **dict.fromkeys(("run", "execute", "exec", "shell", "bash", "terminal", "powershell", "cmd", "command"), "run"),
    **dict.fromkeys(
        (
            "trade",
            "trades",
            "orderbook",
            "ohlcv",
            "candle",
            "candles",
            "candlestick",
            "candlesticks",
            "kline",
            "klines",
            "funding",
            "forex",
        ),
        "market",
    ),
    **dict.fromkeys(("encrypt", "decrypt", "encode", "decode", "hash", "base64", "hmac"), "crypt"),
    **dict.fromkeys(("connect", "disconnect", "login", "logout", "authenticate", "initialize", "init"), "connect"),
    "echo": "echo",
    **dict.fromkeys(("transcribe", "transcription", "stt"), "transcribe"),
    **dict.fromkeys(("ask", "answer", "perplexity"), "answer"),
    **dict.fromkeys(("download", "export"), "export"),
    # a change verb inside a getter's name ("crm_batch_delete_objects") is still a change
    **dict.fromkeys(("delete", "remove", "purge"), "delete"),
    **dict.fromkeys(("create", "insert"), "create"),
    **dict.fromkeys(("update", "edit", "modify", "rename"), "update"),
}
WEAK = {
    **dict.fromkeys(("check", "test", "inspect"), "validate"),
    **dict.fromkeys(("forecast",), "simulate"),
    **dict.fromkeys(
        (
            "type",
            "fill",
            "press",
            "select",
            "tab",
            "dialog",
            "resize",
            "wait",
            "reload",
            "back",
            "forward",
            "snapshot",
            "close",
            "evaluate",
            "extract",
            "upload",
            "interact",
        ),
        "browser",
    ),
    **dict.fromkeys(("market", "exchange", "ticker", "markets"), "market"),
    **dict.fromkeys(
        (
            "status",
            "health",
            "healthcheck",
            "ping",
            "alive",
            "liveness",
            "readiness",
            "uptime",
            "heartbeat",
            "session",
            "version",
            "system",
            "whoami",
            "monitor",
        ),
        "status",
    ),
    **dict.fromkeys(("time", "now", "clock", "timezone", "datetime"), "time"),
    **dict.fromkeys(("log", "logs", "trace", "traces"), "logs"),
    **dict.fromkeys(("describe", "schema", "columns"), "schema"),
    **dict.fromkeys(("save", "pdf"), "export"),
}
_BROWSERISH = {
    "browser",
    "playwright",
    "puppeteer",
    "page",
    "tab",
    "stagehand",
    "selenium",
    "chrome",
    "web",
    "element",
    "computer",
    "mobile",
    "app",
    "ui",
    "screen",
}
_CONTENT_NOUNS = {
    "story",
    "poem",
    "essay",
    "caption",
    "copy",
    "tweet",
    "outline",
    "slogan",
    "tagline",
    "headline",
    "joke",
    "lyrics",
    "haiku",
    "bio",
    "blurb",
}
_LEAD_SKIP = re.compile(
    r"^(?:this tool |use this tool to |tool (?:to|that) |a tool (?:to|that|for) |allows? (?:you )?to |"
    r"helps? (?:you )?(?:to )?|lets you |can |will |used to |\w+ tool (?:to|that|for) )",
    re.I,
)


def _stem(word: str) -> str:
    for suffix, repl in (("izes", "ize"), ("ises", "ise"), ("ates", "ate"), ("ses", "se"), ("es", "e"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + repl
    return word


def lead_verb(description: str) -> str:
    """The first word of the description's first sentence, as a base verb: "Calculates ..." -> "calculate"."""
    first = re.split(r"(?<=[.!?])\s|\n", description.strip(), maxsplit=1)[0]
    first = _LEAD_SKIP.sub("", _LEAD_SKIP.sub("", first.strip()))
    w = re.findall(r"[A-Za-z]+", first)
    return _stem(w[0].lower()) if w else ""


def purposes(tool: ToolSpec, strong: bool = True) -> list[str]:
    """What the tool does, from its name words, in name order (``strong``: only words that outrank themes)."""
    w = [re.sub(r"\d+", "", x) for x in words(tool.name)]
    joined = "".join(w)
    if strong and (
        joined in STRONG or re.search(r"(thinking|reasoning|argumentation|monitoring)$", joined) and len(w) <= 2
    ):
        w = [joined if joined in STRONG else "thinking"]
    table = STRONG if strong else WEAK
    browsing = bool(set(w) & _BROWSERISH) or bool(
        re.search(r"\b(browser|web ?page|element|selector)\b", tool.description, re.I)
    )
    out: list[str] = []
    for word in w:
        p = table.get(word)
        if (
            p is None
            and strong
            and word == "add"
            and set(w) & {"number", "numbers", "two", "integers", "values", "ints"}
        ):
            p = "calculate"
        if p is None and strong and word == "draft" and word == w[0]:
            p = "generate"
        if (
            p is None
            and strong
            and len(w) == 1
            and word
            in ("max", "min", "floor", "ceil", "round", "abs", "add", "sub", "mul", "div", "mod", "pow", "mode")
        ):
            p = "calculate"
        if strong and word in ("write", "create") and set(w) & _CONTENT_NOUNS:
            p = "generate"
        if p == "browser" and not strong and not browsing:
            continue
        if p == "validate" and word == "test" and browsing:
            continue
        if p == "analyze" and word == "evaluate" and browsing:
            p = "browser"
        if p and p not in out:
            out.append(p)
    return out


def described_purpose(tool: ToolSpec) -> str | None:
    """The purpose the description's leading verb names ("Summarizes the transcript ...")."""
    v = lead_verb(tool.description)
    p = STRONG.get(v) or (
        WEAK.get(v) if v not in ("type", "close", "select", "set", "move", "add", "time", "info") else None
    )
    if (
        p == "browser"
        and v not in ("click", "navigate", "screenshot", "hover", "scroll", "drag")
        and not re.search(r"\b(browser|web ?page|page|element|selector|tab)\b", tool.description, re.I)
    ):
        return None
    return p


def shape(p: str, tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
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
_LANG = {
    "spanish": "es",
    "french": "fr",
    "german": "de",
    "portuguese": "pt",
    "italian": "it",
    "english": "en",
    "japanese": "ja",
    "chinese": "zh",
    "es": "es",
    "fr": "fr",
    "de": "de",
    "pt": "pt",
    "it": "it",
    "en": "en",
}


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


# --- calculate -----------------------------------------------------------------------------------

_UNIT = {
    "mm": ("length", 0.001),
    "cm": ("length", 0.01),
    "m": ("length", 1),
    "km": ("length", 1000),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "yd": ("length", 0.9144),
    "mi": ("length", 1609.344),
    "mg": ("mass", 1e-6),
    "g": ("mass", 0.001),
    "kg": ("mass", 1),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523),
    "t": ("mass", 1000),
    "ml": ("volume", 0.001),
    "l": ("volume", 1),
    "cup": ("volume", 0.2365882),
    "tbsp": ("volume", 0.0147868),
    "tsp": ("volume", 0.00492892),
    "gal": ("volume", 3.785411),
    "floz": ("volume", 0.0295735),
    "s": ("time", 1),
    "min": ("time", 60),
    "h": ("time", 3600),
    "day": ("time", 86400),
    "c": ("temp", 0),
    "f": ("temp", 0),
    "k": ("temp", 0),
}
_ALIAS = {
    "meter": "m",
    "metre": "m",
    "kilometer": "km",
    "kilometre": "km",
    "centimeter": "cm",
    "millimeter": "mm",
    "inch": "in",
    "foot": "ft",
    "feet": "ft",
    "yard": "yd",
    "mile": "mi",
    "gram": "g",
    "kilogram": "kg",
    "milligram": "mg",
    "pound": "lb",
    "lbs": "lb",
    "ounce": "oz",
    "tonne": "t",
    "ton": "t",
    "liter": "l",
    "litre": "l",
    "milliliter": "ml",
    "millilitre": "ml",
    "gallon": "gal",
    "second": "s",
    "sec": "s",
    "minute": "min",
    "hour": "h",
    "hr": "h",
    "celsius": "c",
    "fahrenheit": "f",
    "kelvin": "k",
    "°c": "c",
    "°f": "f",
}


def _unit(u: Any) -> str | None:
    s = str(u).strip().lower().replace(" ", "")
    s = _ALIAS.get(s, _ALIAS.get(s.rstrip("s"), s))
    return s if s in _UNIT else (s.rstrip("s") if s.rstrip("s") in _UNIT else None)


def _convert(value: float, a: str, b: str) -> float | None:
    (qa, fa), (qb, fb) = _UNIT[a], _UNIT[b]
    if qa != qb:
        return None
    if qa == "temp":
        c = value if a == "c" else (value - 32) * 5 / 9 if a == "f" else value - 273.15
        return c if b == "c" else c * 9 / 5 + 32 if b == "f" else c + 273.15
    return value * fa / fb


_ARITH = {
    "add": lambda n: sum(n),
    "sum": lambda n: sum(n),
    "plus": lambda n: sum(n),
    "subtract": lambda n: n[0] - sum(n[1:]),
    "minus": lambda n: n[0] - sum(n[1:]),
    "multiply": lambda n: math.prod(n),
    "product": lambda n: math.prod(n),
    "divide": lambda n: n[0] / n[1] if len(n) > 1 and n[1] else None,
    "power": lambda n: n[0] ** n[1] if len(n) > 1 and abs(n[1]) < 32 else None,
    "sqrt": lambda n: math.sqrt(n[0]) if n[0] >= 0 else None,
    "modulo": lambda n: n[0] % n[1] if len(n) > 1 and n[1] else None,
    "average": lambda n: sum(n) / len(n),
    "mean": lambda n: sum(n) / len(n),
    "min": min,
    "max": max,
    "minimum": min,
    "maximum": max,
    "sub": lambda n: n[0] - sum(n[1:]),
    "mul": lambda n: math.prod(n),
    "div": lambda n: n[0] / n[1] if len(n) > 1 and n[1] else None,
    "mod": lambda n: n[0] % n[1] if len(n) > 1 and n[1] else None,
    "pow": lambda n: n[0] ** n[1] if len(n) > 1 and abs(n[1]) < 32 else None,
    "floor": lambda n: math.floor(n[0]),
    "ceil": lambda n: math.ceil(n[0]),
    "round": lambda n: round(n[0], int(n[1]) if len(n) > 1 else None),
    "abs": lambda n: abs(n[0]),
    "median": lambda n: sorted(n)[len(n) // 2] if len(n) % 2 else sum(sorted(n)[len(n) // 2 - 1 : len(n) // 2 + 1]) / 2,
    "factorial": lambda n: math.factorial(int(n[0])) if 0 <= n[0] <= 20 else None,
    # counting and number theory: the formula's value, never a number of the right size
    "permutations": lambda n: _whole(math.perm, n),
    "permutation": lambda n: _whole(math.perm, n),
    "combinations": lambda n: _whole(math.comb, n),
    "combination": lambda n: _whole(math.comb, n),
    "binomial": lambda n: _whole(math.comb, n),
    "gcd": lambda n: _whole(math.gcd, n),
    "lcm": lambda n: _whole(math.lcm, n),
    "mode": lambda n: statistics.multimode(n)[0],
    "variance": lambda n: statistics.pvariance(n) if len(n) > 1 else None,
    "stdev": lambda n: statistics.pstdev(n) if len(n) > 1 else None,
}


def _whole(f: Any, n: list[float]) -> int | None:
    """``f`` over whole numbers (``perm(n, k)``, ``gcd(a, b)``); None when they are not whole or too large."""
    if not all(float(x).is_integer() and 0 <= x <= 10**6 for x in n[:2]) or (
        f in (math.perm, math.comb) and n[0] > 200
    ):
        return None
    return f(*(int(x) for x in n[:2])) if len(n) > 1 else f(int(n[0])) if f is math.perm else None


_GUESS = (
    ("mme", "mg MME/day", 10, 180),
    ("dose", "mg", 5, 500),
    ("calorie", "kcal", 150, 3200),
    ("bmr", "kcal/day", 1300, 2400),
    ("distance", "km", 0.5, 900),
    ("speed", "km/h", 5, 120),
    ("area", "m²", 12, 400),
    ("volume", "L", 0.2, 60),
    ("weight", "kg", 45, 110),
    ("energy", "kWh", 0.5, 900),
    ("emission", "kg CO2e", 2, 2500),
    ("carbon", "kg CO2e", 2, 2500),
    ("percentile", "percentile", 3, 97),
    ("risk", "%", 1, 35),
    ("probability", "%", 1, 95),
    ("rate", "%", 0.5, 12),
    ("percent", "%", 1, 80),
    ("age", "years", 1, 90),
    ("score", "points", 1, 100),
    ("duration", "minutes", 3, 240),
    ("time", "minutes", 3, 240),
    ("temperature", "°C", -5, 35),
    ("loan", "USD/month", 250, 4200),
    ("mortgage", "USD/month", 700, 4200),
    ("tax", "USD", 40, 9000),
    ("tip", "USD", 2, 60),
    ("salary", "USD", 2500, 12000),
    ("price", "USD", 5, 900),
    ("cost", "USD", 5, 900),
    ("interest", "USD", 10, 5000),
    ("fee", "USD", 1, 200),
)


def _calculate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    nums = E.numbers(args)
    w = words(tool.name)
    expr = next(
        (
            v
            for k, v in args.items()
            if isinstance(v, str)
            and set(words(k)) & {"expression", "expr", "formula", "equation", "calculation", "input"}
        ),
        None,
    )
    if expr is not None and (value := evaluate(expr)) is not None:
        return {"expression": expr, "result": value}
    op = next((x for x in w if x in _ARITH), None) or next(
        (x for x in re.findall(r"[a-z]+", text[:60]) if x in _ARITH), None
    )
    if op and nums:
        try:
            value = _ARITH[op](nums)  # type: ignore[operator]
        except (OverflowError, ValueError, ZeroDivisionError):
            value = None
        if value is not None:
            sign = {
                "sub": "-",
                "mul": "×",
                "div": "÷",
                "mod": "mod",
                "add": "+",
                "sum": "+",
                "plus": "+",
                "subtract": "-",
                "minus": "-",
                "multiply": "×",
                "product": "×",
                "divide": "÷",
                "power": "^",
                "modulo": "mod",
            }
            out: dict[str, Any] = {"result": round(value, 6) if isinstance(value, float) else value}
            if op in sign:
                out["expression"] = f" {sign[op]} ".join(_num(n) for n in nums)
            return out
    units = [
        (k, v)
        for k, v in args.items()
        if isinstance(v, str) and _unit(v) and set(words(k)) & {"from", "to", "source", "target", "unit", "units"}
    ]
    if len(units) >= 2 and nums:
        a, b = _unit(units[0][1]), _unit(units[1][1])
        if a and b and (value := _convert(nums[0], a, b)) is not None:
            return {"value": nums[0], "from_unit": units[0][1], "to_unit": units[1][1], "result": round(value, 4)}
    currencies = [v for v in args.values() if isinstance(v, str) and E.rate(v, "USD")]
    if len(currencies) >= 2 and (r := E.rate(currencies[0], currencies[1])) is not None:
        amount = nums[0] if nums else 1
        return {
            "amount": amount,
            "from": currencies[0].upper(),
            "to": currencies[1].upper(),
            "rate": round(r, 6),
            "result": round(amount * r, 2),
            "date": "2026-06-01",
        }
    if "bmi" in w or " bmi" in text:
        weight = next((v for k, v in args.items() if "weight" in k.lower() and isinstance(v, (int, float))), 72)
        height = next((v for k, v in args.items() if "height" in k.lower() and isinstance(v, (int, float))), 175)
        h = height / 100 if height > 3 else height
        bmi = round(weight / (h * h), 1) if h else 24.2
        cat = "underweight" if bmi < 18.5 else "normal weight" if bmi < 25 else "overweight" if bmi < 30 else "obese"
        return {"bmi": bmi, "unit": "kg/m²", "category": cat}
    if "convert" in w and any(
        isinstance(v, str) and "/" in v and v.split("/")[0] in ("America", "Europe", "Asia", "Australia")
        for v in args.values()
    ):
        return shapes.SHAPES["time"](tool, args, ctx, text)
    if "convert" in w and not nums:  # a file or text conversion, not a number
        return _SHAPES["export"](tool, args, ctx, text)
    if "matrix" in text or "matrices" in text:
        return {"result": [[rng.randint(-9, 30) for _ in range(2)] for _ in range(2)], "shape": [2, 2]}
    suffix = next(
        (
            k.rsplit("_", 1)[1]
            for k, v in args.items()
            if isinstance(v, (int, float))
            and "_" in k
            and k.rsplit("_", 1)[1] in ("mg", "g", "kg", "ml", "l", "km", "m", "usd", "eur", "kcal")
        ),
        None,
    )
    if suffix and nums:  # "from_dose_mg": the answer is in the same unit, of the same order
        return {
            "result": round(nums[0] * rng.uniform(0.25, 4), 1),
            "unit": suffix.upper() if suffix in ("usd", "eur") else suffix,
        }
    unit, lo, hi = next(((u, lo, hi) for key, u, lo, hi in _GUESS if re.search(rf"\b{key}", text[:200])), ("", 1, 1000))
    value = round(rng.uniform(lo, hi), 1 if hi < 200 else 0)
    out = {"result": int(value) if hi >= 200 else value, "unit": unit} if unit else {"result": value}
    if unit in ("%", "percentile") and ("risk" in text or "score" in text):
        out["interpretation"] = "low" if value < 10 else "intermediate" if value < 20 else "high"
    return out


def _num(n: float) -> str:
    return str(int(n)) if float(n).is_integer() else str(n)


_SHAPES: dict[str, Any] = {
    "summarize": _summarize,
    "translate": _translate,
    "calculate": _calculate,
    "transcribe": lambda tool, args, ctx, text: E.record(["transcript"], text, args, ctx),
    "answer": lambda tool, args, ctx, text: content.answer(args, ctx),
}
_SHAPES.update(shapes.SHAPES)
_SHAPES.update(content.SHAPES)
_SHAPES.update(judgements.SHAPES)
