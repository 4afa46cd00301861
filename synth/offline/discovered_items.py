"""Discover, then act, on a store of items with ids (tasks, notes, reminders): list them, then act by an id a
result gave.

The steps of one conversation (synth.offline.discovered.Convo): the items are listed first; the person's item is
found there, or created from their words when it is missing (its id read from the create's result, or from a
list after it); the act (read, change, delete) then takes that id, and a change is read back.
"""

from __future__ import annotations

from typing import Any

from synth.offline.discovered import Convo, new_id, parsed, records, said
from synth.records import ToolSpec
from synth.scenarios.discover import Roles, id_param
from synth.simulator.toolnames import noun

NAMES = (
    "Renew passport",
    "Call the plumber",
    "Book a dentist appointment",
    "Pay the electricity bill",
    "Return the library books",
    "Buy a birthday present for Ana",
    "Clean the gutters",
    "Send the invoice to Lars",
    "Water the balcony plants",
    "Cancel the gym trial",
    "Pick up the dry cleaning",
    "Email the landlord about the boiler",
    "Back up the laptop",
    "Order new contact lenses",
    "Write the team retro notes",
    "Fix the bike's back light",
)
LOOK = (
    "Look through my {noun}s for '{name}'; add it if it isn't there.",
    "Do I have a {noun} called '{name}'? If not, add it.",
    "Check my {noun}s for '{name}' and add it if it's missing.",
)
ADD = ("Add '{name}' to my {noun}s.", "Put '{name}' on my {noun} list.", "New {noun}: '{name}'.")
_NAME_KEYS = ("name", "title", "text", "content", "summary", "task", "description")
_DONE = ("completed", "done", "closed", "finished", "complete")


def options(schema: Any) -> list[Any]:
    """The enum of a parameter, also inside an Optional's anyOf."""
    if not isinstance(schema, dict):
        return []
    if "enum" in schema:
        return list(schema["enum"])
    return next((list(s["enum"]) for s in schema.get("anyOf") or [] if isinstance(s, dict) and "enum" in s), [])


def kind(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return None
    return schema.get("type") or next(
        (s.get("type") for s in schema.get("anyOf") or [] if isinstance(s, dict) and s.get("type") != "null"), None
    )


class Items:
    """The item steps of one conversation on ``roles``' server, acting with ``primary`` (role ``act``)."""

    def __init__(self, convo: Convo, roles: Roles, primary: ToolSpec, act: str):
        self.convo, self.act = convo, act
        own = lambda *want: primary if act in want else roles.first(*want)  # noqa: E731
        self.lister, self.creator = own("list_items"), own("create_item")
        self.getter, self.changer, self.remover = own("get_item"), own("update_item"), own("delete_item")
        self.noun = noun(self.creator or primary)
        self.name = convo.rng.choice(NAMES)
        self.made: set[str] = set()  # the names this conversation added

    def run(self) -> None:
        c = self.convo
        found = None
        if self.act == "delete_item":  # the person adds two and takes one off again: the list shows the other
            self.remove_one()
            return
        if self.lister is not None and self.act in ("get_item", "update_item", "list_items"):
            c.asked.append(c.rng.choice(LOOK).format(noun=self.noun, name=self.name))
            found = self.find(self.listed())
            if c.failed:
                return
        elif self.act == "create_item" or self.lister is None:
            c.asked.append(c.rng.choice(ADD).format(noun=self.noun, name=self.name))
        if found is None:
            found = self.create(self.name)
        if not c.failed and found is not None:
            self.acting(found)

    def remove_one(self) -> None:
        c = self.convo
        other = c.rng.choice([n for n in NAMES if n != self.name])
        c.asked.append(
            f"Add '{self.name}' and '{other}' to my {self.noun}s, then take '{self.name}' off again: it's done."
        )
        made = self.create(self.name)
        if c.failed or made is None or self.create(other) is None or c.failed:
            return
        self.remove(made)

    def listed(self) -> list[dict[str, Any]]:
        c = self.convo
        assert self.lister is not None
        items = records(parsed(c.call(self.lister, {})))
        if not c.failed:
            names = [f"'{self.label(i)}' (id {i.get('id')})" for i in items[:6]]
            empty = (
                f"You had no {self.noun}s yet.",
                f"Your {self.noun} list had nothing on it.",
                f"There's no {self.noun} yet.",
            )
            c.told.append(f"Your {self.noun}s: {said(names)}." if names else c.rng.choice(empty))
        return items

    def label(self, item: dict[str, Any]) -> str:
        return str(next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), item.get("id")))

    def find(self, items: list[dict[str, Any]], name: str | None = None) -> Any:
        """The id of the person's item (``name``, default the conversation's) in a listing, or None."""
        name = name or self.name
        return next((i.get("id") for i in items if self.label(i) == name and i.get("id") is not None), None)

    def create(self, name: str) -> Any:
        """The person's item, created from their words; its id from the result, or from a list after it."""
        c = self.convo
        if self.creator is None:
            c.told.append(f"There is no '{self.name}', and I have no tool to add it.")
            return None
        args: dict[str, Any] = {}
        for p in self.creator.required:
            args[p] = [name] if kind(self.creator.properties.get(p)) == "array" else name
        result = c.call(self.creator, args)
        if c.failed:
            return None
        by_id = self.getter or self.changer or self.remover
        key = id_param(by_id) if by_id is not None else None
        made = new_id(result, kind(by_id.properties.get(key)) if by_id is not None and key else None)
        self.made.add(name)
        if made is None:
            c.told.append(f"I added '{name}'.")
        else:
            forms = ("I added '{n}' (id {i}).", "'{n}' is on your list now, as {k} {i}.", "I put '{n}' in as {k} {i}.")
            c.told.append(c.rng.choice(forms).format(n=name, i=made, k=self.noun))
        if made is None and self.lister is not None:
            made = self.find(self.listed(), name)
        return made

    def acting(self, item: Any) -> None:
        c, act = self.convo, self.act
        if act == "list_items" or (act == "create_item" and self.getter is None):
            c.asked.append(f"Then show me my {self.noun}s.")
            if self.lister is not None and c.planned[-1][0] != self.lister.name:
                self.listed()
            return
        if act == "create_item" or act == "get_item":
            c.asked.append("Then show me its details.")
            self.show(item)
        elif act == "update_item":
            self.change(item)
        elif act == "delete_item":
            self.remove(item)

    def call_by_id(self, tool: ToolSpec, item: Any, extra: dict[str, Any] | None = None) -> Any:
        return self.convo.call(tool, {id_param(tool) or "id": item, **(extra or {})})

    def show(self, item: Any) -> None:
        c = self.convo
        if self.getter is None:
            return
        value = parsed(self.call_by_id(self.getter, item))
        if c.failed:
            return
        c.told.append(self.details(value, item))

    def details(self, value: Any, item: Any) -> str:
        """What a read of one item says, in words: its name and id, and the state a person asks about."""
        if not isinstance(value, dict):
            return f"It reads: {str(value)[:200]}"
        label = self.label(value)  # said already when this conversation added it
        out = [f"It's {self.noun} {item}" if label in self.made else f"'{label}' is {self.noun} {item}"]
        for key, form in (("status", "{}"), ("state", "{}"), ("priority", "priority {}"), ("due_date", "due {}")):
            if value.get(key) not in (None, "", "none"):
                out.append(form.format(value[key]))
        if isinstance(value.get("done"), bool):
            out.append("done" if value["done"] else "not done yet")
        if isinstance(value.get("tags"), list) and value["tags"]:
            out.append("tagged " + said([str(t) for t in value["tags"]]))
        return ", ".join(out) + "."

    def change(self, item: Any) -> None:
        c = self.convo
        assert self.changer is not None
        update = self.update()
        if update is None:
            return
        param, value, words = update
        c.asked.append(f"Then {words}.")
        self.call_by_id(self.changer, item, {param: value})
        if c.failed:
            return
        c.told.append(f"I {words.replace('set its', 'set its').replace('mark it', 'marked it')}.")
        if self.getter is not None:
            self.show(item)

    def update(self) -> tuple[str, Any, str] | None:
        """One change a person asks of an item, by what the change tool takes: a done-like status, a done flag,
        a priority, or a new name."""
        assert self.changer is not None
        props = self.changer.properties
        for p, schema in props.items():
            done = [v for v in options(schema) if str(v).lower() in _DONE]
            if done:
                return p, done[0], f"mark it {done[0]}"
        for p, schema in props.items():
            if kind(schema) == "boolean" and p.lower() in _DONE:
                return p, True, "mark it done"
        for p, schema in props.items():
            if "priority" in p.lower() and (choices := [v for v in options(schema) if v not in (None, "none")]):
                value = self.convo.rng.choice(choices)
                return p, value, f"set its priority to {value}"
        return None

    def remove(self, item: Any) -> None:
        c = self.convo
        assert self.remover is not None
        self.call_by_id(self.remover, item)
        if c.failed:
            return
        c.told.append(f"I deleted '{self.name}'.")
        if self.lister is not None:
            self.listed()


def items(convo: Convo, roles: Roles, primary: ToolSpec, act: str) -> None:
    """The item steps of one conversation (see the module's docstring)."""
    Items(convo, roles, primary, act).run()
