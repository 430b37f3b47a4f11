"""Process helpers shared by the layers that start processes (the harness's workers, `exec:`
backends, forked children): a neutral low module, so no layer imports another's for them."""

from __future__ import annotations

import signal
import sys

__all__ = ["die_with_parent"]


def die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this process when the process that started it dies.

    Used by the harness's workers and by `exec:` programs, so a `kill -9` of a run leaves no
    solver running on. Elsewhere (no prctl) it does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - an unusual libc
        pass
