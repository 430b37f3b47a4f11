"""Harness throughput: the backend called directly in a loop vs `compare --jobs 1` and `--jobs 2`.

    python benchmarks/harness.py                 # all 49,158 puzzles of 17clue, 3 rounds (~5 min)
    python benchmarks/harness.py --count 5000 --rounds 5     # a quicker look
    python benchmarks/harness.py --count 1000 --rounds 1 --backend dlx
    python benchmarks/harness.py --cluster local:2   # a dask cluster's run beside jobs 1 and 2

With `--cluster ADDRESS` a fifth contender runs `compare` on that dask cluster (`local:N`
starts one here), connected once before the rounds and warmed with one discarded run: a
cluster is started once and serves many runs, so its start-up is printed apart and the rounds
compare the runs. Its target is the one of `--jobs 2`: the run's own wall time
(`machine.noise.wall_s`) at least 1.8x faster than `--jobs 1`'s. Its CPU a task is printed
for this process (the run, dask's client, a local cluster's scheduler) and, for `local:N`,
for the cluster's processes (its dask workers and their pools' workers).

With `--backend lib:PATH` the direct loop calls the library without a timeout, as a worker
does (with one, each call would fork a child: `forks_for_timeout`).

All three start from the same file of puzzle lines: the direct loop reads a line, parses it and
calls `backend.solve` in this process, as a script of one's own would (the backend loaded and
called once first: native's kernel is not timed). Every round measures the four side by side
(direct, jobs 1, jobs 2, the command) on the same puzzles, so
machine noise hits all three; the medians over the rounds and their ratios are printed, with
the load average (other programs running on the same CPUs make both ratios worse) and the CPU
seconds each used (this process plus the workers, read from /proc on Linux), which the other
load moves far less than wall time.
`compare` is timed end to end through its Python API (planning, worker start-up, checking
every answer with `is_solution`, cross-checking, SQLite writes, the final report), with
`--limit 2` like the direct loop. Targets: jobs 1 at least 80% of the direct loop's throughput;
jobs 2 at least 1.7x jobs 1 on a 2-core machine.

The issue's targets are printed last: the jobs 2 run's own wall time (`machine.noise.wall_s`,
the run from its start to its end) over the direct loop (<= 1.5x), the whole `sudokubench
compare --jobs 2` command, start-up included (`command`, run as a program), over the direct loop
(<= 3x), and the parent's CPU per task with --jobs 2 (<= 10 us).

Every run pays a fixed 0.2-0.3 s on top of its puzzles (the fork server and workers starting,
the final report), so on a short run the ratios are lower: on 5,000 puzzles the fixed part is
about a fifth of a jobs 2 run. The default is the whole collection, as a throughput is meant.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from _common import Rounds, descendants_cpu, harness_setup, load_average, process_cpu

from sudokubench.grid import Grid
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import LocalPool, Outcome, Task
from sudokubench.harness.pool.batch import Batch
from sudokubench.solvers import get_backend

#: CPU seconds of the parent (this process) in each harness run, by --jobs.
PARENT_CPU: dict[int, list[float]] = {}
#: CPU seconds of a `local:N` cluster's processes (dask workers, their pools) in each run.
CLUSTER_CPU: list[float] = []
#: The run's own wall seconds (`machine.noise.wall_s`: the run's start to its end, without
#: the planning before it and the report after), by --jobs (0: the `--cluster` run).
RUN_WALL: dict[int, list[float]] = {}


class MeasuredPool:
    """A LocalPool that adds up its workers' CPU seconds just before it closes them."""

    def __init__(self, jobs: int, backend: str) -> None:
        self.pool = LocalPool(jobs=jobs, preload=(backend,))  # as compare's default pool
        self.worker_cpu = 0.0

    def prepare(self, backends: Sequence[str]) -> list[dict[str, Any]]:
        """The pool's description of this machine."""
        return self.pool.prepare(backends)

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """The pool's outcomes."""
        return self.pool.run(tasks)

    def run_batches(self, tasks: Iterable[Task]) -> Iterator[list[Outcome]]:
        """The pool's outcomes in its lists (what `compare` takes from another executor)."""
        return self.pool.run_batches(tasks)

    def run_columns(self, tasks: Iterable[Task]) -> Iterator[list[Outcome] | Batch]:
        """The pool's batches as its workers sent them (what `compare` takes from it)."""
        return self.pool.run_columns(tasks)

    def close(self) -> None:
        """Read the workers' CPU time, then stop them."""
        self.worker_cpu += sum(process_cpu(w.process.pid) for w in self.pool._workers)
        self.pool.close()


def direct(backend_name: str, path: Path, limit: int, timeout: float) -> tuple[float, float]:
    """Wall and CPU seconds to read the file's puzzles and solve each in a loop here. A backend
    that `forks_for_timeout` (a `lib:` library) is called without a timeout, as a worker calls
    it: a forked child a puzzle would be the loop's cost, not the solver's."""
    backend = get_backend(backend_name)
    per_call = None if backend.forks_for_timeout else timeout
    with open(path, encoding="utf-8") as lines:  # loaded and warm (native: its kernel) first
        backend.solve(Grid.parse(next(lines)), limit=limit, timeout=per_call)
    cpu, start = time.process_time(), time.perf_counter()
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            backend.solve(Grid.parse(line), limit=limit, timeout=per_call)
    return time.perf_counter() - start, time.process_time() - cpu


def harness(
    path: Path, backend_name: str, jobs: int, limit: int, timeout: float
) -> tuple[float, float]:
    """Wall and CPU seconds (this process and the workers) of a whole `compare` run."""
    with tempfile.TemporaryDirectory() as tmp:
        args = CompareArgs(
            files=(str(path),), backends=(backend_name,), limit=limit, timeout=timeout, jobs=jobs
        )
        pool = MeasuredPool(jobs, backend_name)
        cpu, start = time.process_time(), time.perf_counter()
        report = compare(args, db=Path(tmp) / "bench.sqlite", executor=pool)
        elapsed = time.perf_counter() - start
        parent = time.process_time() - cpu
        pool.close()  # compare leaves an executor it was given open
    assert len(report.tasks) == len(report.puzzles), "tasks are missing"
    if not report.ok:
        print(f"  note: {report.disagreement_count} puzzles with a wrong answer or disagreement")
    PARENT_CPU.setdefault(jobs, []).append(parent)
    RUN_WALL.setdefault(jobs, []).append(report.run.machine["noise"]["wall_s"])
    return elapsed, parent + pool.worker_cpu


def on_cluster(
    path: Path, backend_name: str, executor: Any, limit: int, timeout: float
) -> tuple[float, float]:
    """Wall seconds of a whole `compare` run on a dask cluster (already connected) and the CPU
    seconds of this process (with a local scheduler's thread in it); a `local:N` cluster's
    processes (its dask workers and their pools' workers, this process's descendants) are
    counted apart (`CLUSTER_CPU`), a remote cluster's not at all."""
    with tempfile.TemporaryDirectory() as tmp:
        args = CompareArgs(
            files=(str(path),), backends=(backend_name,), limit=limit, timeout=timeout
        )
        before = descendants_cpu()
        cpu, start = time.process_time(), time.perf_counter()
        report = compare(args, db=Path(tmp) / "cluster.sqlite", executor=executor)
        elapsed = time.perf_counter() - start
        parent = time.process_time() - cpu
        after = descendants_cpu()
    assert len(report.tasks) == len(report.puzzles), "tasks are missing"
    RUN_WALL.setdefault(0, []).append(report.run.machine["noise"]["wall_s"])
    PARENT_CPU.setdefault(0, []).append(parent)
    CLUSTER_CPU.append(sum(t - before.get(p, 0.0) for p, t in after.items()))
    return elapsed, parent


def connect(address: str, path: Path, backend_name: str, limit: int, timeout: float) -> Any:
    """A dask executor on `address`, warmed with one discarded run of the file's first puzzle."""
    from sudokubench.harness.pool import DaskExecutor

    start = time.perf_counter()
    executor = DaskExecutor.connect(address, timeout=60)
    with tempfile.TemporaryDirectory() as tmp:
        first = Path(tmp) / "first.txt"
        first.write_text(path.read_text(encoding="utf-8").split("\n", 1)[0] + "\n")
        on_cluster(first, backend_name, executor, limit, timeout)
    RUN_WALL.pop(0)
    PARENT_CPU.pop(0)
    CLUSTER_CPU.clear()
    print(f"cluster {address}: connected and warmed in {time.perf_counter() - start:.1f} s")
    return executor


def command(
    path: Path, backend_name: str, jobs: int, limit: int, timeout: float
) -> tuple[float, float]:
    """Wall seconds of the whole `sudokubench compare` command (start-up included), and the
    CPU seconds of the command's own process (its workers are the fork server's children).

    The command runs as an installed one does: Python reads its modules' bytecode (`pip
    install` writes it; a first run of a checkout writes it to `__pycache__`), so a
    PYTHONDONTWRITEBYTECODE in this shell is not passed on: with it, every run would compile
    the package's modules from source again (about 0.2 s of CPU), which no user's command
    does. `main` runs the command once, untimed, before the rounds."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "sudokubench", "compare", str(path), "-b", backend_name]
        argv += ["--jobs", str(jobs), "--limit", str(limit), "--timeout", str(timeout)]
        argv += ["--db", str(Path(tmp) / "command.sqlite"), "-q"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> None:
    """Measure and print the table."""
    opts, puzzles = harness_setup(__doc__, count=0, rounds=3, cluster=True)
    n = len(puzzles)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "17clue.txt"
        path.write_text("".join(f"{p}\n" for p in puzzles), encoding="utf-8")
        runs = {
            "direct": lambda: direct(opts.backend, path, opts.limit, opts.timeout),
            "jobs 1": lambda: harness(path, opts.backend, 1, opts.limit, opts.timeout),
            "jobs 2": lambda: harness(path, opts.backend, 2, opts.limit, opts.timeout),
            "command": lambda: command(path, opts.backend, 2, opts.limit, opts.timeout),
        }
        cluster = None
        if opts.cluster:
            cluster = connect(opts.cluster, path, opts.backend, opts.limit, opts.timeout)
            runs["cluster"] = lambda: on_cluster(
                path, opts.backend, cluster, opts.limit, opts.timeout
            )
        command(path, opts.backend, 2, opts.limit, opts.timeout)  # (its bytecode written)
        try:
            table = Rounds(runs).run(opts.rounds)
        finally:
            if cluster is not None:
                cluster.close()
    table.print_table(n)
    jobs1 = table.median("direct") / table.median("jobs 1")
    jobs2 = table.median("jobs 1") / table.median("jobs 2")
    cpu_direct, cpu_jobs1 = table.median_cpu("direct"), table.median_cpu("jobs 1")
    extra = (cpu_jobs1 - cpu_direct) / n * 1e6
    print(
        f"jobs 1 throughput / direct loop: {jobs1:.0%}  (target >= 80%; median of the "
        f"rounds' own ratios {table.paired('direct', 'jobs 1'):.0%})"
    )
    print(
        f"jobs 2 throughput / jobs 1:      {jobs2:.2f}x (target >= 1.7x; median of the "
        f"rounds' own ratios {table.paired('jobs 1', 'jobs 2'):.2f}x)"
    )
    print(
        f"CPU: direct {cpu_direct:.2f} s, jobs 1 {cpu_jobs1:.2f} s "
        f"({extra:.0f} us more per puzzle: workers, checking, storing, reporting)"
    )
    parent = {j: statistics.median(v) for j, v in PARENT_CPU.items()}
    print(
        f"of which the parent (plan, check, store, report): jobs 1 {parent[1]:.2f} s "
        f"({parent[1] / n * 1e6:.0f} us per puzzle), jobs 2 {parent[2]:.2f} s"
    )
    run2 = statistics.median(RUN_WALL[2]) / table.median("direct")
    whole = table.median("command") / table.median("direct")
    print(
        f"jobs 2 run (machine.noise.wall_s) / direct loop: {run2:.2f}x (target <= 1.5x); "
        f"the whole command (--jobs 2) / direct loop: {whole:.2f}x (target <= 3x)"
    )
    print(f"parent CPU per task, jobs 2: {parent[2] / n * 1e6:.1f} us (target <= 10 us)")
    runs1 = statistics.median(RUN_WALL[1])
    print(
        f"runs' own wall time (machine.noise.wall_s): jobs 1 / jobs 2 "
        f"{runs1 / statistics.median(RUN_WALL[2]):.2f}x (target >= 1.8x)"
        + (
            f", jobs 1 / cluster {runs1 / statistics.median(RUN_WALL[0]):.2f}x (target >= 1.8x)"
            if 0 in RUN_WALL
            else ""
        )
    )
    if 0 in PARENT_CPU:
        print(
            f"cluster: this process (the run, dask's client and a local scheduler) "
            f"{statistics.median(PARENT_CPU[0]) / n * 1e6:.1f} us of CPU a task, a local "
            f"cluster's processes {statistics.median(CLUSTER_CPU) / n * 1e6:.1f} us "
            f"(jobs 2: the parent {parent[2] / n * 1e6:.1f} us)"
        )
    print(f"load average at the end: {load_average()} (other programs share the CPUs)")


if __name__ == "__main__":
    main()
