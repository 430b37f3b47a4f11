"""What runs on a dask worker for `DaskExecutor` (`dask.py`): each batch of tasks through a
one-process `LocalPool` of the worker thread's own, so hard timeouts, crash isolation and the
memory limit are `LocalPool`'s."""

from __future__ import annotations

import multiprocessing
import threading
import time

from sudokubench.harness.pool.probe import HOST
from sudokubench.harness.pool.task import Task
from sudokubench.harness.pool.wire import Wire, to_wire

__all__ = ["run_batch"]

_pools = threading.local()


def run_batch(
    batch: list[tuple], grace: float | None, memory_limit: int | None = None
) -> tuple[float, list[Wire]]:
    """On a dask worker: run a batch through this thread's own one-process LocalPool (made on
    the first batch, kept for the next; its process held to `memory_limit`); the seconds it
    took and the outcomes' wire forms, each with this machine's host as its last field."""
    from sudokubench.harness.pool.local import LocalPool

    pools: dict[tuple[float | None, int | None], LocalPool] = _pools.__dict__.setdefault(
        "by_setting", {}
    )
    tasks = [Task(*fields) for fields in batch]
    pool = pools.get((grace, memory_limit))
    if pool is None:
        _allow_children()
        pool = pools[grace, memory_limit] = LocalPool(
            jobs=1, grace=grace, preload={t.backend for t in tasks}, memory_limit=memory_limit
        )
    start = time.perf_counter()
    # (with their texts: this process runs only sudokubench's code; `compare` keeps them
    # only for its own backends' checked outcomes)
    wires = [to_wire(outcome._replace(host=HOST), True) for outcome in pool.run(tasks)]
    return time.perf_counter() - start, wires


def _allow_children() -> None:
    """Let this dask worker start its pool's processes even when its nanny made it a daemon
    (dask's default). multiprocessing refuses children to daemons so that none outlives them;
    the pool's processes die with this one anyway (their lifeline pipe, PR_SET_PDEATHSIG)."""
    process = multiprocessing.current_process()
    if process.daemon:
        process.daemon = False
