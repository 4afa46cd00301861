"""A loopback OpenAI-compatible endpoint whose answers a person writes: each request is saved as
``DIR/NNN.request.json`` and its answer is read from ``DIR/NNN.answer.json`` (the content the model says,
as text) once that file appears. For playing the model by hand (``synth pack build --base-url ...``), and
for recording the exchanges that tests replay.

    python tests/relay.py DIR --port 8019

Run the client with ``-c 1`` and a long ``--timeout``: the relay answers one request at a time.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from openai_server import OpenAIServer


def relay(folder: Path, poll_s: float = 0.5):
    folder.mkdir(parents=True, exist_ok=True)
    count = [len(list(folder.glob("*.request.json")))]

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        count[0] += 1
        stem = folder / f"{count[0]:03d}"
        Path(f"{stem}.request.json").write_text(json.dumps(request, ensure_ascii=False, indent=1), "utf-8")
        answer = Path(f"{stem}.answer.json")
        while not answer.exists():
            time.sleep(poll_s)
        time.sleep(poll_s)  # let the writer finish the file
        return {"content": answer.read_text("utf-8")}

    return respond


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--port", type=int, default=8019)
    args = parser.parse_args()
    with OpenAIServer(relay(args.folder), port=args.port) as server:
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
