"""The rows one accepted conversation gives each run file, decided in one place.

The conversation itself goes to conversations.jsonl; its chat line to train.jsonl or valid.jsonl by its
split, or, in the test split, one eval item per gold call; each scored call (its negatives and its
positive) to scored.jsonl. ``synth review apply`` writes an edited or newly accepted conversation from
these; ``pipeline._export`` routes the same rows (and adds the T-Eval subsets, tasks and its tally).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from synth.export.chat import chat_line, eval_items
from synth.export.preference import decision_lines
from synth.export.scored import available_tools, scored_line
from synth.messages import ToolNames
from synth.records import Conversation, ScoredCall, ServerSpec
from synth.rundir import CHAT, CONVERSATIONS, DECIDED, EVAL, SCORED


def conversation_rows(
    conv: Conversation, server: ServerSpec, names: ToolNames, scored: Iterable[ScoredCall]
) -> Iterator[tuple[str, Any]]:
    """(run file, row) for every row ``conv`` gives, in the order the pipeline writes them."""
    split = conv.split or "train"
    yield CONVERSATIONS, conv.to_json()
    if split in CHAT:
        yield CHAT[split], chat_line(conv, server, names)
    else:
        for item in eval_items(conv, server, names):
            yield EVAL, item
    tools = available_tools(server, conv.tools)
    for record in scored:
        row = scored_line(record, server, conv.tools, split, tools)
        yield SCORED, {**row, "author": conv.author} if conv.author else row
    for row in decision_lines(conv, split, tools):  # the no-call turns' judge rows, in a file of their own
        yield DECIDED, row


def rows_by_file(
    conv: Conversation, server: ServerSpec, names: ToolNames, scored: Iterable[ScoredCall]
) -> dict[str, list[Any]]:
    """``conversation_rows`` gathered per file, for a writer that places each file's rows itself."""
    out: dict[str, list[Any]] = {}
    for name, row in conversation_rows(conv, server, names, scored):
        out.setdefault(name, []).append(row)
    return out
