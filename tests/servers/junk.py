"""A server that writes junk to stdout instead of JSON-RPC, then never answers."""

import sys

print("Starting demo server v1.0 ... listening", flush=True)
for line in sys.stdin:
    print("echo: " + line.strip()[:40], flush=True)
