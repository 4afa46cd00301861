"""Print how real a run's data reads (synth.export.card.realism) as JSON.

python benchmarks/realism.py outputs/my-run [--registry registry/]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from synth.export.card.realism import __doc__ as ROWS
from synth.export.card.realism import report


def main() -> None:
    parser = argparse.ArgumentParser(description="How real a run's data reads.", epilog=ROWS)
    parser.add_argument("run", type=Path)
    parser.add_argument("--registry", type=Path, default=None, help="default: the registry in the run's manifest")
    args = parser.parse_args()
    print(json.dumps({"run": str(args.run), **report(args.run, args.registry)}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
