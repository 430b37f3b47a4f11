"""`DaskExecutor`: the same tasks on a dask.distributed cluster (the optional extra `dask`).

How it works:

- **Connecting.** `DaskExecutor.connect("tcp://host:8786")` joins a running scheduler within
  `timeout` seconds (else a `ClusterError`, one line); `connect("local:N")` starts a
  `LocalCluster` of N single-threaded worker processes bound to 127.0.0.1, no dashboard.
- **Before the first task** (`prepare`): `client.run` runs `probe.worker_info` on every worker:
  its host, CPU count, Python and the versions of the requested backends. A backend missing on
  some worker is a `ClusterError` that names the workers; the descriptions go into the run's
  `machine` record. A worker that joins later is probed as it joins and takes batches only if
  it has every backend (`admit.py`); `refused()` names those kept away.
- **Tasks** travel as plain tuples with the puzzle's text (no shared file system) in batches:
  one dask task per batch. On the dask worker, a batch runs through a `LocalPool` of one
  process that the worker thread keeps for the next batches, so hard timeouts and crash
  isolation are `LocalPool`'s: a hanging or segfaulting backend kills a pool process, never the
  dask worker (which dask starts as a daemon process: `dask_batch.py` lifts multiprocessing's
  rule against a daemon's children, whose point the pool's lifelines already make). A batch
  goes as one pickle of its tasks' tuples (`dask_batch.pack`): dask walks a list of tuples
  given to `submit` a value at a time, looking for futures in it. What the pool's worker sent
  comes back as it was sent: its columnar messages (`batch.py`, the rows with the worker's
  host) stay messages, which `run_columns` hands `compare` as the `Batch`es a local pool
  hands it; other outcomes (a plug-in's lane, a kill, the memory limit) come in `wire.py`'s
  form, each with the worker's host. `run_batches` gives the outcomes of both.
- **Memory.** Each task's peak is measured in the pool process that ran it, as locally. With
  `memory_limit` (`compare --cluster ... --memory-limit SIZE`), each worker's pool holds its
  process to it as a local run does: a task over it is an ERROR "memory limit" and that pool
  process is replaced. Without it nothing is capped: `compare`'s default limit is a share of
  this machine's memory, which says nothing of the workers'.
- **Batch size** adapts: the first batches hold `FIRST_BATCH` tasks; then each batch is sized
  to take about `BATCH_SECONDS` on a worker, from the time per task measured so far, at most
  `MAX_BATCH`, and no more than a share of what is left (so workers finish together) unless
  that is under `FIRST_BATCH`. Each worker thread has up to two batches waiting, so it never
  idles between batches. Dask's own cost is then a few milliseconds per batch, 0.1-0.2 ms per
  task on the loaded 2-core test machine (`benchmarks/cluster.py`).
- **Faults.** A dask worker that dies mid-batch (kill -9, a lost machine): the scheduler runs
  its batches again on other workers; a batch's outcomes come back once, all together, so no
  task is stored twice. A batch that killed `distributed.scheduler.allowed-failures` workers
  is submitted again up to `RETRIES` times, then the run stops with a `ClusterError`. A lost
  scheduler (the client's connection dropped: dask cancels every batch) is `ClusterLost`: the
  run is interrupted and can be resumed. So is a cluster left with no worker that can take
  the run's batches (the workers left, and none joined, or only some that lack a backend)
  for `timeout` seconds: the batches would wait for ever (`_await_batch`).
  Abandoning the run (Ctrl-C, an error) cancels every batch not yet finished. The workers of a
  `local:N` cluster ignore Ctrl-C (a terminal sends it to them too): the run stops them.

Roads not taken: one dask task per puzzle (dask's scheduling then cost 53 ms per task on the
loaded test machine, where a 17clue puzzle took 5 ms with `fast`); `client.map` over all
batches at once (no adapting the batch size, every batch's tasks held by the scheduler from the
start); solving in the dask worker's own thread (a backend stuck in C code could not be
stopped, and a segfault would take the dask worker down).
"""

from __future__ import annotations

import itertools
import logging
import math
import signal
import time
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sudokubench.errors import ClusterError, ClusterLost
from sudokubench.harness.pool.batch import WIDTH, Batch, take_batch
from sudokubench.harness.pool.dask_batch import pack, run_batch
from sudokubench.harness.pool.probe import worker_info
from sudokubench.harness.pool.task import Outcome, Task
from sudokubench.harness.pool.wire import from_wire
from sudokubench.harness.records import TaskRow
from sudokubench.processes import MAX_WORKERS

__all__ = ["BATCH_SECONDS", "FIRST_BATCH", "MAX_BATCH", "DaskExecutor", "quiet_dask"]

#: Tasks in each of the first batches, before any time per task is known.
FIRST_BATCH = 8
#: Seconds of work a batch is sized to take on a worker.
BATCH_SECONDS = 0.5
#: Fewest tasks `run` takes ahead of the cluster.
WINDOW = 4096
#: Most tasks in a batch.
MAX_BATCH = 2048
#: Times a batch is submitted again after dask gave it up (it killed too many workers).
RETRIES = 2
#: Seconds between two looks at the cluster's workers while no batch ends.
LOOK_S = 1.0
#: The place of a row's host in `Batch.values` (`records.TaskRow`).
_HOST = TaskRow._fields.index("host")
#: What `_able_workers` says when the scheduler cannot be asked.
UNKNOWN = 2**30


class DaskExecutor:
    """An `Executor` on a dask.distributed cluster: see the module docstring.

    Give it a `distributed.Client` of your own (it stays yours), or use `connect`.
    `batch_size` fixes the tasks per batch instead of adapting it.
    """

    def __init__(
        self,
        client: Any,
        *,
        batch_size: int | None = None,
        grace: float | None = None,
        cluster: Any = None,
        timeout: float = 10.0,
        memory_limit: int | None = None,
    ) -> None:
        """Run on `client`'s cluster; `cluster` (a LocalCluster) is closed with the executor;
        `prepare` waits up to `timeout` seconds for a first worker; `memory_limit` bytes a
        worker's pool process may reside in (None: no cap)."""
        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.client = client
        self.batch_size = batch_size
        self.grace = grace
        self._cluster = cluster
        self.timeout = timeout
        self.memory_limit = memory_limit
        self._per_task: float | None = None  # seconds per task on a worker, measured
        self._resource: str | None = None  # what a worker that passed `prepare`'s probe has
        self._own_client = False  # made by `connect`: closed with the executor
        #: Batches sent so far and their tasks (for benchmarks and diagnostics).
        self.batches = 0
        self.sent = 0

    @classmethod
    def connect(
        cls,
        address: str,
        *,
        timeout: float = 10.0,
        batch_size: int | None = None,
        grace: float | None = None,
        memory_limit: int | None = None,
    ) -> DaskExecutor:
        """Join the scheduler at `address` (`tcp://host:8786`), or start `local:N`: N worker
        processes on 127.0.0.1. A `ClusterError` if it cannot be reached within `timeout`, or
        (in `prepare`) if no worker has joined it within `timeout` more."""
        try:
            from dask.distributed import Client
        except ImportError:
            raise ClusterError(
                "running on a cluster needs dask.distributed: pip install 'sudokubench[dask]'"
            ) from None
        if address.startswith("local:"):
            try:
                cluster = _local_cluster(address)
            except (OSError, RuntimeError, TimeoutError) as exc:  # e.g. no free port, no fork
                raise ClusterError(f"cannot start {address}: {exc}") from None
            client = Client(cluster)
            return cls(
                client,
                batch_size=batch_size,
                grace=grace,
                cluster=cluster,
                timeout=timeout,
                memory_limit=memory_limit,
            )
        try:
            client = Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ClusterError(
                f"cannot reach the dask scheduler at {address} within {timeout:g} s: {why}"
            ) from None
        executor = cls(
            client, batch_size=batch_size, grace=grace, timeout=timeout, memory_limit=memory_limit
        )
        executor._own_client = True
        return executor

    def __enter__(self) -> DaskExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def address(self) -> str:
        """The scheduler's address."""
        return str(self.client.scheduler.address)

    def prepare(self, backends: Sequence[str]) -> list[dict[str, Any]]:
        """Every worker's machine and backends' versions (`probe.worker_info`, plus `worker`,
        its address, `scheduler`, the scheduler's, and `threads`); a ClusterError naming the
        workers that lack a backend."""
        try:
            self.client.wait_for_workers(1, timeout=self.timeout)
        except TimeoutError:
            raise ClusterError(
                f"no dask worker joined the scheduler at {self.address} within {self.timeout:g} s"
            ) from None
        try:
            found = self.client.run(worker_info, list(backends))
        except Exception as exc:  # e.g. sudokubench not installed on a worker
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise ClusterError(
                f"cannot ask the workers of {self.address} what they run "
                f"({type(exc).__name__}: {first}): is sudokubench installed on every worker?"
            ) from None
        problems = []
        for name in backends:
            lacking = sorted(w for w, info in found.items() if name in info["missing"])
            if lacking:
                why = found[lacking[0]]["missing"][name]
                problems.append(f"backend {name!r} is missing on {', '.join(lacking)} ({why})")
        if problems:
            raise ClusterError("; ".join(problems))
        from sudokubench.harness.pool.admit import admit

        self._resource = admit(self.client, backends)  # (workers that join later: probed too)
        threads = self.client.nthreads()
        return [
            {"worker": w, "scheduler": self.address, "threads": threads.get(w), **info}
            for w, info in sorted(found.items())
        ]

    def refused(self) -> dict[str, str]:
        """The workers kept away from the run's batches (joined late, lacking a backend),
        each with what it lacks."""
        if self._resource is None:
            return {}
        from sudokubench.harness.pool.admit import refusals

        return refusals(self.client, self._resource)

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield every task's Outcome, a batch at a time, in completion order."""
        for outcomes in self.run_batches(tasks):
            yield from outcomes

    def run_batches(self, tasks: Iterable[Task]) -> Iterator[list[Outcome]]:
        """Every task's Outcome, a finished dask batch's outcomes in one list, in completion
        order."""
        return self._run(tasks, False)  # type: ignore[return-value]

    def run_columns(self, tasks: Iterable[Task]) -> Iterator[list[Outcome] | Batch]:
        """`run_batches`, with each columnar message of a dask worker's pool (`batch.py`)
        handed back as a `Batch`, taken as `LocalPool.run_columns` takes a worker's (an answer
        after the limit made a TIMEOUT): what `compare` stores and tallies a batch at a time
        without an object a task."""
        return self._run(tasks, True)

    def _run(self, tasks: Iterable[Task], columns: bool) -> Iterator[list[Outcome] | Batch]:
        from dask.distributed import as_completed

        source = iter(tasks)  # taken a window at a time: a run's tasks are never a list
        queue = deque(itertools.islice(source, WINDOW))
        if not queue:
            return
        threads = max(1, sum(self.client.nthreads().values()))
        window = max(WINDOW, 4 * threads * MAX_BATCH)  # batches are sized as with every task
        pending: dict[Any, tuple[list[Task], int]] = {}  # future -> (its tasks, tries)
        futures = as_completed(with_results=True, raise_errors=False)  # fetched as they end
        try:
            queue.extend(itertools.islice(source, window - len(queue)))
            self._top_up(queue, pending, futures, threads)
            while not futures.is_empty():
                if not futures.has_ready():
                    self._await_batch(pending, futures)
                for future, result in futures.next_batch(block=False):
                    batch, tries = pending.pop(future)
                    if future.status == "finished":
                        elapsed, parts = result
                        self._learn(elapsed, len(batch))
                        if columns:
                            yield from _taken(batch, parts, True)
                        else:  # (a dask batch's outcomes in one list)
                            yield list(itertools.chain.from_iterable(_taken(batch, parts, False)))
                    else:
                        self._failed(future, batch, tries, pending, futures)
                    queue.extend(itertools.islice(source, max(window - len(queue), 0)))
                    self._top_up(queue, pending, futures, threads)
        finally:  # an abandoned run leaves nothing queued on the cluster
            if pending:
                self.client.cancel(list(pending))

    def _await_batch(self, pending: dict[Any, Any], futures: Any) -> None:
        """Wait until a batch ends (as iterating `as_completed` waits); `ClusterLost` when for
        `timeout` seconds in a row the cluster had no worker that can take the run's batches:
        they would wait for ever."""
        idle_since: float | None = None
        looked = time.monotonic()
        while not futures.has_ready() and pending:
            with futures.thread_condition:  # (notified as each batch ends)
                futures.thread_condition.wait(timeout=0.1)
            now = time.monotonic()
            if futures.has_ready() or now - looked < LOOK_S:
                continue
            looked = now
            if self._able_workers():
                idle_since = None
            elif idle_since is None:
                idle_since = now
            elif now - idle_since >= self.timeout:
                raise ClusterLost(
                    f"no dask worker of the scheduler at {self.address} could take the run's "
                    f"tasks for {self.timeout:g} s (the workers left"
                    + (", and those there lack a backend)" if self.refused() else ")")
                )

    def _able_workers(self) -> int:
        """The workers that can take the run's batches now (those admitted, `admit.py`);
        a large number when the scheduler cannot be asked (its loss is told apart)."""
        try:
            workers = self.client.scheduler_info()["workers"].values()
        except Exception:
            return UNKNOWN
        if self._resource is None:
            return len(workers)
        return sum(1 for w in workers if (w.get("resources") or {}).get(self._resource))

    def _failed(
        self,
        future: Any,
        batch: list[Task],
        tries: int,
        pending: dict[Any, tuple[list[Task], int]],
        futures: Any,
    ) -> None:
        """Submit a batch dask gave up on again, or stop the run with a ClusterError."""
        from dask.distributed import KilledWorker

        if future.status == "cancelled" and self.client.status != "running":
            # (the client cancels every future when its connection to the scheduler drops)
            raise ClusterLost(
                f"the dask scheduler at {self.address} was lost (the connection to it "
                "dropped in the middle of the run)"
            )
        exc = future.exception() if future.status == "error" else None
        if isinstance(exc, KilledWorker) and tries < RETRIES:
            self._submit(batch, tries + 1, pending, futures)
            return
        what = f"{type(exc).__name__}: {exc}" if exc is not None else f"batch {future.status}"
        raise ClusterError(f"the cluster at {self.address} failed a batch of tasks: {what}")

    def _top_up(
        self, queue: deque[Task], pending: dict[Any, Any], futures: Any, threads: int
    ) -> None:
        """Keep up to two batches per worker thread submitted."""
        while queue and len(pending) < 2 * threads:
            size = self._size(len(queue), threads)
            batch = [queue.popleft() for _ in range(min(size, len(queue)))]
            self._submit(batch, 0, pending, futures)

    def _submit(self, batch: list[Task], tries: int, pending: dict[Any, Any], futures: Any) -> None:
        future = self.client.submit(
            run_batch,
            pack(batch),  # (one value: a list of tuples is walked by dask a value at a time)
            self.grace,
            self.memory_limit,
            pure=False,
            resources={self._resource: 1} if self._resource else None,  # admitted workers only
        )
        pending[future] = (batch, tries)
        futures.add(future)
        self.batches += 1
        self.sent += len(batch)

    def _size(self, left: int, threads: int) -> int:
        """Tasks for the next batch: fixed, or about BATCH_SECONDS of work, at most a
        share of what is left."""
        if self.batch_size is not None:
            return self.batch_size
        if self._per_task is None:
            size = FIRST_BATCH
        else:
            size = int(BATCH_SECONDS / max(self._per_task, 1e-6))
        share = math.ceil(left / (2 * threads))
        return max(1, min(size, max(share, FIRST_BATCH), MAX_BATCH))

    def _learn(self, elapsed: float, n: int) -> None:
        """Fold a batch's seconds per task on its worker into the running estimate."""
        per_task = elapsed / max(n, 1)
        old = self._per_task
        self._per_task = per_task if old is None else 0.7 * old + 0.3 * per_task

    def close(self) -> None:
        """Close the client and the cluster `connect` made (a client given stays open)."""
        if self._own_client or self._cluster is not None:
            self._own_client = False
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def _taken(batch: list[Task], parts: list[Any], strict: bool) -> Iterator[list[Outcome] | Batch]:
    """What `run_batch` handed back for `batch`, in order: each columnar message as its
    `Batch` (with `strict`, else as its outcomes, each with its worker's host as its wire
    form has it), each list of wire forms as their outcomes."""
    by_id = {t.task_id: t for t in batch}
    for part in parts:
        if type(part) is tuple:  # (a columnar message, "rows" first)
            taken = take_batch(deque(map(by_id.__getitem__, array("q", part[1]))), part, strict)
            if strict:
                yield taken
            else:
                hosts = taken.values[_HOST::WIDTH]
                yield [o._replace(host=h) for o, h in zip(taken.outcomes(), hosts, strict=True)]
        else:
            yield [from_wire(by_id[wire[0]], wire) for wire in part]


def _local_cluster(spec: str) -> Any:
    """A LocalCluster for `local:N`: N single-threaded worker processes on 127.0.0.1 that
    ignore Ctrl-C, no dashboard."""
    count = spec.removeprefix("local:")
    if not count.isdigit() or int(count) < 1:
        raise ClusterError(f"{spec!r}: expected local:N with N a number of workers, e.g. local:2")
    if int(count) > MAX_WORKERS:
        raise ClusterError(f"{spec!r}: at most {MAX_WORKERS} local workers (as --jobs)")
    from dask.distributed import LocalCluster

    return LocalCluster(
        n_workers=int(count),
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        # No dashboard; the scheduler's HTTP routes (health, metrics) on a free loopback
        # port rather than 8787, which another cluster may hold (":0" listened on every
        # interface: nothing of a local cluster may be reachable from another machine).
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False},
        preload=[__name__],  # `dask_setup` below, in every worker (restarted ones too)
    )


def dask_setup(worker: Any) -> None:
    """In each worker of a `local:N` cluster (a dask preload): ignore Ctrl-C, which the
    terminal sends to the whole process group (`compare` stops them itself when it ends), and
    log nothing onto the terminal's stderr."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    quiet_dask()


def quiet_dask() -> None:
    """Silence dask's loggers in this process (each configured one and their parent): for a
    command whose own lines say what went wrong."""
    import distributed  # noqa: F401  (its import sets the loggers' levels: first)

    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] == "distributed"]
    for name in {"distributed", *names}:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
