"""A plug-in whose import never ends (for test_hostile.py): loading it must time out."""

import time

while True:
    time.sleep(1)


def solve(puzzle: object) -> None:  # pragma: no cover - never reached
    """Unreachable."""
