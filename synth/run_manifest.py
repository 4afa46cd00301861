"""A finished run's manifest.json, built from what the orchestrator's loop counted (``Tally``).

The keys and their order are what every reader of a run (the card, review's recount, ``synth
merge``) relies on, so they are built in one place; synth.pipeline only hands over the counts.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

import synth
from synth import rundir, templates
from synth.config import Settings
from synth.export import outputs
from synth.export.card.counts import counts_section, coverage_section
from synth.export.chat import ToolNames
from synth.llm.spend import Spend
from synth.packs.load import Packs
from synth.records import Funnel, Registry
from synth.rundir.output import Closed
from synth.stages import reader
from synth.stages.dedup import Dedup

if TYPE_CHECKING:  # the live pool loads the MCP SDK: imported only by runs that go live
    from synth.live.pool import Pool

SPLITS = ("train", "valid", "test")
# Bumped whenever the same seed and registry give different offline output, so a change of
# data is always named: 2 = server packs (requests from goals, several requests per conversation,
# parallel calls, answers from results), fallback answers in varied forms, no stock persona sentence;
# 3 = near-duplicate requests found across all servers with MinHash LSH (was: pairwise within a server);
# 4 = the pack author keeps its promises ("I'll tell you which": asked, not taken from an earlier request),
# reuses a value only where the pack's results fit it, never moves a thing onto itself (EUR into EUR), a
# pack result copies an earlier item's facts only when an argument names that item (id, slug, title),
# objects are said in words or pasted as JSON; the plain fallback for tools without a pack (issue 10
# point 4): values from docstring Args and description examples first, optional values only now and then
# (never a default), plain results (no catch-all record, formulas computed), intents without how-clauses;
# one grounding definition (synth.facts.Evidence) for the gates and the label reasons; offline values keep
# to the pattern, minItems, bounds and integer type of their schema (found by tests/test_properties.py);
# past the eighth round over the tools, the planner passes over first-request kinds whose distinct
# texts a pack has used up (synth.scenarios.episodes.Capacity), and offline runs go on past 2n + 20
# scenarios while still productive (synth.pipeline.WINDOW).
# 5 = the reader gates (synth.stages.reader: dropped requests, conflicting ids, derived dates, values asked
# that the user never had, unpointed reuse, repeats, success claimed after an error) reject or queue a
# conversation; the pack author answers every step of a request (a chain's first one too), never announces a
# value it leaves out, points at a value it reuses from an earlier turn, asks no goal twice, never asks for
# a value the model writes (call_benefit), and opens and joins requests with varied or no stock phrases.
# 6 = splits by each conversation's place in the run (issue 31), not by a hash of its id.
# 7 = negatives a judge must read for (issue 29): a wrong value found nowhere in the conversation only for a
# quarter of calls (synth.stages.inject.P_ABSENT), unexpected extras borrowed from the offered sibling tools;
# T-Eval review responses whose wording is shared by the outcomes; eval items name the turn's parallel calls.
# 8 = negatives read for, further (issue 29): wrong values of the context kinds always found in the conversation,
# the other name the user gave a thing ("PepsiCo (PEP)") and paths as context values, no random noun for a
# one-word value, P_ABSENT 0.2; extras borrowed only where every word fits the tool, from the server's tools and
# the registry's (synth.stages.extras), and caps coined from the tool's plural; T-Eval review: one negative in
# five gives an input_error item (was four), and a found-nothing error is an unable_to_accomplish form too.
# 9 = the reader's dropped_request also finds an answer naming fewer items than the request asked and the call
# passed ("3 stories", max_results 3, two named) unless it says why or a later call picked one of them;
# unexpected_extra drawn with weight 2.0 (was 1.5).
# 10 = worlds keep one state (issue 42): a write's result echoes only what the call sent (an unsent parameter is
# its default, nothing, or the pack's assign; a new id the service's own), a list shows this conversation's
# creates first or follows the order it claims (order/sort), a filtered list the call does not limit shows every
# match (up to 20), an open kind's made-up search matches that miss the query are titled from it, a field a
# template adds to an entity is said one way, refs and one-object kinds; the card shows the world figures.
# 11 = answers that answer (issue 44): a pack goal's items (periods, the number wanted, entities, a verdict) are
# said each from the result ({each:...} names every item of a list); a read already made in the conversation,
# with no write since, serves a later request instead of being called again; one customer per conversation
# (an owner parameter the person gave holds, a result's owner follows it); a value of a case is never changed
# alone; the reader counts a one-digit result and an honest "nothing found" as spoken of.
# 12 = worlds (issue 42): a list whose tool has no page size shows every entity (up to 20: list-containers), and
# since/until keep a window (gcal's list-events by timeMin/timeMax, in start order).
# 13 = words a person uses (issue 44): system prompts drawn per scenario from prompts/system_prompts.json (or
# none); follow-ups ask what a person asks ("When was it created?") and are answered in words; dates and unix
# times in answers said as a person writes them; no pointer sentences (one entity per slot; a value the person
# gave earlier is asked for when a request leaves it out; a session's token reused unsaid); declines offer in
# plain words from tools' names.
# 14 = an open kind's made-up match whose slug id shares no word with its title gets its title's slug (the
# shipped registry's output is unchanged: its made-up slugs already read as their titles).
# 15 = one answer fills two asks of a message only when they are one kind of thing (issue 44); the LLM path's
# conversations open with the scenario's system prompt too; a follow-up's sentence value is quoted.
# 16 = a decline offers no count for a thing ("update a many" from update-many) and says what a batch tool does
# ("create objects" for batch_create_objects) (issue 44).
# 17 = a time said after "at" or "from" reads "at 14:00 on 4 May", not "at 4 May at 14:00" (issue 44).
# 18 = answers that answer, read again (issue 44): a lookup's result follows what it looked up ({table:...}: the
# store's email and name+ZIP lookups), a pack result's owner follows the conversation's customer only where its
# template draws one; more goals name every item asked (days, events, trials, papers, nodes, tenants, groups,
# variants) and give verdicts (rain, business hours, in sync, buybacks, ratings changed); when joins tests with
# 'and'; an each form's amounts round by the list's key.
# 19 = items that mix sentences and phrases are each said as a sentence (issue 44: 'billion., Its'); Semantic
# Scholar's filtered search names every paper asked for.
# 20 = issue 42, the shipped packs on worlds: Hacker News (comments, users), Yuque (knowledge bases), the store (its
# customers' own orders), the food tracker's users; derived fields; no answer claims an order its list lacks.
# 21 = a failure planned for a tool with a world never says "not found" for what an earlier result showed (then
# the server's own outage, or none); an id the world lacks gets the tool's not-found failure (issue 42).
# 22 = a negative is never a call its turn still needs: the parallel sibling or a later call of the same request,
# nor an incorrect_tool naming that call's tool; T-Eval review labels from what a response says: B (internal_error)
# only for a 5xx, a timeout or a crash, a gold call's own 4xx is C, not-founds name a value the call sent as
# services do ("Product '5810' not found"), never an empty one nor a message; a read-only task checks whole values
# (at most 80 characters, no sentence) in the forms people write them; the fallback's SQL fits its tool (issue 38).
# 23 = what a result template adds to a world entity agrees with it: a made field holding something shaped like
# the entity's id holds its id (a pdf_url), a later stamp is never before the first, a new entity's stamps are
# one time (issue 42, on packs a model wrote).
# 24 = shipped worlds for more packs (issue 42): Weaviate's schema, tenants, objects, classifications and backups.
# 25 = issue 42, worlds for more shipped packs: Hong Kong buses (routes with their stops both ways, stops with their
# ids, a route's two ends the same in every tool); a search reads a list field item by item and two-letter words.
# 26 = an each list whose items are sentences says them one after another (was '... for dialogue. and "CLIP"');
# pack check finds a read/create/update whose record sits under a key the world entry does not name as its path.
# 27 = items said as sentences open with a capital after the first; a made-up title opening with the request opens
# with a capital; an update's stamp is never before the one the entity had; a decline offers no tool whose name
# reads 'from category' ('look up a from category'), and documentation is a mass noun ('look up documentation').
# 28 = issue 42: the crypto data server (scry) gets a world: ten coins, 26 DefiLlama protocols, 11 perpetuals
# exchanges and three yield pools behind every price, TVL, search, ranking and APY tool; a start/end pair of amounts
# (start_tvl, end_tvl) may fall, so a TVL that fell is no longer rejected as an end before its start.
# 29 = a default offline run writes no data for servers without a pack; --allow-fallback puts the fallback's
# conversations in, marked in T-Eval's meta, eval's decision items and preference pairs too (issue 39).
# 30 = shipped worlds (issue 42) for Bitbucket, Frankfurter, IPMA, Exa, Google News, DuckDuckGo, Bitrefill, GitHub
# trending and Box3 storage; Postgres's shared figures written once; a write of JSON text to a structured field
# keeps it structured.
# 31 = shipped worlds (issue 42) for Geo News (headlines per country, search stories) and Exa's Wikipedia and
# GitHub searches; Weaviate's batch cross-references echo the references sent.
# 32 = issue 42: Yahoo Finance gets a world (each stock's price now and its last four sessions agree).
# 33 = issue 42: Yahoo Finance gets a world (each stock's price now and its last four sessions agree); PubMed's
# thirty papers each have a title of their own and searches make more in seven forms (no near-duplicate titles).
# 34 = a value the person gave is asked for again when a later request leaves it out, never reused unsaid; the
# reader reads "Paste the SQL." as an ask (issue 44).
# 35 = two writes in one message, or a write after another request, take no entity id from each other: "delete one
# of my notes ... one of my notes is out of date" asks for two notes (it deleted #13, then updated #13: not found).
# 36 = issue 42: the Met gets a world (a search's ids are the prints that match, an object read is that print).
# 37 = a live server without a pack discovers, then acts: it lists first and takes tables, columns and ids from
# the real results or the person's words, SQL by the tool's purpose, a create read back (issue 39).
# 38 = a world write may take a list of entities (each): Weaviate's tenants created, updated and deleted in
# batches are seen by the next tenant list and check (issue 42).
# 39 = issue 42: the Met gets a world (a search's ids are the prints that match, an object read is that print);
# scry's legacy protocol list no longer shows a deprecation notice the call asked to skip.
# 40 = discover-then-act wording: 'an expenses table', no 'put X in it' after a long row, a task read back
# right after it was added is 'it' (issue 39).
# 41 = the reader counts a number asked with no noun after it ("Show me 5.", "3 of them") as items asked for: an
# answer naming fewer while the result holds them is dropped_request (issue 44).
# 42 = packs answer what was asked (issue 44): Yuque, Weaviate, ClinicalTrials, Apple and MongoDB goals carry items;
# statuses and phases in words, every tenant and reference named, sample_supplies listed, no all-day JSON event.
# 43 = a text message is dictated like an e-mail ('to +14155550142, saying: "..."', not pasted JSON); ClinicalTrials'
# saved-data counts, CSV rows and Weaviate's batched GraphQL answers name every item asked (issue 44).
# 44 = a tenant's new state is said in words ('"globex", to ACTIVE and "initech", to INACTIVE'), not pasted JSON.
# 45 = answers joined in one message end as sentences ("...saved as PMID_1.pdf Here are the top hits" ran on;
# issue 44).
# 46 = worlds for Votars (ten recordings, each transcript its own meeting) and Wikipedia's facts and passages (each
# city's own, as many as asked; issue 42).
# 47 = Yahoo Finance's close on a date and closes over a range read each session's close from the world (issue 42).
# 48 = one token a message and a conversation (a later part's token holds for the parts before it; a request
# that repeats a call keeps the session's token); states and phases in words ('phase 2', not 'PHASE2'); IPMA,
# RubyGems and scry answer what their goals ask (issue 44).
# 49 = the store's products are a world kind (the shop's own variants: options, prices, what is in stock), and
# a product's answer names every variant with its options in words ("color grey, resolution 4K"), not JSON.
# 50 = worlds for ArcGIS (DC addresses at their coordinates, the address at each Toronto point, Portland routes,
# summit heights) and Airbnb (five listings per city: searches filter by price, guests and pets; details agree).
# 51 = scry's fee histories, DEX volumes and perp volumes come from its world (issue 42): fees and revenue per
# protocol (every slug the TVL tools list; a parent's are its versions' added up), per-chain volumes that add up.
# 52 = an amount that rounds to itself is said to hold ("TVL held at about $4.56 billion", not "went from $4.56
# billion to $4.56 billion"; issue 44).
# 53 = the executor's plan names each tool as it is offered ("Votars_fetch_recent_transcripts"); the reader counts
# "No active weather alerts found" and two-character Korean or Japanese names ("서울") as said (issue 41).
# 54 = worlds for gitingest (twelve repositories: size, README, tree and pyproject.toml each its own) and the
# GitHub contents server (ten repositories' roots, .github folders and config files; issue 42).
# 55 = worlds for Visit Korea (Jeju's beaches by content ID), DuckDuckGo (nickclyde: pages by URL, each guide its own
# text) and mcp-fetch (three eclipse pages, each its own markdown, none truncated).
# 56 = a part of a message about another entity lends its values to no other part (a repository in another
# workspace is asked for, not taken from the first part); a state the call sent said in words; unix times in
# milliseconds said as dates; "What are the authors?" (a plural field); Google Calendar, DefiLlama, weather,
# geo-news, Bitbucket and Weaviate answers say what their goals ask (issue 44).
# 57 = Postgres: an EXPLAIN of orders scans the monitor's 12,874,190 rows; the customer a data fix changes is not one
# the customer queries return (issue 42).
# 58 = ArcGIS's nearby places come from the world: three of each category near each San Francisco point,
# nearest first, within the radius asked (were made-up "Union Square coffee" names on streets across town).
# 59 = a verdict's test can ask whether a list or a text holds a value ('r.directions has MONG KOK': "Does the 2F go
# anywhere near Mong Kok?" gets yes or no); Bitrefill ('Is the problem on their side?' -> 'Probably not: ... up'),
# Jinko (breakfast and free cancellation answered where asked, full details where asked), HK bus and the Met
# (every department) answer what their goals ask (issue 44).
# 60 = a world for the flight search (ten routes' three nonstops each, cheapest first; issue 42).
# 61 = an initial in a name ends no sentence ("Diederik P. Kingma"): an answer lost half a sentence as a repeat.
# 62 = Wikipedia's History section is each city's own, read from its article (issue 42).
# 63 = a list's items of one kind said alone ('each:r.payment_methods[source=gift_card]|...'): the store answers
# "How much is left on my gift card?" with the card's balance, or says there is none (was a dump of the account's
# fields); MongoDB's deletes say how many documents in words; pressure asked back in inHg (issue 44).
# 64 = a bare amount said rounded ('$8.2 billion', was '$8204119556'); DefiLlama names the L2 it found and the
# five biggest as five; scry's price history says it holds only the two ends when the closes are asked (issue 44).
# 65 = HK bus names every stop of a route both ways (was three 'among others', with stop ids; issue 44).
# 66 = answers that name what was asked: Airbnb's "check if it has a kitchen and self check-in" gets both verdicts,
# scry's "start, end and anything in between" every point, PubMed's "Show me N" every paper (issue 44).
GENERATOR_VERSION = 66


@dataclass
class Tally:
    """What the stages before the outputs counted: the funnel and the reader gates (the accepted conversations
    are counted by the outputs' writers, synth.export.outputs)."""

    funnel: Funnel = field(default_factory=Funnel)
    read: int = 0  # conversations the reader gates checked (synth.stages.reader)
    reader: dict[str, int] = field(default_factory=dict)  # gate -> conversations it found something in


@dataclass
class Outcome:
    """How the loop ended: the scenarios it took, the conversations accepted, what they cost."""

    accepted: int
    attempts: int
    spend: Spend


@dataclass
class Parts:
    """The run's parts that report on themselves in the manifest: its packs and live pool, what each output's
    writer closed with (synth.export.outputs), every run file's facts, and dedup."""

    packs: Packs
    pool: Pool | None
    closed: dict[str, Closed]
    files: dict[str, dict[str, Any]]
    dedup: Dedup

    def report(self, output: str) -> dict[str, Any]:
        """What ``output``'s writer counted ({} when the run did not write it)."""
        closed = self.closed.get(output)
        return closed.report if closed is not None else {}


def build(
    settings: Settings, registry: Registry, names: ToolNames, tally: Tally, outcome: Outcome, parts: Parts
) -> dict[str, Any]:
    """The manifest of a finished run, its keys in the order every reader expects."""
    manifest = _base(settings, registry, names, tally, outcome, parts)
    counted = parts.report("counts")
    manifest["packs"] = parts.packs.summary(registry)
    manifest["execute"] = {
        "mode": settings.execute,
        "results": counted["results"],
        "errors": counted["errors"],
        "unreachable": {name: str(error) for name, error in sorted((parts.pool.dead if parts.pool else {}).items())},
    }
    manifest["teval"] = parts.report("teval")
    manifest["tasks"] = parts.report("tasks")
    manifest["dedup"] = parts.dedup.report()
    manifest["reader_gates"] = reader.report(tally.read, tally.reader)
    return manifest


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def _base(
    settings: Settings, registry: Registry, names: ToolNames, tally: Tally, outcome: Outcome, parts: Parts
) -> dict[str, Any]:
    accepted, spend = outcome.accepted, outcome.spend
    counted = parts.report("counts")
    return {
        "status": rundir.COMPLETE,
        "synth_version": synth.__version__,
        "generator_version": GENERATOR_VERSION,
        "backend": settings.backend,
        "model": None if settings.backend == "offline" else settings.models(),
        "tokens": spend.by,
        "cost_usd": round(spend.usd(), 6),
        "stopped_by_budget": settings.budget_usd is not None
        and accepted < settings.n
        and spend.usd() >= settings.budget_usd,
        "config": _config(settings),
        "versions": {
            "python": ".".join(platform.python_version_tuple()[:2]),
            **{p: _version(p) for p in ("pydantic", "jsonschema", "faker", "jinja2")},
        },
        "prompts": {name: templates.template_hash(name) for name in templates.names()},
        "registry": _registry(registry),
        "identity": settings.identity(),  # what --resume and a new run into this folder are checked against
        "tool_names": names.renamed(),
        "funnel": {
            "scenarios": outcome.attempts,
            "accepted": accepted,
            "entered": tally.funnel.entered,
            "left": tally.funnel.left,
            "dropped": tally.funnel.reasons,
        },
        "counts": counts_section(counted["counts"], parts.report("eval").get("rows", 0)),
        "coverage": coverage_section([t.key for t in registry.tools], counted["used_tools"]),
        "files": parts.files,
    }


def _config(settings: Settings) -> dict[str, Any]:
    return {
        "servers": settings.servers.as_posix(),
        "n": settings.n,
        "seed": settings.seed,
        "split": dict(zip(SPLITS, settings.split)),
        "max_tools": settings.max_tools,
        "execute": settings.execute,
        "allow_fallback": settings.allow_fallback,
        "outputs": list(outputs.chosen(settings.outputs)),
        "storage": settings.storage,
        "review": {"audit": settings.audit, "below": settings.review_below, "rules": list(settings.review_rules)},
    }


def _registry(registry: Registry) -> dict[str, Any]:
    """The registry the run read: its counts, problems, and every tool's schema hash (the snapshot)."""
    errors = [p for p in registry.problems if p.severity == "error"]
    return {
        "servers": len(registry.servers),
        "usable_tools": len(registry.tools),
        "skipped_servers": registry.skipped_servers,
        "skipped_tools": registry.skipped_tools,
        "errors": [p.line() for p in errors],
        "warnings": sum(1 for p in registry.problems if p.severity == "warning"),
        "snapshot": [
            {
                "id": s.id,
                "source": s.source,
                "tools": [{"name": t.name, "schema_hash": t.schema_hash} for t in s.tools],
            }
            for s in registry.servers
        ],
    }
