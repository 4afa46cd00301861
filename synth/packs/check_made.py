"""The pack checker's rules for an open kind's made-up matches ([world-search], [world-made]).

An open kind (arXiv's papers, a data portal's datasets) has no end, so a search or a list beyond the seeded
entities makes entities up from the tool's item template. Whatever that template says is shown as what was
found: a Faker phrase there is filler shown as a match ("Profound transitional policy" for "earthquake"), and
one stem with the request in it ("Revisiting dark energy", "Scaling dark energy", "We study dark energy and
report results on standard benchmarks.") reads as one formula in every list. Both go back to a model writing
the pack; packs written before hear of a formula as a warning.
"""

from __future__ import annotations

import random
import re
from typing import Any

from synth.packs.model import Pack, Touch
from synth.packs.template import SLOT, Expander, Missing
from synth.packs.world import item_templates

FILLER = re.compile(r"\{fake:(?:catch_phrase|sentence|word|bs|text|paragraph)\}")
_LABELS = re.compile(r"(?i)(?:\w+_)?(?:title|name|headline)")
_TEXTS = re.compile(r"(?i)(?:\w+_)?(?:notes|description|summary|abstract|snippet|text|body|content)")
MARK = "Qqq"  # stands for what the call sent, so a form's shape can be read around it
DRAWS = 24  # expansions of a field read to tell its forms
MIN_FORMS = 3  # distinct texts a made-up title or summary takes at least
MIN_SHAPES = 2  # and distinct shapes (where the request sits, how many other words)


def check_made(tool: str, touch: Touch, results: list[Any], pack: Pack, problem) -> None:
    """An open kind's made-up matches come from the item template: neither filler nor one formula."""
    assert pack.world is not None
    entity = pack.world.entities.get(touch.entity)
    if entity is None or not entity.open or touch.op not in ("search", "list"):
        return
    for i, template in enumerate(results):
        for item in map(_forms, item_templates(template, touch.path)):
            fields = {
                k: v
                for k, v in (item.items() if isinstance(item, dict) else [])
                if k != entity.id and (_LABELS.fullmatch(k) or _TEXTS.fullmatch(k)) and _texts(v)
            }
            filler = sorted(k for k, v in fields.items() if any(FILLER.search(t) for t in _texts(v)))
            formula = sorted(k for k, v in fields.items() if k not in filler and _one_formula(v))
            at = f"/tools/{tool}/results/{i}"
            if filler:
                problem(tool, at, _what(filler, [], fields), _fix(touch), rule="world-search")
                return
            if formula:  # a warning for packs written before; pack build sends it back (rules.BUILT)
                problem(tool, at, _what([], formula, fields), _fix(touch), severity="warning", rule="world-made")
                return


def _forms(item: Any) -> Any:
    """An item template whose forms are whole items (``{"$pick": [{title, summary}, ...]}``, a title and its
    abstract drawn together) read as one item whose each field takes the forms' values."""
    forms = item.get("$pick") if isinstance(item, dict) else None
    if not isinstance(forms, list) or not all(isinstance(f, dict) for f in forms):
        return item
    keys = dict.fromkeys(k for f in forms for k in f)
    return {k: {"$pick": [f[k] for f in forms if k in f]} for k in keys}


def _texts(value: Any) -> list[str]:
    """The text forms of a template field: a string, or each string of a ``{"$pick": [...]}``."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) and isinstance(value.get("$pick"), list):
        return [v for v in value["$pick"] if isinstance(v, str)]
    return []


def _one_formula(value: Any) -> bool:
    """Whether a field's made-up texts are one formula: under ``MIN_FORMS`` texts, or one shape for all of them
    (the request at one place among one count of other words: 'Revisiting {query}', 'Scaling {query}')."""
    names = {m.group(1) for t in _texts(value) for m in SLOT.finditer(t) if ":" not in m.group(1)}
    args = {name: MARK for name in names}
    seen: set[str] = set()
    for k in range(DRAWS):
        try:
            made = Expander(random.Random(k), args).value(value)
        except (Missing, ValueError):
            return False  # a slot the sample cannot fill: the slot rules report it
        seen.add(str(made))
    shapes = {_shape(text) for text in seen}
    return len(seen) < MIN_FORMS or len(shapes) < MIN_SHAPES


def _shape(text: str) -> tuple[str, int]:
    words = text.split()
    where = "none" if MARK not in text else "start" if text.startswith(MARK) else "end" if MARK in words[-1] else "mid"
    return where, len([w for w in words if MARK not in w])


def _what(filler: list[str], formula: list[str], fields: dict[str, Any]) -> str:
    if filler:
        verb = "is" if len(filler) == 1 else "are"
        return f"made-up matches would show filler as what was found: {', '.join(filler)} {verb} a Faker phrase"
    shown = "; ".join(f"{k}: {_texts(fields[k])[0]!r}" for k in formula[:2])
    verb = "reads" if len(formula) == 1 else "read"
    return f"made-up matches would all look alike: {', '.join(formula)} {verb} as one formula in every list ({shown})"


def _fix(touch: Touch) -> str:
    words = " ".join(f"{{{m}}}" for m in touch.match[:2]) or "{query}"
    about = (
        f"write them from the request, in the catalogue's own style: a title that holds {words} the way real "
        "items are titled here (a paper's, a dataset's)"
        if touch.match
        else "write them as the items the call asks for would be (the papers of that author, the newest of that "
        "category), in the subject the catalogue covers"
    )
    forms = (
        f'"{words}: a survey", "Towards robust {words} under distribution shift", "What limits {words}?", ...'
        if any(_QUERY.fullmatch(m) for m in touch.match)
        else '"...", "...", ...'
    )
    return (
        f'{about}, in 4 to 8 forms that read differently ({{"$pick": [{forms}]}}: the request at different places, '
        "other words around it, as real titles vary), not one stem with a changing first word; a summary likewise, "
        "saying what each item is about; a Faker phrase never stands for a match"
    )


_QUERY = re.compile(r"(?i)q|query|search|keywords?|terms?|topic|text")
