"""The README a newcomer follows: short, and every path it names exists after the commands above it.

The walk-through's commands (every ``synth ...`` in a bash block before "## Next", the set-up line's
included) run in order in a fresh folder holding the shipped registry, the eval's model answered by a
loopback OpenAI-compatible server; then every ``outputs/...`` path the README names must exist, and
every link to a page of the repository must resolve.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fine_tuning_rules import MIN_EXAMPLES, check_line
from openai_server import OpenAIServer

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
ENDPOINT = "http://localhost:8000/v1"


def walkthrough_commands() -> list[list[str]]:
    """The ``synth`` commands of the README's bash blocks before "## Next", in order."""
    text = README[: README.index("\n## Next")]
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words[:1] == ["synth"]:
                    commands.append(words)
    return commands


def first_tool(body: dict[str, Any]) -> dict[str, Any]:
    """A weak model: it calls the first tool it is offered with no arguments."""
    name = body["tools"][0]["function"]["name"]
    call = {"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}
    return {"content": None, "tool_calls": [call]}


def test_the_readme_fits_on_a_few_screens():
    assert len(README.splitlines()) < 200


def test_every_link_in_the_readme_and_docs_resolves():
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not target.startswith("http"):
                assert (page.parent / target).exists(), f"{page.name} links to {target}, which is missing"


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> Path:
    """A fresh folder holding the shipped registry, after every command of the README's walk-through."""
    here = tmp_path_factory.mktemp("newcomer")
    (here / "registry").symlink_to(ROOT / "registry")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")} | {"SYNTH_TEST_KEY": "sk-test"}
    commands = walkthrough_commands()
    assert commands[0][:2] == ["synth", "generate"] and any(c[1] == "eval" for c in commands)
    with OpenAIServer(first_tool) as server:
        for words in commands:
            if ENDPOINT in words:
                words = [server.base_url if w == ENDPOINT else w for w in words] + ["--api-key-env", "SYNTH_TEST_KEY"]
            command = [sys.executable, "-m", "synth.cli.app", *words[1:]]
            done = subprocess.run(command, cwd=here, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{shlex.join(words)}\n{done.stdout}\n{done.stderr}"
    return here


def test_every_path_the_readme_names_exists_after_the_commands_above_it(walked):
    named = set(re.findall(r"outputs/[\w./-]+", README[: README.index("\n## Next")]))
    assert len(named) >= 8
    missing = sorted(p for p in named if not (walked / p.rstrip(".")).exists())
    assert not missing, f"the README names paths its commands did not make: {missing}"
    assert (walked / "outputs/first-jsonl/conversations.jsonl").is_file()


def test_train_and_valid_pass_openai_fine_tuning_rules_as_they_are(walked):
    run = walked / "outputs/registry-seed0-n500"
    for name in ("train.jsonl", "valid.jsonl"):  # uploaded as they are: no export, no gzip, tool lists inline
        rows = [json.loads(line) for line in (run / name).read_text(encoding="utf-8").splitlines()]
        assert len(rows) >= MIN_EXAMPLES
        for row in rows:
            check_line(row)


def test_the_conversation_the_readme_shows_is_a_line_of_the_first_runs_train_jsonl(walked):
    """The README quotes a real line (its tools left out)."""
    shown = [json.loads(line) for line in re.search(r"```json\n(.*?)```", README, re.S).group(1).splitlines()]
    train = (walked / "outputs/registry-seed0-n500/train.jsonl").read_text(encoding="utf-8").splitlines()
    assert any(json.loads(line)["messages"] == shown for line in train), "the README's conversation is not in train"
