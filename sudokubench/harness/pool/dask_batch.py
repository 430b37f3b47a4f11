"""What runs on a dask worker for `DaskExecutor` (`dask.py`): each batch of tasks through a
one-process `LocalPool` of the worker thread's own, so hard timeouts, crash isolation and the
memory limit are `LocalPool`'s.

A batch comes as one pickle of its tasks' tuples (`pack`), which dask passes on as it is: a
list of tuples as the task's argument is walked by dask, a value at a time, in the client
(`dask._task_spec.parse_input`, looking for futures in it) and again on the worker. The
outcomes go back as the pool's worker sent them: a columnar message (`batch.py`) stays one
(`Batch.message`), which the client takes as a local run's parent takes it (`take_batch`);
any other list as the outcomes' wire forms."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
import time
from collections.abc import Sequence
from typing import Any

from sudokubench.harness.pool.batch import Batch
from sudokubench.harness.pool.probe import HOST
from sudokubench.harness.pool.task import Task
from sudokubench.harness.pool.wire import to_wire

__all__ = ["pack", "run_batch"]

_pools = threading.local()


def pack(tasks: Sequence[Task]) -> bytes:
    """A batch's tasks as `run_batch` takes them: one pickle of their plain tuples."""
    return pickle.dumps([tuple(t) for t in tasks], pickle.HIGHEST_PROTOCOL)


def run_batch(
    batch: bytes, grace: float | None, memory_limit: int | None = None
) -> tuple[float, list[Any]]:
    """On a dask worker: run a batch (`pack`) through this thread's own one-process LocalPool
    (made on the first batch, kept for the next; its process held to `memory_limit`); the
    seconds it took and what the pool handed back, in order: each columnar message of its
    worker as such (a tuple, "rows" first), each list of outcomes as a list of their wire
    forms, each with this machine's host as its last field."""
    from sudokubench.harness.pool.local import LocalPool

    pools: dict[tuple[float | None, int | None], LocalPool] = _pools.__dict__.setdefault(
        "by_setting", {}
    )
    tasks = [Task(*fields) for fields in pickle.loads(batch)]
    pool = pools.get((grace, memory_limit))
    if pool is None:
        _allow_children()
        pool = pools[grace, memory_limit] = LocalPool(
            jobs=1, grace=grace, preload={t.backend for t in tasks}, memory_limit=memory_limit
        )
    start = time.perf_counter()
    # (not `strict`: an answer after the limit keeps its status, as its wire form would; the
    # client makes it a TIMEOUT where a local run's parent does. Outcomes with their texts:
    # this process runs only sudokubench's code; `compare` keeps them only for its own
    # backends' checked outcomes)
    parts: list[Any] = [
        found.message()
        if type(found) is Batch
        else [to_wire(outcome._replace(host=HOST), True) for outcome in found]
        for found in pool.run_columns(tasks, strict=False)
    ]
    return time.perf_counter() - start, parts


def _allow_children() -> None:
    """Let this dask worker start its pool's processes even when its nanny made it a daemon
    (dask's default). multiprocessing refuses children to daemons so that none outlives them;
    the pool's processes die with this one anyway (their lifeline pipe, PR_SET_PDEATHSIG)."""
    process = multiprocessing.current_process()
    if process.daemon:
        process.daemon = False
