"""Importing this module readies the `native` backend in this process: the kernel a 9x9 solve
runs on (`native.ready`: the band kernel) is loaded from its kept machine code without importing
numba (`native_object`: its shared library through `ctypes`, about 1 ms of CPU; its object
through llvmlite, 0.04-0.05 s, where the library is missing or stale), or else from numba's
on-disk cache when the cache holds the kernel, with its compiled entry (`native._kernel_entry`).

The worker pool's fork server imports it (`Native.preload`) before it forks any worker, so every
worker starts with that kernel loaded and its `available()` returns at once: the load (1 ms
to 0.05 s of CPU from the kept machine code, 0.7-0.8 s through numba; far more on a busy
machine) never counts against a worker's load limit. The rest of the kernel (the general search
of other shapes and with it numba's import and set-up, the count, the estimator) is not loaded
here: a run of 9x9 puzzles never calls it, and numba's set-up alone is 0.6-0.8 s of CPU on the
start of every run. A worker loads what it needs of it before its first task of another shape
(`Native.load_shape`), outside that task's clock and timeout, under the backend's load limit
(`pool.worker`). A cold cache is not compiled here: the command compiles it in its own
process, announced (`cli.native.ready_native`), and may have started this server before
(`pool.local.boot_fork_server`), so a compile here would be a second one at the same time,
unannounced; the workers then load the code the command cached. Without numba it does nothing
(the backend is then not available).
"""

from __future__ import annotations

import contextlib
from importlib.util import find_spec

from sudokubench.solvers import native_object
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
        if band_object() is None:
            # None found (a cold cache, which the command may be compiling now): forgotten,
            # so that each worker looks again when it readies (`band_object`) and runs the
            # object the command kept, not numba's band kernel (numba's set-up in each).
            native_object.load.cache_clear()
