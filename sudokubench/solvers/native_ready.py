"""Importing this module readies the `native` backend in this process: the kernel a 9x9 solve
runs on (`native.ready`: the band kernel) is loaded from its kept machine code (`native_object`,
about 0.1 s of CPU) with the general kernel from numba's cache (numba's set-up, 0.6-0.8 s: a
worker's first puzzle of another shape would otherwise pay it against its task's timeout), or
else the band kernel from numba's on-disk cache when the cache holds it, with its compiled
entry (`native._kernel_entry`).

The worker pool's fork server imports it (`Native.preload`) before it forks any worker, so every
worker starts with that kernel loaded and its `available()` returns at once: the load (0.1 s of
CPU from the kept machine code, 0.7-0.8 s through numba; far more on a busy machine) never
counts against a worker's load limit. The rest of the
kernel (the count, the estimator; without the kept machine code the general search too) is not
loaded here: each
part costs 20-30 ms, on the start of every run, and a run of 9x9 puzzles never calls it; a
worker loads what it needs of it in its first untimed `prepare` of another shape. A cold cache is
not compiled here: the command compiles it in its own process, announced (`cli.native.
ready_native`), and may have started this server before (`pool.local.boot_fork_server`), so a
compile here would be a second one at the same time, unannounced; the workers then load the
code the command cached. Without numba it does nothing (the backend is then not available).
"""

from __future__ import annotations

import contextlib
from importlib.util import find_spec

from sudokubench.solvers.native import _kernel_entry, band_object, numba_cached, ready

if find_spec("numba") is not None:
    # A fork server must not die of it: each worker's own available() then loads the kernel
    # again and reports what went wrong.
    with contextlib.suppress(Exception):
        if band_object() is not None:  # the kept machine code: no numba in this process
            ready()
        elif numba_cached():
            ready()
            _kernel_entry(True)
