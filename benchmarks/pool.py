"""Worker-pool throughput: a backend called directly in a loop vs `LocalPool` with 1 and 2 jobs.

    python benchmarks/pool.py                        # 2,000 puzzles of 17clue, fast, 3 rounds
    python benchmarks/pool.py --count 500 --backend backtracking --rounds 1

This isolates the executor (worker start-up, batches over pipes, one message back per task,
deadline bookkeeping): no checking, no storage, no report. `benchmarks/harness.py` measures the
whole `compare`. Each round runs the three side by side on the same puzzles, so machine noise
hits all three; medians over the rounds and their ratios are printed. Pool times include
starting the workers (a fresh pool per run), as a `compare` run pays it.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.harness.runner import DEFAULT_BATCH_SIZE, LocalPool, Task
from sudokubench.solvers import get_backend


def direct(backend_name: str, puzzles: list[str], limit: int, timeout: float) -> float:
    """Seconds to solve every puzzle calling the backend in a loop in this process."""
    from sudokubench.formats import parse_grid

    backend = get_backend(backend_name)
    grids = [parse_grid(p) for p in puzzles]
    start = time.perf_counter()
    for grid in grids:
        backend.solve(grid, limit=limit, timeout=timeout)
    return time.perf_counter() - start


def pooled(tasks: list[Task], jobs: int, batch_size: int) -> float:
    """Seconds for a fresh pool of `jobs` workers to run every task."""
    start = time.perf_counter()
    with LocalPool(jobs=jobs, batch_size=batch_size) as pool:
        statuses = [o.status for o in pool.run(tasks)]
    elapsed = time.perf_counter() - start
    # answers are checked elsewhere (compare); here only that every task ran to an answer
    assert len(statuses) == len(tasks) and not {"error", "timeout"} & set(statuses)
    return elapsed


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="puzzles of 17clue")
    parser.add_argument("--backend", default="fast")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    opts = parser.parse_args()

    records = itertools.islice(read_puzzles(collection_path("17clue")), opts.count)
    puzzles = [str(r.puzzle) for r in records]
    tasks = [
        Task(k, f"17clue:{k + 1}", p, None, opts.backend, opts.limit, opts.timeout, 0)
        for k, p in enumerate(puzzles)
    ]
    n = len(puzzles)
    print(
        f"{n} puzzles of 17clue, backend {opts.backend}, limit {opts.limit}, "
        f"batch {opts.batch_size}, {opts.rounds} rounds, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    times: dict[str, list[float]] = {"direct": [], "jobs 1": [], "jobs 2": []}
    for r in range(opts.rounds):
        times["direct"].append(direct(opts.backend, puzzles, opts.limit, opts.timeout))
        times["jobs 1"].append(pooled(tasks, 1, opts.batch_size))
        times["jobs 2"].append(pooled(tasks, 2, opts.batch_size))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()))
    median = {k: statistics.median(v) for k, v in times.items()}
    print(f"{'':8} {'median s':>9} {'puzzles/s':>10}")
    for k, t in median.items():
        print(f"{k:8} {t:9.2f} {n / t:10.0f}")
    print(f"jobs 1 throughput / direct: {median['direct'] / median['jobs 1']:.2f} (target >= 0.70)")
    print(f"jobs 2 throughput / jobs 1: {median['jobs 1'] / median['jobs 2']:.2f} (target >= 1.70)")


if __name__ == "__main__":
    main()
