"""Result shapes for tools that *produce* something: generate (passwords, images, code, replies,
plans, drafts), answer, simulate/predict/forecast, and thinking tools. Used through
``synth.simulator.results.verbs``; judgements (analyze, validate) are in ``synth.simulator.results.judgements``.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/content", "keywords", dict[str, re.Pattern[str]])

_IDEAS = table("results/content", "ideas", tuple[str, ...])
_JOKES = table("results/content", "jokes", tuple[str, str])
_FACTS = table("results/content", "facts", tuple[str, str, str])
_POKEMON = table("results/content", "pokemon", tuple[tuple[str, list[str], int], ...])
_PICTURES = table("results/content", "pictures", frozenset[str])
_NAMINGS = table("results/content", "namings", frozenset[str])
_PNG_DATA = table("results/content", "png_data", str)
_DRAFTS = table("results/content", "drafts", tuple[str, str])
_SNIPPETS = table("results/content", "snippets", dict[str, str])


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def _topic(args: dict[str, Any], ctx: Context) -> str:
    key, value = E.focus(args)
    value = value.strip().rstrip(".?!")
    if not value or value.startswith("http"):
        return E.url_topic(value) if value else "the team's weekly update"
    return value


def _generate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """What a generator makes, by the first kind of thing its name asks for; a written draft otherwise."""
    rng = ctx.rng
    w = set(words(tool.name))
    t = _topic(args, ctx)
    fake = seed_faker(rng)
    if w & {"password", "passphrase"}:
        return _password(args, rng)
    if w & _SETS["generate.mnemonic"]:
        return {"mnemonic": " ".join(rng.choice(vocab.BIP39_WORDS) for _ in range(12)), "words": 12}
    if w & {"uuid", "guid"}:
        return {"uuid": str(fake.uuid4())}
    if w & _SETS["generate.qr"]:
        return {"format": "png", "size": 300, "data_uri": _PNG_DATA + E.hexid(ctx, 24)}
    if w & _PICTURES:
        return _picture(args, ctx)
    if w & _SETS["generate.audio"]:
        return {
            "audio_url": f"https://cdn.example.com/audio/{E.hexid(ctx, 16)}.mp3",
            "duration_s": round(len(t.split()) * 0.42 + 0.8, 1),
            "voice": rng.choice(_POOLS["generate.voice"]),
        }
    if "pokemon" in w:
        return _pokemon(rng)
    if "joke" in w:
        return {"joke": rng.choice(_JOKES)}
    if "fact" in w:
        return {"fact": rng.choice(_FACTS)}
    if w & _SETS["generate.number"] or ("random" in w and E.numbers(args)):
        return _random_number(E.numbers(args), text, rng)
    return _written(w, t, text, fake, rng)


def _written(w: set[str], t: str, text: str, fake: Any, rng: random.Random) -> dict[str, Any]:
    """Code, a reply, name ideas, a plan or a draft about topic ``t``: what the generator's name asks for."""
    snippet = next((k for k in _POOLS["written.snippet"] if k in w or (k == "test" and "playwright" in w)), None)
    if snippet:
        return {"code": _SNIPPETS[snippet], "language": _MAPS["written.language"][snippet]}
    if w & _SETS["written.code"]:
        return {"code": _SNIPPETS["code"], "language": "python"}
    if w & _SETS["written.email"]:
        return _reply(t, fake)
    if w & _NAMINGS:
        return {
            "suggestions": [p.format(t=t[0].lower() + t[1:], T=t[0].upper() + t[1:]) for p in rng.sample(_IDEAS, 3)]
        }
    if w & _SETS["written.plan"] or "break down" in text:
        steps: tuple[str, ...] = ("Define the goal and success criteria", f"Research {t}", "Draft a first version")
        steps += ("Review with stakeholders", "Finalize and share")
        return {"steps": [f"{i + 1}. {s}" for i, s in enumerate(steps)]}
    body = _WRITTEN.get(t.lower()) or f'Draft on "{t}": ' + rng.choice(_DRAFTS)
    return {"text": body, "word_count": len(body.split())}


def _password(args: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A password of the length asked for (8 to 64), else 16 characters, from unambiguous letters and digits."""
    n = int(E.numbers(args)[0]) if E.numbers(args) and 8 <= E.numbers(args)[0] <= 64 else 16
    password = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!@#$%&*") for _ in range(n))
    return {"password": password, "length": n, "entropy_bits": round(n * 6.1, 1)}


def _picture(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A generated image of the size asked for (at least 64 px), square 1024 px otherwise."""
    width = next(
        (int(v) for k, v in args.items() if "width" in k.lower() and isinstance(v, (int, float)) and v >= 64), 1024
    )
    height = next(
        (int(v) for k, v in args.items() if "height" in k.lower() and isinstance(v, (int, float)) and v >= 64), width
    )
    url = f"https://cdn.example.com/generated/{E.hexid(ctx, 16)}.png"
    return {"image_url": url, "width": width, "height": height, "format": "png"}


def _pokemon(rng: random.Random) -> dict[str, Any]:
    name, types, num = rng.choice(_POKEMON)
    return {
        "name": name,
        "id": num,
        "types": types,
        "height_m": round(rng.uniform(0.3, 2.5), 1),
        "weight_kg": round(rng.uniform(4, 220), 1),
    }


def _random_number(nums: list[float], text: str, rng: random.Random) -> dict[str, Any]:
    """A draw within the bounds given, from the distribution the call parameterised, or 1 to 100."""
    if len(nums) >= 2:
        lo, hi = int(min(nums[:2])), int(max(nums[:2]))
        return {"value": rng.randint(lo, hi), "min": lo, "max": hi}
    if "distribution" in text and nums:  # a draw from a distribution the call parameterised, not a dice roll
        if _KEYWORDS["random_number"].search(text):
            return {"value": round(rng.vonmisesvariate(nums[0] % (2 * math.pi), 4.0), 4)}
        return {"value": round(rng.gauss(nums[0], max(abs(nums[0]) * 0.2, 1.0)), 4)}
    return {"value": rng.randint(1, 100)}  # no bounds were given: none are claimed


def _reply(t: str, fake: Any) -> dict[str, Any]:
    name = fake.first_name()
    about = t[0].lower() + t[1:] if t else "this"
    return {
        "subject": f"Re: {t[:60]}" if len(t) < 60 else "Quick follow-up",
        "body": f"Hi {name},\n\nThanks for your note about {about}. I've looked into it and will send the details"
        f" by Thursday.\n\nBest regards,\n{fake.first_name()}",
    }


def answer(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """What an answer engine says to a question: the known answer, or a short hedged one, with sources."""
    q = _topic(args, ctx)
    text = (
        _WRITTEN.get(q.lower().rstrip("?"))
        or f'There is no single answer to "{q}"; the sources below agree on the basics and differ on the details.'
    )
    return {
        "answer": text,
        "sources": [f"https://en.wikipedia.org/wiki/{q.title().replace(' ', '_')}", "https://www.britannica.com/"],
        "model": ctx.rng.choice(("sonar", "sonar-pro")),
    }


# texts about the topics the writer asks for most often
_WRITTEN = table("results/content", "written", dict[str, str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/content", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/content", "sets", dict[str, frozenset[str]])
# words that name other words (a field's value by what was asked), by the function that uses them
_MAPS = table("results/content", "maps", dict[str, dict[str, str]])


def _simulate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """A forecast or prediction when asked for one, else a finished run with metrics of its field."""
    rng = ctx.rng
    if _has(r"forecast|predict", text):
        if _has(r"nationality|gender|age\b", text):
            return _prediction(text, rng)
        return _forecast(E.numbers(args), rng)
    out: dict[str, Any] = {
        "status": "completed",
        "steps": rng.choice((1000, 5000, 10000)),
        "runtime_s": round(rng.uniform(0.4, 90), 2),
    }
    out["metrics"] = _metrics(text, rng)
    return out


def _prediction(text: str, rng: random.Random) -> dict[str, Any]:
    """A guess of a name's nationality, gender or age, as the APIs that do this answer."""
    if "nationality" in text:
        guess: Any = rng.choice(_POOLS["prediction.PT"])
    else:
        guess = rng.choice(("female", "male")) if "gender" in text else rng.randint(24, 61)
    return {
        "prediction": guess,
        "probability": round(rng.uniform(0.45, 0.93), 2),
        "sample_size": rng.randint(300, 90000),
    }


def _forecast(nums: list[float], rng: random.Random) -> dict[str, Any]:
    """Four days rising from the level the call gave (or a typical one), with a 7% band."""
    base = max(nums) if nums and max(nums) > 10 else rng.choice((120, 950, 4800))
    points: list[dict[str, Any]] = [
        {"date": f"2026-06-{d:02d}", "value": round(base * (1 + 0.02 * i + rng.uniform(-0.03, 0.03)), 2)}
        for i, d in enumerate(range(2, 6))
    ]
    for p in points:
        p["lower"], p["upper"] = round(p["value"] * 0.93, 2), round(p["value"] * 1.07, 2)
    return {
        "forecast": points,
        "model": rng.choice(_POOLS["forecast.model"]),
        "mape_pct": round(rng.uniform(3, 12), 1),
    }


def _metrics(text: str, rng: random.Random) -> dict[str, Any]:
    """The measures a simulation of this field reports: physics, finance, epidemics, queues, or plain stats."""
    if _has(r"quantum|particle|condensate|energy|physics|wave|gross|atom|molecul|orbit|spin", text):
        return {
            "final_energy": round(rng.uniform(-50, 50), 4),
            "peak_density": round(rng.uniform(0.1, 9), 3),
            "converged": True,
        }
    if _has(r"portfolio|monte ?carlo|return|invest|price", text):
        return {
            "mean_return_pct": round(rng.uniform(-3, 14), 2),
            "var_95_pct": round(rng.uniform(-25, -3), 2),
            "probability_of_loss": round(rng.uniform(0.05, 0.4), 2),
        }
    if _has(r"epidem|infect|sir\b|disease|virus", text):
        return {
            "peak_day": rng.randint(20, 90),
            "peak_infected": rng.randint(1000, 90000),
            "attack_rate_pct": round(rng.uniform(10, 70), 1),
        }
    if _has(r"queue|traffic|network|load", text):
        return {
            "avg_wait_s": round(rng.uniform(0.3, 40), 2),
            "throughput_per_h": rng.randint(200, 40000),
            "utilization_pct": round(rng.uniform(40, 97), 1),
        }
    mean = round(rng.uniform(1, 500), 3)
    return {
        "mean": mean,
        "std_dev": round(mean * rng.uniform(0.05, 0.4), 3),
        "min": round(mean * 0.4, 3),
        "max": round(mean * 1.9, 3),
    }


def _think(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    num = next(
        (
            int(v)
            for k, v in args.items()
            if isinstance(v, (int, float))
            and not isinstance(v, bool)
            and set(words(k)) & _SETS["think.num"]
            and "total" not in words(k)
        ),
        None,
    )
    total = next(
        (
            int(v)
            for k, v in args.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and "total" in words(k)
        ),
        None,
    )
    num = num or rng.randint(1, 4)
    total = max(total or num + rng.randint(0, 3), num)
    needed = next((v for k, v in args.items() if isinstance(v, bool) and "next" in words(k)), num < total)
    if (
        any("thought" in k.lower() for k in args)
        and any(re.search(r"[a-z][A-Z]", k) for k in args)
        or "sequentialthinking" in words(tool.name)
    ):
        return {
            "thoughtNumber": num,
            "totalThoughts": total,
            "nextThoughtNeeded": needed,
            "branches": [],
            "thoughtHistoryLength": num,
        }
    if words(tool.name) == ["think"]:
        return {"status": "logged", "thought_count": num}
    steps = next((len(v) for k, v in args.items() if isinstance(v, list) and "step" in k.lower()), 0)
    camel = any(re.search(r"[a-z][A-Z]", k) for k in args)
    out = {"status": "success", "steps_recorded": steps or num, "has_conclusion": not needed}
    return {"status": "success", "stepsRecorded": steps or num, "hasConclusion": not needed} if camel else out


SHAPES: dict[str, Any] = {
    "generate": _generate,
    "simulate": _simulate,
    "think": _think,
}
