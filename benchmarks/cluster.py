"""`compare` on a dask cluster (`--cluster local:2`) vs a local pool (`--jobs 2`).

    python benchmarks/cluster.py                      # 5,000 17clue puzzles, fast, 5 rounds
    python benchmarks/cluster.py --count 2000 --rounds 3

Three measurements, each side by side in interleaved rounds (machine noise hits both; medians
are printed):

1. Throughput: `compare` on 5,000 17clue puzzles with `fast`, through a LocalPool of 2 workers
   and through a LocalCluster of 2 dask workers on 127.0.0.1. Both executors are made once and
   warmed with one discarded run (a cluster is started once and serves many runs; its start-up
   is printed apart), so a round compares the same work and the difference is the dask path.
2. Per-task overhead of the dask path (parent + scheduler + dask worker), no solving to speak
   of: 4x4 puzzles (microseconds each) through `DaskExecutor.run` and `LocalPool.run`, 2
   workers each, at several fixed batch sizes and the adaptive one; the difference divided by
   the tasks is dask's cost per task.
3. The parent's own cost per task: `compare` fed outcomes that were computed before (an
   executor that replays them), so what remains is planning, storing, cross-checking and the
   report: how many tasks a second one parent can take, hence how many workers it can feed.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from _common import load_average

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import DaskExecutor, Executor, LocalPool, Outcome, Task
from sudokubench.harness.pool.dask import BATCH_SECONDS, FIRST_BATCH, MAX_BATCH


def run_compare(path: Path, executor: Executor, backend: str) -> float:
    """Wall seconds of one whole `compare` run on `executor` (left open)."""
    args = CompareArgs(files=(str(path),), backends=(backend,))
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report = compare(args, db=Path(tmp) / "bench.sqlite", executor=executor)
        elapsed = time.perf_counter() - start
    assert report.ok and len(report.tasks) == len(report.puzzles), "a wrong or missing answer"
    return elapsed


class Replay:
    """An executor that yields outcomes computed before: `compare` on it is the parent alone."""

    def __init__(self, outcomes: Sequence[Outcome], pool: LocalPool) -> None:
        self.by_id = {o.task.task_id: o for o in outcomes}
        self.pool = pool

    def prepare(self, backends: Sequence[str]) -> list[dict[str, Any]]:
        """The pool's description of this machine."""
        return self.pool.prepare(backends)

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """The stored outcome of every task, at once."""
        for t in tasks:
            yield self.by_id[t.task_id]._replace(task=t)

    def run_batches(self, tasks: Iterable[Task]) -> Iterator[list[Outcome]]:
        """`run`'s outcomes in lists of 32, about what a worker's message brings."""
        outcomes = self.run(tasks)
        while batch := list(itertools.islice(outcomes, 32)):
            yield batch

    def close(self) -> None:
        """Nothing to release."""


def throughput(path: Path, n: int, backend: str, rounds: int) -> None:
    """Measurement 1: `compare` through `--jobs 2` and `--cluster local:2`."""
    start = time.perf_counter()
    cluster = DaskExecutor.connect("local:2")
    print(f"LocalCluster of 2 workers started in {time.perf_counter() - start:.2f} s")
    pool = LocalPool(jobs=2, preload=(backend,))
    try:
        for executor in (pool, cluster):  # warm: workers started, backend loaded
            run_compare(path, executor, backend)
        walls: dict[str, list[float]] = {"jobs 2": [], "local:2": []}
        for r in range(rounds):
            walls["jobs 2"].append(run_compare(path, pool, backend))
            walls["local:2"].append(run_compare(path, cluster, backend))
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in walls.items()))
        batches = f"{cluster.sent / max(cluster.batches, 1):.0f} tasks per batch on average"
    finally:
        pool.close()
        cluster.close()
    print(f"\n{'run':<8} {'wall s':>7} {'puzzles/s':>10}  all rounds (wall s)")
    for name, values in walls.items():
        median = statistics.median(values)
        shown = " ".join(f"{x:.2f}" for x in values)
        print(f"{name:<8} {median:>7.2f} {n / median:>10.0f}  {shown}")
    ratio = statistics.median(walls["jobs 2"]) / statistics.median(walls["local:2"])
    paired = sorted(a / b for a, b in zip(walls["jobs 2"], walls["local:2"], strict=True))
    print(
        f"local:2 throughput / jobs 2: {ratio:.0%} of medians (target >= 85%); per round: "
        f"median {statistics.median(paired):.0%}, range {paired[0]:.0%}-{paired[-1]:.0%}; "
        f"{batches}"
    )


def tiny_tasks(count: int) -> list[Task]:
    """`count` tasks on 4x4 puzzles with `fast` (microseconds of solving each)."""
    lines = [str(r.puzzle) for r in read_puzzles(collection_path("shidoku4x4"))]
    return [
        Task(k, f"4x4:{k}", line, None, "fast", 2, 10.0, 0)
        for k, line in zip(range(count), itertools.cycle(lines))
    ]


def timed_run(executor: Executor, tasks: list[Task]) -> float:
    start = time.perf_counter()
    got = sum(1 for o in executor.run(tasks) if o.status in ("solved", "unsatisfiable"))
    assert got == len(tasks), "a tiny task failed"
    return time.perf_counter() - start


def overhead(rounds: int) -> None:
    """Measurement 2: dask's cost per task at fixed batch sizes and the adaptive one."""
    print(f"\nper-task overhead: 4x4 puzzles with fast, 2 workers each, {rounds} rounds")
    print(f"{'batch':>9} {'tasks':>6} {'pool us/task':>13} {'dask us/task':>13} {'overhead':>9}")
    with LocalPool(jobs=2, preload=("fast",)) as pool:
        timed_run(pool, tiny_tasks(100))
        for size in (1, 16, 256, None):
            n = 20_000 if size is None or size >= 256 else 400 * size
            tasks = tiny_tasks(n)
            with DaskExecutor.connect("local:2", batch_size=size) as cluster:
                timed_run(cluster, tiny_tasks(100))  # the dask workers' pools started
                pool_s, dask_s = [], []
                for _ in range(rounds):
                    pool_s.append(timed_run(pool, tasks))
                    before = (cluster.batches, cluster.sent)
                    dask_s.append(timed_run(cluster, tasks))
                mean_batch = (cluster.sent - before[1]) / (cluster.batches - before[0])
            p, d = statistics.median(pool_s) / n * 1e6, statistics.median(dask_s) / n * 1e6
            name = f"{size}" if size is not None else f"auto~{mean_batch:.0f}"
            print(f"{name:>9} {n:>6} {p:>13.1f} {d:>13.1f} {d - p:>7.1f}us")
    print(
        f"(auto: first batches of {FIRST_BATCH}, then about {BATCH_SECONDS:g} s of work each, "
        f"at most {MAX_BATCH}, at most a quarter of what is left per worker)"
    )


def parent_cost(path: Path, n: int, backend: str, rounds: int) -> None:
    """Measurement 3: the parent alone (plan, store, cross-check, report) per task."""
    args = CompareArgs(files=(str(path),), backends=(backend,))
    with LocalPool(jobs=2, preload=(backend,)) as pool, tempfile.TemporaryDirectory() as tmp:
        report = compare(args, db=Path(tmp) / "first.sqlite", executor=pool)
        outcomes = []
        with LocalPool(jobs=2) as again:  # the outcomes themselves, as an executor gives them
            from sudokubench.harness.plan import plan

            outcomes = list(again.run(plan(args, report.puzzles)))
        worker_s = statistics.fmean(o.wall_s for o in outcomes)
        replay = Replay(outcomes, pool)
        walls = []
        for r in range(rounds):
            start = time.perf_counter()
            compare(args, db=Path(tmp) / f"replay{r}.sqlite", executor=replay)
            walls.append(time.perf_counter() - start)
    per_task = statistics.median(walls) / n
    print(
        f"\nparent alone (plan, store, cross-check, report), {n} tasks, {rounds} rounds: "
        f"{per_task * 1e6:.0f} us per task (median), {1 / per_task:,.0f} tasks/s"
    )
    print(
        f"{backend} takes {worker_s * 1e6:.0f} us per 17clue puzzle in a worker: one parent "
        f"feeds about {worker_s / per_task:.0f} such workers; a backend taking 10 ms, about "
        f"{0.010 / per_task:.0f}"
    )


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000, help="17clue puzzles (5,000)")
    parser.add_argument("--backend", default="fast")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip", default="", help="comma-separated: throughput,overhead,parent")
    opts = parser.parse_args()
    skip = set(opts.skip.split(","))
    records = itertools.islice(read_puzzles(collection_path("17clue")), opts.count)
    lines = [str(r.puzzle) for r in records]
    n = len(lines)
    print(f"{n} puzzles of 17clue, backend {opts.backend}, load average {load_average()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "17clue.txt"
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        if "throughput" not in skip:
            throughput(path, n, opts.backend, opts.rounds)
        if "overhead" not in skip:
            overhead(max(1, opts.rounds // 2))
        if "parent" not in skip:
            parent_cost(path, n, opts.backend, opts.rounds)
    print(f"load average at the end: {load_average()} (other programs share the CPUs)")


if __name__ == "__main__":
    main()
