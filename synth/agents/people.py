"""Who asks: the person behind a scenario's requests, as the query generator, the refiner and the user
simulator are told about them.

A person is a role (who they are), a situation (why they need this now) and a way of speaking (how they
write), so a model has one reading of them; an opener such as "Quick one" is not a person. They are
drawn from (seed, scenario id) and the server's topic, so a rerun meets the same person; the offline
author never reads them, so its data does not change.
"""

from __future__ import annotations

from synth.records import Record, Scenario, ServerSpec
from synth.scenarios.planner import rng_for, topic

# who they are, by the server's topic (synth.scenarios.planner.topic)
PEOPLE = {
    "weather": ("a café owner with an outdoor terrace", "a hiking guide", "a parent planning a weekend away"),
    "news": ("a communications officer at a city council", "a journalism student", "a startup founder"),
    "crypto": ("a software developer who holds some crypto on the side", "a finance student"),
    "finance": ("a financial analyst at a mid-size asset manager", "a retired teacher managing her own savings"),
    "code": ("a backend engineer on a small team", "a maintainer of an open-source library", "a data scientist"),
    "paper": ("a PhD student in biology", "a research engineer", "a science journalist"),
    "travel": ("a project manager who travels for work", "a parent planning a family holiday"),
    "food": ("a home cook", "a restaurant manager", "a nutrition student"),
    "health": ("a nurse", "a physiotherapy patient", "a clinical researcher"),
    "shop": ("a small-business owner", "a customer", "an operations manager at an online store"),
    "job": ("a recruiter", "a graduate looking for a first job", "an engineering manager who is hiring"),
    "music": ("a DJ", "a music teacher", "someone making a playlist for a party"),
    "movie": ("a film club organiser", "a film student", "someone choosing a film for the weekend"),
    "game": ("a game shop owner", "a board-game club organiser", "a parent buying a present"),
    "data": ("a data analyst", "an operations lead who reports on the numbers", "a database administrator"),
    "maps": ("a delivery dispatcher", "an event planner", "a tourist in a city they do not know"),
    "general": ("an office manager", "a freelance consultant", "a software developer", "a student"),
}
# why they need it now, when the scenario does not say
SITUATIONS = (
    "has a meeting in an hour and needs this for it",
    "is working through a to-do list on a quiet afternoon",
    "was asked by a colleague to sort this out today",
    "is checking something before making a decision",
    "is preparing a short written update for others",
)
VOICES = (
    "writes short, lowercase messages and skips greetings",
    "is polite and a little formal, in full sentences",
    "is in a hurry: terse, to the point, no small talk",
    "is chatty and gives a bit of background first",
    "is not technical and describes what they want in everyday words",
    "is precise and uses the field's own terms",
)


class Person(Record):
    """One person: a role, a situation and a way of speaking."""

    role: str
    situation: str
    speaks: str

    def describe(self) -> str:
        return f"{self.role}, who {self.situation}; {self.speaks}."


def person(scenario: Scenario, server: ServerSpec, seed: int) -> Person:
    """The person behind ``scenario``: its own situation (a scenario's persona: "I'm planning a trip") when it
    has one, else one drawn from the same (seed, scenario) stream as the role and the voice."""
    rng = rng_for(seed, "person", scenario.id)
    role = rng.choice(PEOPLE.get(topic(server), PEOPLE["general"]))
    situation = rng.choice(SITUATIONS)
    if scenario.persona.lower().startswith("i'm "):  # "I'm planning a weekend hike" -> "is planning ..."
        situation = "is " + scenario.persona[4:].rstrip(".")
    return Person(role=role, situation=situation, speaks=rng.choice(VOICES))
