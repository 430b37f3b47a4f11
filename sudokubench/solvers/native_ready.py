"""Importing this module readies the `native` backend in this process: its kernel's machine code
is loaded from numba's on-disk cache (compiled first when the cache is cold).

The worker pool's fork server imports it (`Native.preload`) before it forks any worker, so every
worker starts with the kernel loaded and its `available()` returns at once: the load (about 2 s,
far more on a busy machine) and a first compile (a minute or more) never count against a
worker's load limit. Without numba it does nothing (the backend is then not available).
"""

from __future__ import annotations

import contextlib
from importlib.util import find_spec

from sudokubench.solvers.native import warm

if find_spec("numba") is not None:
    # A fork server must not die of it: each worker's own available() then loads the kernel
    # again and reports what went wrong.
    with contextlib.suppress(Exception):
        warm()
