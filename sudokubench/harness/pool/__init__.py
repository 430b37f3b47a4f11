"""Executors: where tasks run. `task.py` the records and the `Executor` protocol, `wire.py`
what crosses the pipe (`batch.py` a worker's batch as columns), `worker.py` the worker
process, `handle.py` the parent's handle on one, `local.py` `LocalPool` (processes on this
machine, their lanes), `dask.py` `DaskExecutor` (a dask.distributed cluster), `probe.py`
what a worker machine is. Re-exports only."""

from sudokubench.harness.pool.dask import DaskExecutor
from sudokubench.harness.pool.local import (
    DEFAULT_BATCH_SIZE,
    LOAD_TIMEOUT,
    LocalPool,
    describe_exit,
)
from sudokubench.harness.pool.probe import HOST, worker_info
from sudokubench.harness.pool.task import Executor, Outcome, Task, default_grace, failed
from sudokubench.harness.pool.worker import run_task

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "HOST",
    "LOAD_TIMEOUT",
    "DaskExecutor",
    "Executor",
    "LocalPool",
    "Outcome",
    "Task",
    "default_grace",
    "describe_exit",
    "failed",
    "run_task",
    "worker_info",
]
