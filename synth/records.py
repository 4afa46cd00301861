"""Every record that crosses a stage boundary.

Records are frozen pydantic models with ``extra="forbid"``. Ids are content hashes
(canonical JSON, then sha256), so the same inputs always give the same ids, whatever
the order or concurrency they were made in.

Flow::

    ServerSpec/ToolSpec -> Scenario -> Query -> Plan -> Trajectory -> Review
                                                          |
                                            Conversation (accepted gold) -> ScoredCall
    any stage -> StageFailure (counted in the funnel, written to rejected.jsonl)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

JSON = Any


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def content_hash(value: Any, length: int = 16) -> str:
    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:length]


def make_id(kind: str, *parts: Any) -> str:
    """A readable, content-derived id such as ``conv_3f2a...``."""
    return f"{kind}_{content_hash(list(parts))}"


# What a tool call's result means for the call (T-Eval's review labels): the one spelling of a call's outcome.
Outcome = Literal["success", "internal_error", "input_error", "irrelevant_response", "unable_to_accomplish"]


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


# --- registry -------------------------------------------------------------------------


class ToolSpec(Record):
    """One usable tool, with its input schema normalised (see synth.registry.normalize)."""

    server: str
    name: str
    description: str = ""
    input_schema: dict[str, JSON]
    output_schema: dict[str, JSON] | None = None
    schema_hash: str  # hash of the schema as the registry gave it, before normalisation
    annotations: dict[str, JSON] | None = None

    @property
    def key(self) -> str:
        return f"{self.server}/{self.name}"

    @property
    def properties(self) -> dict[str, JSON]:
        return self.input_schema.get("properties") or {}

    @property
    def required(self) -> list[str]:
        return list(self.input_schema.get("required") or [])


class SeedCall(Record):
    """A call made on the server itself before a scenario starts (entities created in a memory graph)."""

    tool: str
    arguments: dict[str, JSON] = Field(default_factory=dict)


class SandboxStep(Record):
    """One step of preparing a sandbox, exactly one of: files to ``write`` (path inside the folder ->
    text), a command to ``run`` in the folder (argv, no shell), or a ``call`` on the started server."""

    write: dict[str, str] | None = None
    run: tuple[str, ...] | None = None
    call: SeedCall | None = None

    @model_validator(mode="after")
    def _one(self) -> SandboxStep:
        if sum(x is not None for x in (self.write, self.run, self.call)) != 1:
            raise ValueError("a sandbox step is exactly one of write, run or call")
        return self


SEEDED_TIME = "2026-03-12T09:00:00Z"  # a prepared sandbox's file times unless its ``time`` says otherwise


class Sandbox(Record):
    """How a scenario's folder is prepared before its first call (a registry entry's ``sandbox``).

    ``write`` and ``run`` steps happen in the fresh folder before the server starts (a git repository
    with history, files to read), ``call`` steps once it is connected. Commands get only ``env`` (plus
    PATH, and HOME pointing at the folder), so what they make is the same on every machine.
    ``${SANDBOX}`` in the connection's args, env and cwd names the folder.
    """

    steps: tuple[SandboxStep, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    time: str = SEEDED_TIME  # every prepared file's modification and access time (ISO 8601)

    @field_validator("time")
    @classmethod
    def _when(cls, value: str) -> str:
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"sandbox time {value!r} is not an ISO 8601 date-time (2026-03-12T09:00:00Z)") from None
        return value


class Connection(Record):
    """How to reach a server again (a registry entry's ``connections`` item that synth can run).

    ``stdio``: ``command`` + ``args`` started in ``cwd`` with only ``env`` (plus HOME, PATH, ...).
    ``http``: Streamable HTTP at ``url`` with ``headers``. ``$NAME`` in an env value, argument, header or the
    URL is read from the environment variable NAME when connecting, so a token never sits in a file.
    ``stateful``: each scenario gets a fresh server (a new process in a fresh temporary folder, which is also
    its HOME, XDG folders and TMPDIR unless ``env`` sets them: synth.live.sandbox.homed).
    """

    type: Literal["stdio", "http"]
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    stateful: bool = False
    sandbox: Sandbox | None = None  # how each scenario's fresh folder is prepared (stateful servers)

    def where(self) -> str:
        """The server's address in words, for messages (never a header value)."""
        return self.url or " ".join([self.command or "", *self.args]).strip()


class ServerSpec(Record):
    id: str  # qualifiedName, or the file stem when the file gives none
    name: str
    description: str = ""
    source: str  # file, relative to the registry folder
    category: str | None = None
    license: str | None = None
    tools: tuple[ToolSpec, ...]
    connection: Connection | None = None  # set when the entry says how to run or reach the server

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)


class Problem(Record):
    """One thing wrong with a registry file, said so a person can fix it."""

    severity: Literal["error", "warning"]
    file: str
    server: str | None = None
    tool: str | None = None
    pointer: str = ""  # JSON pointer into the file's document
    what: str
    fix: str

    def line(self) -> str:
        where = ": ".join(x for x in (self.file, self.server, self.tool) if x)
        ptr = f" at {self.pointer}" if self.pointer else ""
        return f"{where}{ptr}: {self.severity}: {self.what} (fix: {self.fix})"


class Registry(Record):
    root: str
    servers: tuple[ServerSpec, ...]
    problems: tuple[Problem, ...] = ()
    skipped_tools: int = 0
    skipped_servers: int = 0

    @property
    def tools(self) -> list[ToolSpec]:
        return [t for s in self.servers for t in s.tools]

    def server(self, server_id: str) -> ServerSpec:
        return next(s for s in self.servers if s.id == server_id)


# --- conversation ---------------------------------------------------------------------


class ToolCall(Record):
    id: str
    name: str
    arguments: dict[str, JSON]


class Message(Record):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    # a tool message's origin: the real server ("live"), a server pack, the schema simulator, or a model
    source: Literal["live", "pack", "simulated", "llm"] | None = None
    is_error: bool | None = None  # a tool message: the result was an error (MCP ``isError``), recorded on every one


def conversation_id(messages: Iterable[Message]) -> str:
    """A conversation's id: a hash of what was said, so a conversation read back from the chat export
    (which carries no ``source``) gets the same id as the one the generator wrote."""
    return make_id(
        "conv", [m.model_dump(mode="json", exclude_none=True, exclude={"source", "is_error"}) for m in messages]
    )


class Link(Record):
    """An output field of one step feeds an input parameter of a later step."""

    from_step: int
    field: str  # key in the earlier step's result that carries the value
    to_step: int
    param: str


class Scenario(Record):
    id: str
    index: int
    server: str
    tools: tuple[str, ...]  # in call order
    links: tuple[Link, ...] = ()
    persona: str
    multi_turn: bool = False
    # With a server pack: the steps each user request covers, in order (steps of one request with no
    # link between them go out in parallel), and the steps whose call meets one of the tool's failures.
    turns: tuple[tuple[int, ...], ...] | None = None
    fail: tuple[int, ...] | None = None
    # a turn whose right move is no call: decline a request no tool serves, or answer a follow-up from an
    # earlier result (asking for a withheld value is the query's ``withheld``); see synth.offline.decisions
    decision: Literal["decline", "answer"] | None = None


class Query(Record):
    id: str
    scenario_id: str
    text: str
    parent_id: str | None = None  # a refined query points at its draft
    withheld: tuple[str, ...] = ()  # "step.param" values the user gives only when asked


class PlanStep(Record):
    step: int
    tool: str
    arguments: dict[str, JSON]
    depends_on: tuple[int, ...] = ()


class Plan(Record):
    id: str
    scenario_id: str
    steps: tuple[PlanStep, ...]


DecisionKind = Literal["ask", "decline", "answer"]
DECISIONS: tuple[str, ...] = ("call", "ask", "decline", "answer")  # the four moves a turn can call for


class Decision(Record):
    """A turn whose right move is no call: the assistant asks for a missing value, declines a request no
    tool serves (and says what it can do instead), or answers from what the conversation already holds.

    ``message`` is the index of that assistant message; ``wrong`` the call a model might make there instead
    (the guess, the nearest tool, the call repeated), with ``why`` it is wrong: the rejected side of a
    preference pair and a judge's negative."""

    kind: DecisionKind
    message: int
    wrong: ToolCall | None = None
    why: str = ""


def moves(conversation: Conversation) -> list[str]:
    """The decisions a conversation holds, in DECISIONS order: ``call`` when it has a call, then its no-call turns."""
    held = {d.kind for d in conversation.decisions or ()} | ({"call"} if conversation.calls else set())
    return [move for move in DECISIONS if move in held]


class Trajectory(Record):
    id: str
    scenario_id: str
    messages: tuple[Message, ...]
    decisions: tuple[Decision, ...] | None = None

    @property
    def calls(self) -> list[ToolCall]:
        return [c for m in self.messages for c in m.tool_calls]


class GateResult(Record):
    gate: Literal["tool_exists", "schema_valid", "grounded", "whole_text", "decision"]
    call_id: str  # "" for whole_text: it is about a message, named in the detail; "message:<i>" for a decision
    passed: bool
    detail: str = ""


class Review(Record):
    trajectory_id: str
    gates: tuple[GateResult, ...]
    step_labels: tuple[str, ...] = ()  # T-Eval style, one per call
    verdict: Literal["accept", "reject", "human"]
    confidence: float = 1.0
    reasons: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()  # what a reader gate found and kept for a person ("gate: finding"), synth.stages.reader


# Who wrote a conversation: a server pack's entries, the plain fallback (no pack entry for its tools: a
# trainer may want to filter these out), synth's store writer. Absent: the model agents, derive, a review edit.
Author = Literal["pack", "fallback", "shop"]


class Written(Record):
    """What a writer (offline, or the agents) hands on for one scenario: gates and reviewer passed."""

    query: Query
    plan: Plan
    trajectory: Trajectory
    review: Review
    author: Author | None = None


class Conversation(Record):
    """An accepted gold conversation with everything known about how it was made."""

    id: str
    scenario: Scenario
    query: Query
    plan: Plan
    messages: tuple[Message, ...]
    tools: tuple[str, ...]  # names of the server's tools offered to the assistant
    review: Review
    split: Literal["train", "valid", "test"] | None = None
    author: Author | None = None
    decisions: tuple[Decision, ...] | None = None  # the turns whose right move is no call (synth.records.Decision)

    @property
    def server(self) -> str:
        return self.scenario.server

    @property
    def calls(self) -> list[ToolCall]:
        return [c for m in self.messages for c in m.tool_calls]


Label = Literal["correct", "incorrect_tool", "incorrect_parameter_names", "incorrect_parameter_values"]
LABELS: tuple[str, ...] = (
    "correct",
    "incorrect_tool",
    "incorrect_parameter_names",
    "incorrect_parameter_values",
)


class ScoredCall(Record):
    """A tool call with a label, limbic style: the gold call itself or a derived negative."""

    id: str
    conversation_id: str
    server: str
    call_index: int  # which gold call of the conversation (0-based)
    history: tuple[Message, ...]  # the conversation up to, not including, the call
    tool_call: ToolCall
    gold_call: ToolCall
    score: Label
    subtype: str  # "gold" for correct; e.g. "sibling_tool", "missing_required", "out_of_range"
    failure_reason: str = ""


class StageFailure(Record):
    """Why an item left the pipeline. Never a silent None."""

    stage: str
    item_id: str
    reason: str  # a short code, counted in the funnel
    detail: str = ""  # what happened, in words
    raw: JSON = None


class Funnel(BaseModel):
    """How many items entered and left each stage, and why they left. Mutable: a tally."""

    entered: dict[str, int] = Field(default_factory=dict)
    left: dict[str, int] = Field(default_factory=dict)
    reasons: dict[str, dict[str, int]] = Field(default_factory=dict)

    def enter(self, stage: str, n: int = 1) -> None:
        self.entered[stage] = self.entered.get(stage, 0) + n

    def leave(self, stage: str, n: int = 1) -> None:
        self.left[stage] = self.left.get(stage, 0) + n

    def drop(self, failure: StageFailure) -> None:
        by_reason = self.reasons.setdefault(failure.stage, {})
        by_reason[failure.reason] = by_reason.get(failure.reason, 0) + 1


# --- the run's manifest -----------------------------------------------------------------------

MANIFEST_VERSION = 1  # bump when a key changes meaning or goes away; a new optional key needs no bump
_SECTION = dict[str, Any]


class _ManifestBase(BaseModel):
    # Not frozen: a review recounts the sections in place before writing the manifest again. Unknown keys are
    # kept (in order, after the known ones), so a manifest written by a later synth of the same version
    # survives being read and written here.
    model_config = ConfigDict(extra="allow")

    manifest_version: int  # 0: written before manifests were versioned (read as this version, same keys)

    def to_json(self) -> dict[str, Any]:
        """The manifest as written: the keys it was given, in its order (no defaults added)."""
        return self.model_dump(mode="json", exclude_unset=True)


class RunStart(_ManifestBase):
    """The manifest of a run being made: written before any file is opened, replaced by a Manifest at the end;
    "stopped" (with why) when the run ended part way on an error or Ctrl-C."""

    status: Literal["running", "stopped"]
    identity: dict[str, Any]
    command: str
    stopped: str | None = None  # why it stopped part way (the error line), when status is "stopped"


class Manifest(_ManifestBase):
    """manifest.json of a finished run: what made it, and what is in it.

    The keys and their order are those the pipeline writes; the sections inside stay plain JSON objects,
    read by key (``counts["conversations"]``), because tools outside synth read the file too.
    """

    status: Literal["complete"] = "complete"  # absent in the oldest manifests
    synth_version: str
    generator_version: int
    backend: str
    model: Any  # None offline, else model per role
    tokens: _SECTION
    cost_usd: float | int
    stopped_by_budget: bool
    config: _SECTION  # servers, n, seed, split, max_tools, execute, outputs, review
    versions: dict[str, str]
    prompts: dict[str, str]
    registry: _SECTION  # servers, usable_tools, skipped_*, errors, warnings, snapshot
    identity: _SECTION
    tool_names: _SECTION
    funnel: _SECTION  # scenarios, accepted, entered, left, dropped
    counts: _SECTION
    coverage: _SECTION
    files: dict[str, _SECTION]
    # added after the counts, in this order, by the pipeline (and review) when they have something to say
    packs: _SECTION | None = None
    execute: _SECTION | None = None
    teval: _SECTION | None = None
    tasks: _SECTION | None = None
    dedup: _SECTION | None = None
    reader_gates: _SECTION | None = None  # synth.stages.reader.report
    review: _SECTION | None = None
