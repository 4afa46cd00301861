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

from tests.openai_server import OpenAIServer

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


def test_every_path_the_readme_names_exists_after_the_commands_above_it(tmp_path):
    (tmp_path / "registry").symlink_to(ROOT / "registry")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")} | {"SYNTH_TEST_KEY": "sk-test"}
    commands = walkthrough_commands()
    assert commands[0][:2] == ["synth", "generate"] and any(c[1] == "eval" for c in commands)
    with OpenAIServer(first_tool) as server:
        for words in commands:
            if ENDPOINT in words:
                words = [server.base_url if w == ENDPOINT else w for w in words] + ["--api-key-env", "SYNTH_TEST_KEY"]
            command = [sys.executable, "-m", "synth.cli", *words[1:]]
            done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, f"{shlex.join(words)}\n{done.stdout}\n{done.stderr}"
    named = set(re.findall(r"outputs/[\w./-]+", README[: README.index("\n## Next")]))
    assert len(named) >= 8
    missing = sorted(p for p in named if not (tmp_path / p.rstrip(".")).exists())
    assert not missing, f"the README names paths its commands did not make: {missing}"
    first = (tmp_path / "outputs/first-jsonl/train.jsonl").read_text().splitlines()[0]
    assert set(json.loads(first)) == {"messages", "tools"}
