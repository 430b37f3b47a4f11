"""Importing this module readies the `native` backend in this process: its kernel's machine code
is loaded from numba's on-disk cache, when the cache holds it.

The worker pool's fork server imports it (`Native.preload`) before it forks any worker, so every
worker starts with the kernel loaded and its `available()` returns at once: the load (about
0.4 s, far more on a busy machine) never counts against a worker's load limit. A cold cache is
not compiled here: the command compiles it in its own process, announced (`cli.native.
ready_native`), and may have started this server before (`pool.local.boot_fork_server`), so a
compile here would be a second one at the same time, unannounced; the workers then load the
code the command cached. Without numba it does nothing (the backend is then not available).
"""

from __future__ import annotations

import contextlib
from importlib.util import find_spec

from sudokubench.solvers.native import kernel_cached, warm

if find_spec("numba") is not None:
    # A fork server must not die of it: each worker's own available() then loads the kernel
    # again and reports what went wrong.
    with contextlib.suppress(Exception):
        if kernel_cached():
            warm()
