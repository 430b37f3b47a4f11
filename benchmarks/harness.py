"""Harness throughput: the backend called directly in a loop vs `compare --jobs 1` and `--jobs 2`.

    python benchmarks/harness.py                 # 5,000 puzzles of 17clue, 3 rounds
    python benchmarks/harness.py --count 0       # all 49,158 puzzles (slow)
    python benchmarks/harness.py --count 1000 --rounds 1 --backend dlx

Every round measures the three side by side (direct, jobs 1, jobs 2) on the same puzzles, so
machine noise hits all three; the medians over the rounds and their ratios are printed, with
the load average (other programs running on the same CPUs make both ratios worse).
`compare` is timed end to end through its Python API (planning, worker start-up, checking
every answer with `is_solution`, cross-checking, SQLite writes, the final report), with
`--limit 2` like the direct loop. Targets: jobs 1 at least 70% of the direct loop's throughput;
jobs 2 at least 1.7x jobs 1 on a 2-core machine.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import tempfile
import time
from pathlib import Path

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.harness import CompareArgs, compare
from sudokubench.solvers import get_backend


def _load() -> str:
    """The 1-minute load average (the CPUs' queue beside this benchmark)."""
    return f"{os.getloadavg()[0]:.1f}"


def direct(backend_name: str, puzzles: list, limit: int, timeout: float) -> float:
    """Seconds to solve every puzzle by calling the backend in a loop, in this process."""
    backend = get_backend(backend_name)
    start = time.perf_counter()
    for puzzle in puzzles:
        backend.solve(puzzle, limit=limit, timeout=timeout)
    return time.perf_counter() - start


def harness(path: Path, backend_name: str, jobs: int, limit: int, timeout: float) -> float:
    """Seconds for a whole `compare` run of the file through the harness."""
    with tempfile.TemporaryDirectory() as tmp:
        args = CompareArgs(
            files=(str(path),), backends=(backend_name,), limit=limit, timeout=timeout, jobs=jobs
        )
        start = time.perf_counter()
        report = compare(args, db=Path(tmp) / "bench.sqlite")
        elapsed = time.perf_counter() - start
    assert len(report.tasks) == len(report.puzzles), "tasks are missing"
    if not report.ok:
        print(f"  note: {report.disagreement_count} puzzles with a wrong answer or disagreement")
    return elapsed


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000, help="puzzles (0: all of 17clue)")
    parser.add_argument("--backend", default="fast", help="the backend to run (default: fast)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the three runs")
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    opts = parser.parse_args()

    records = read_puzzles(collection_path("17clue"))
    if opts.count:
        records = itertools.islice(records, opts.count)
    puzzles = [r.puzzle for r in records]
    n = len(puzzles)
    print(
        f"{n} puzzles of 17clue, backend {opts.backend}, limit {opts.limit}, "
        f"{opts.rounds} rounds, {os.cpu_count()} CPUs, load average {_load()}"
    )
    times: dict[str, list[float]] = {"direct": [], "jobs 1": [], "jobs 2": []}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "17clue.txt"
        path.write_text("".join(f"{p}\n" for p in puzzles), encoding="utf-8")
        for r in range(opts.rounds):
            times["direct"].append(direct(opts.backend, puzzles, opts.limit, opts.timeout))
            times["jobs 1"].append(harness(path, opts.backend, 1, opts.limit, opts.timeout))
            times["jobs 2"].append(harness(path, opts.backend, 2, opts.limit, opts.timeout))
            shown = ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items())
            print(f"round {r + 1}: {shown}")
    medians = {k: statistics.median(v) for k, v in times.items()}
    print()
    print(f"{'run':<8} {'median s':>9} {'puzzles/s':>10}  {'all rounds (s)'}")
    for k, v in times.items():
        rounds = " ".join(f"{x:.2f}" for x in v)
        print(f"{k:<8} {medians[k]:>9.2f} {n / medians[k]:>10.0f}  {rounds}")
    jobs1 = medians["direct"] / medians["jobs 1"]
    jobs2 = medians["jobs 1"] / medians["jobs 2"]
    print()
    print(f"jobs 1 throughput / direct loop: {jobs1:.0%}  (target >= 70%)")
    print(f"jobs 2 throughput / jobs 1:      {jobs2:.2f}x (target >= 1.7x)")
    print(f"load average at the end: {_load()} (other programs share the CPUs)")


if __name__ == "__main__":
    main()
