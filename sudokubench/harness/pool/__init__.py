"""Executors: where tasks run. `task.py` the records and the `Executor` protocol, `wire.py`
what crosses the pipe (`batch.py` a worker's batch as columns), `worker.py` the worker
process, `handle.py` the parent's handle on one, `local.py` `LocalPool` (processes on this
machine, their lanes), `dask.py` `DaskExecutor` (a dask.distributed cluster), `probe.py`
what a worker machine is. Re-exports only."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: The module each name of `__all__` comes from, imported on its first use (PEP 562): a
#: worker imports this package for `worker.py` alone, and the fork server would otherwise
#: import the parent's side too (`local.py`, `handle.py`, `dask.py`) for every worker.
_SOURCES = {
    "DaskExecutor": "dask",
    **dict.fromkeys(("DEFAULT_BATCH_SIZE", "LOAD_TIMEOUT", "LocalPool", "describe_exit"), "local"),
    **dict.fromkeys(("HOST", "worker_info"), "probe"),
    **dict.fromkeys(("Executor", "Outcome", "Task", "default_grace", "failed"), "task"),
    "run_task": "worker",
}


def __getattr__(name: str) -> Any:
    """A name of `__all__`, else a submodule not yet imported."""
    if name in _SOURCES:
        value = getattr(importlib.import_module(f"{__name__}.{_SOURCES[name]}"), name)
        globals()[name] = value
        return value
    from sudokubench.harness import submodule

    return submodule(__name__, name)
