"""The timing floor: what `compare --jobs 1` reports on 9x9 grids that are already solved.

A solved grid leaves a solver nothing to search, so its time is what the timing rule (see
`sudokubench.backend`) still charges: the solving call itself. One run:

1. makes `--grids` solved grids: the first puzzles of 17clue, solved with `native` (or `fast`
   without numba), each checked with `is_solution`, written to a temporary file;
2. runs `sudokubench compare FILE --jobs 1 --limit 1 --json` on them `--rounds` times, all the
   backends together (the harness interleaves them puzzle by puzzle), and prints each round's
   median time per backend, the median over the rounds and its ratio to the first backend;
3. in this process, for each backend, the medians of the three phases through
   `backend.timed_call` (prepare = `encode_s`, run = the timed region, answer) and of a whole
   `backend.solve`, interleaved puzzle by puzzle.

    python benchmarks/timing.py                                  # native and fast
    python benchmarks/timing.py --backends native,fast,lib:./libtdoku.so --rounds 5

Times are wall microseconds; on a shared machine read the ratios (measured side by side) and
quote the load average printed with them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sudokubench import Grid, get_backend, is_solution
from sudokubench.backend import timed_call
from sudokubench.formats import collection_path, read_puzzles

#: The issue's targets, median microseconds on solved 9x9 grids through `compare --jobs 1`.
TARGETS_US = {"native": 3.0, "lib": 1.5}


def solved_grids(count: int) -> list[Grid]:
    """The solutions of the first `count` puzzles of 17clue, checked."""
    name = "native" if get_backend("native").available() else "fast"
    backend = get_backend(name)
    grids = []
    for record in itertools.islice(read_puzzles(collection_path("17clue")), count):
        solution = backend.solve(record.puzzle).solution
        if solution is None or not is_solution(solution, record.puzzle):
            sys.exit(f"{name} did not solve {record.puzzle}")
        grids.append(solution)
    return grids


def compare_medians(path: Path, backends: str, db: Path) -> dict[str, float]:
    """One `compare --jobs 1` run: each backend's median time, in microseconds."""
    command = [
        *(sys.executable, "-m", "sudokubench", "compare", str(path), "--jobs", "1"),
        *("--limit", "1", "--backends", backends, "--db", str(db), "--json", "-q"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"compare failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    summary = json.loads(done.stdout)["summary"]
    return {name: row["median_s"] * 1e6 for name, row in summary.items()}


def phases(names: list[str], grids: list[Grid]) -> dict[str, tuple[float, float, float]]:
    """Median microseconds of prepare, run and a whole `solve` per backend, interleaved."""
    backends = {name: get_backend(name) for name in names}
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in names}
    for backend in backends.values():
        backend.available()  # loads or compiles what it needs (native: the kernel)
        backend.solve(grids[0])
    for grid in grids:
        for name, backend in backends.items():
            timed = timed_call(backend, grid)
            start = time.perf_counter()
            backend.solve(grid)
            whole = time.perf_counter() - start
            samples[name].append((timed.encode_s, timed.solve_s, whole))
    return {
        name: tuple(statistics.median(s[i] for s in rows) * 1e6 for i in range(3))  # type: ignore[misc]
        for name, rows in samples.items()
    }


def target_of(name: str) -> float | None:
    """The issue's target for a backend name (`lib:...` counts as lib)."""
    return TARGETS_US.get(name.split(":", 1)[0] if name.startswith("lib:") else name)


def main() -> None:
    """Parse the options, measure, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="native,fast", help="comma-separated backends")
    parser.add_argument("--grids", type=int, default=2000, help="solved grids (17clue's)")
    parser.add_argument("--rounds", type=int, default=3, help="compare runs")
    opts = parser.parse_args()
    names = opts.backends.split(",")
    grids = solved_grids(opts.grids)
    print(
        f"{len(grids)} solved 9x9 grids, backends {', '.join(names)}, {opts.rounds} rounds, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "solved.txt")
        path.write_text("".join(f"{g}\n" for g in grids))
        rounds = [
            compare_medians(path, opts.backends, Path(tmp, f"r{i}.sqlite"))
            for i in range(opts.rounds)
        ]
    print("\ncompare --jobs 1 --limit 1, median us per puzzle:")
    print(f"{'backend':<12} {'rounds':<28} {'median':>7} {'ratio':>6} {'target':>6}")
    first = statistics.median(r[names[0]] for r in rounds)
    for name in names:
        values = [r[name] for r in rounds]
        median = statistics.median(values)
        target = target_of(name)
        shown = " ".join(f"{v:.2f}" for v in values)
        print(
            f"{name:<12} {shown:<28} {median:7.2f} {median / first:6.2f} "
            f"{'' if target is None else f'<= {target:g}':>6}"
        )
    print(f"\nin this process, median us (load average {os.getloadavg()[0]:.1f}):")
    print(f"{'backend':<12} {'prepare':>8} {'run':>8} {'solve()':>8}")
    for name, (prepare, run, whole) in phases(names, grids).items():
        print(f"{name:<12} {prepare:8.2f} {run:8.2f} {whole:8.2f}")


if __name__ == "__main__":
    main()
