"""A server that starts and never answers (reads its stdin forever)."""

import sys

for _line in sys.stdin:
    pass
