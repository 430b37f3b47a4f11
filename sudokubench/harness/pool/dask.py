"""`DaskExecutor`: the same tasks on a dask.distributed cluster (the optional extra `dask`),
each dask worker running its batches through a one-process `LocalPool` of its own."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any

from sudokubench.harness.pool.local import LocalPool
from sudokubench.harness.pool.task import Outcome, Task

__all__ = ["DaskExecutor"]


class DaskExecutor:
    """An `Executor` on a dask.distributed cluster (the optional extra `dask`).

    Tasks go to the cluster in small batches (`client.map`); on each dask worker a batch runs
    through that worker's own `LocalPool` of one process, so hard timeouts, killed workers and
    crashes behave exactly as with `LocalPool` here. Outcomes stream back a batch at a time, in
    completion order. Without a `client`, a `LocalCluster` of `jobs` single-threaded worker
    processes is started (and closed by `close`). A cluster of your own must run its workers as
    non-daemon processes (dask config `distributed.worker.daemon: False`), since each starts
    a process of its own.
    """

    def __init__(
        self,
        client: Any = None,
        *,
        jobs: int = 1,
        batch_size: int = 4,
        grace: float | None = None,
    ) -> None:
        """Use `client`, or start a local cluster of `jobs` worker processes."""
        import dask
        from dask.distributed import Client, LocalCluster

        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self.grace = grace
        self._cluster = None
        if client is None:
            with dask.config.set({"distributed.worker.daemon": False}):
                self._cluster = LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
                )
            client = Client(self._cluster)
        self.client = client

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield every task's Outcome, a batch at a time, in completion order."""
        from dask.distributed import as_completed

        todo = list(tasks)
        batches = [todo[k : k + self.batch_size] for k in range(0, len(todo), self.batch_size)]
        futures = self.client.map(_run_on_dask_worker, batches, grace=self.grace, pure=False)
        try:
            for future in as_completed(futures):
                yield from future.result()
        finally:  # an abandoned run leaves nothing queued on the cluster
            self.client.cancel(futures)

    def close(self) -> None:
        """Close the client and the cluster this executor started (not one it was given)."""
        if self._cluster is not None:
            self.client.close()
            self._cluster.close()
            self._cluster = None


_dask_pools = threading.local()


def _run_on_dask_worker(batch: list[Task], grace: float | None) -> list[Outcome]:
    """On a dask worker: run a batch through this thread's own one-process LocalPool."""
    pool = getattr(_dask_pools, "pool", None)
    if pool is None:
        pool = _dask_pools.pool = LocalPool(jobs=1, grace=grace)
    return list(pool.run(batch))
