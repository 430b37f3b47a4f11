"""Helpers shared by `benchmarks/harness.py`, `benchmarks/parent.py` and `benchmarks/pool.py`:
their options and puzzles, CPU seconds of a process, and the side-by-side rounds with their
table of medians.

Every round runs each contender once, so machine noise hits all of them, in turn forwards and
backwards (A B C, C B A, ...) so a drift of the machine's speed does not favour one; the
scripts compare the medians over the rounds, and the median of each round's own ratio (a
pair measured seconds apart, which the machine's slow and fast spells affect least). CPU
seconds (user + system, this process plus any workers) move far less with other load on the
machine than wall time.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
from collections.abc import Callable
from pathlib import Path

from sudokubench.formats import collection_path, read_puzzles

#: A contender: one run, returning its wall seconds and CPU seconds.
Run = Callable[[], tuple[float, float]]


def harness_setup(
    doc: str, *, count: int, rounds: int, cluster: bool = False, outcomes: bool = False
) -> tuple[argparse.Namespace, list[str]]:
    """The command line of the scripts that run `compare` on 17clue (`--count` puzzles, 0 for
    all 49,158, `--backend`, `--rounds`, `--limit`, `--timeout`, and with `cluster` a dask
    `--cluster` address) and the puzzles in line form, after printing what is measured."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--count", type=int, default=count, help="puzzles of 17clue (0: all)")
    parser.add_argument("--backend", default="fast", help="the backend to run (default: fast)")
    parser.add_argument("--rounds", type=int, default=rounds, help="rounds of the runs")
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    if cluster:
        parser.add_argument("--cluster", metavar="ADDRESS", help="also run on this dask cluster")
    if outcomes:
        parser.add_argument(
            "--outcomes",
            action="store_true",
            help="replay the outcomes one by one, not a worker's columnar messages",
        )
        parser.add_argument(
            "--callgrind",
            action="store_true",
            help="run each round in sys.call_tracing (callgrind's --toggle-collect around it)",
        )
    opts = parser.parse_args()
    records = read_puzzles(collection_path("17clue"))
    if opts.count:
        records = itertools.islice(records, opts.count)
    puzzles = [str(r.puzzle) for r in records]
    print(
        f"{len(puzzles)} puzzles of 17clue, backend {opts.backend}, limit {opts.limit}, "
        f"{opts.rounds} rounds, {os.cpu_count()} CPUs, load average {load_average()}"
    )
    return opts, puzzles


def load_average() -> str:
    """The 1-minute load average (the CPUs' queue beside the benchmark)."""
    return f"{os.getloadavg()[0]:.1f}"


def descendants_cpu(pid: int | None = None) -> dict[int, float]:
    """CPU seconds of each live descendant of a process (this one by default), by pid: what
    its children and theirs used so far (Linux's /proc/PID/task/TID/children; empty
    elsewhere)."""
    found: dict[int, float] = {}
    todo = [os.getpid() if pid is None else pid]
    while todo:
        parent = todo.pop()
        for children in Path(f"/proc/{parent}/task").glob("*/children"):
            try:
                kids = [int(k) for k in children.read_text().split()]
            except OSError:  # (the thread or process ended)
                continue
            for kid in kids:
                if kid not in found:
                    found[kid] = process_cpu(kid)
                    todo.append(kid)
    return found


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a live process has used; 0 where /proc is missing."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return 0.0
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Rounds:
    """Wall and CPU seconds of named contenders over several rounds, with their medians."""

    def __init__(self, runs: dict[str, Run]) -> None:
        self.runs = runs
        self.wall: dict[str, list[float]] = {name: [] for name in runs}
        self.cpu: dict[str, list[float]] = {name: [] for name in runs}

    def run(self, rounds: int) -> Rounds:
        """Run every contender once per round, printing each round's line."""
        for r in range(rounds):
            order = list(self.runs.items())
            for name, run in order if r % 2 == 0 else reversed(order):
                wall, cpu = run()
                self.wall[name].append(wall)
                self.cpu[name].append(cpu)
            shown = ", ".join(
                f"{name} {self.wall[name][-1]:.2f} s (cpu {self.cpu[name][-1]:.2f})"
                for name in self.runs
            )
            print(f"round {r + 1}: {shown}")
        return self

    def median(self, name: str) -> float:
        """Median wall seconds of a contender."""
        return statistics.median(self.wall[name])

    def paired(self, slow: str, fast: str) -> float:
        """The median over the rounds of wall[slow] / wall[fast] within each round."""
        pairs = zip(self.wall[slow], self.wall[fast], strict=True)
        return statistics.median(a / b for a, b in pairs)

    def median_cpu(self, name: str) -> float:
        """Median CPU seconds of a contender."""
        return statistics.median(self.cpu[name])

    def print_table(self, items: int, unit: str = "puzzles/s") -> None:
        """Median wall seconds, throughput, median CPU seconds and every round's wall time."""
        print()
        print(f"{'run':<8} {'wall s':>8} {unit:>10} {'cpu s':>7}  all rounds (wall s)")
        for name in self.runs:
            rounds = " ".join(f"{x:.2f}" for x in self.wall[name])
            median = self.median(name)
            print(
                f"{name:<8} {median:>8.2f} {items / median:>10.0f} "
                f"{self.median_cpu(name):>7.2f}  {rounds}"
            )
        print()
