"""A server that exits at start, as one with a missing setting does."""

import sys

print("fatal: DEMO_TOKEN is not set", file=sys.stderr)
sys.exit(3)
