"""`native` side by side with `fast` and `norvig`: the numbers of docs/benchmarks.md.

One run prints:

1. Solving (limit 1) through the backend contract, `backend.solve(grid, limit=1)`, conversion
   from and to `Grid` included: mean and median microseconds per puzzle on top1465, top95,
   17clue and hexadoku1500. `native` solves every puzzle (17clue: the first `--clues`);
   `fast` and `norvig` solve every `--step`-th puzzle, interleaved puzzle by puzzle with
   `native` on the same puzzle so machine noise hits all alike, and the ratio is taken on
   those shared puzzles (mean over mean). A puzzle's time is the best of `--repeat` solves
   (3): on a shared machine one preempted solve would otherwise weigh more than hundreds of
   undisturbed ones in a mean. Every solution is checked with `is_solution`.
2. Uniqueness (limit 2) of all 49,158 17-clue puzzles with `native`: total seconds.
3. Counting with `count_all` (no grid built per solution): the 6x6 grid with only its first
   row given (39,168 solutions) in solutions per second, and every 6x6 grid from the empty
   one (28,200,960), exact.
4. The first-call cost: `warm()` in a fresh process with an empty numba cache (compiling) and
   with the cache filled (loading), each in a subprocess.

    python benchmarks/native.py                 # everything (about 2 minutes)
    python benchmarks/native.py --quick         # smaller samples, no 6x6 enumeration
    python benchmarks/native.py --collections hexadoku1500 --no-counts
    python benchmarks/native.py --tdoku PATH    # only the targets: side by side with tdoku

With `--tdoku` (a tdoku checkout, built with cmake once, or its run_benchmark) the run is only
the targets of the native issue: `native` against tdoku's run_benchmark on top1465, 17clue
(the first `--clues`) and top95 at limits 1 and 2 (`_tdoku.py`), then the rate of the API's
`count(..., keep=1)` on the 6x6 grid with its first row given.

Times are wall seconds (`time.perf_counter`) and CPU seconds of this process; on a shared
machine read the ratios, measured side by side, rather than the absolute numbers.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

from _tdoku import compare_tdoku

from sudokubench import Grid, Shape, get_backend, is_solution
from sudokubench.api import count as api_count
from sudokubench.backend import Backend
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.solvers.native import warm

COLLECTIONS = ("top1465", "top95", "17clue", "hexadoku1500")
PEERS = ("fast", "norvig")


def best_of(backend: Backend, puzzle: Grid, repeat: int) -> float:
    """The fastest of `repeat` solves at limit 1, in seconds; exits on a wrong answer."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = backend.solve(puzzle, limit=1)
        best = min(best, time.perf_counter() - start)
    if result.count != 1 or not is_solution(result.solutions[0], puzzle):
        sys.exit(f"{backend.name} failed on {puzzle}: {result.status}")
    return best


def solve_times(name: str, count: int | None, step: int, repeat: int) -> None:
    """Mean and median us per puzzle at limit 1: native on all, the peers on every step-th."""
    puzzles = [r.puzzle for r in itertools.islice(read_puzzles(collection_path(name)), count)]
    native = get_backend("native")
    peers = [get_backend(p) for p in PEERS if get_backend(p).practical_n >= puzzles[0].n]
    times: dict[str, list[float]] = {"native": [], "native@sample": []}
    times.update({p.name: [] for p in peers})
    cpu = time.process_time()
    for i, puzzle in enumerate(puzzles):
        times["native"].append(best_of(native, puzzle, repeat))
        if i % step == 0:
            times["native@sample"].append(times["native"][-1])
            for peer in peers:
                times[peer.name].append(best_of(peer, puzzle, repeat))
    cpu = time.process_time() - cpu
    sample = times["native@sample"]
    print(f"\n{name}: {len(puzzles)} puzzles (peers on every {step}th: {len(sample)})")
    print(f"  {'backend':<16} {'puzzles':>7} {'mean us':>10} {'median us':>10} {'x native':>9}")
    for label, values in times.items():
        if not values or label == "native@sample":
            continue
        ratio = statistics.fmean(values) / statistics.fmean(sample)
        print(
            f"  {label:<16} {len(values):>7} {statistics.fmean(values) * 1e6:>10.1f} "
            f"{statistics.median(values) * 1e6:>10.1f} {ratio if label != 'native' else 1:>8.1f}x"
        )
    print(f"  native on the sample: mean {statistics.fmean(sample) * 1e6:.1f} us; cpu {cpu:.1f} s")


def uniqueness_17clue() -> None:
    """Limit 2 on every 17-clue puzzle with native: all unique, total seconds."""
    native = get_backend("native")
    puzzles = [r.puzzle for r in read_puzzles(collection_path("17clue"))]
    start, cpu = time.perf_counter(), time.process_time()
    unique = sum(native.solve(p, limit=2).count == 1 for p in puzzles)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"\n17clue uniqueness (limit 2): {unique}/{len(puzzles)} unique in {wall:.2f} s")
    print(f"  (cpu {cpu:.2f} s)")


def counting(full: bool) -> None:
    """count_all on the 6x6 first-row grid, and on the empty 6x6 grid when `full`."""
    native = get_backend("native")
    shape = Shape(2, 3)
    first_row = Grid(shape, (1, 2, 3, 4, 5, 6) + (0,) * 30)
    best = min((native.count_all(first_row) for _ in range(5)), key=lambda c: c.solve_s)
    print(
        f"\ncount 6x6 with its first row given: {best.count:,} (exact: {best.exhaustive}) "
        f"in {best.solve_s:.4f} s, {best.count / best.solve_s:,.0f} solutions/s (best of 5)"
    )
    if full:
        start = time.process_time()
        every = native.count_all(Grid.empty(shape))
        cpu = time.process_time() - start
        print(
            f"count every 6x6 grid: {every.count:,} (exact: {every.exhaustive}) in "
            f"{every.solve_s:.1f} s (cpu {cpu:.1f} s), {every.count / every.solve_s:,.0f}/s"
        )


def api_count_rate() -> None:
    """The API's `count(..., keep=1)` on the 6x6 first-row grid: solutions/s, best of 5
    (wall time around the call), against the target of 2 million."""
    first_row = Grid(Shape(2, 3), (1, 2, 3, 4, 5, 6) + (0,) * 30)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        found = api_count(first_row, backend="native", limit=10**6, keep=1)
        best = min(best, time.perf_counter() - start)
    if found.count != 39168 or not found.exhaustive:
        sys.exit(f"count() found {found.count} solutions of the 6x6 first row, not 39,168")
    rate = found.count / best
    print(
        f"\ncount(6x6 first row, backend='native', limit=10**6, keep=1): {found.count:,} "
        f"in {best:.4f} s, {rate:,.0f} solutions/s (best of 5; target >= 2,000,000: "
        f"{'met' if rate >= 2e6 else 'not met'})"
    )


def first_call() -> None:
    """warm() in fresh processes: with an empty cache (compile) and then with it (load)."""
    code = "import time; t = time.perf_counter(); from sudokubench.solvers.native import warm; "
    code += "warm(); print(time.perf_counter() - t)"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
            runs.append(float(out.stdout))
    print(
        f"\nfirst call (import + warm) in a fresh process: compile {runs[0]:.1f} s (empty "
        f"cache), load {runs[1]:.2f} s (cache filled)"
    )


def main() -> None:
    """Parse the options and run the sections."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small samples, no 6x6 count")
    parser.add_argument("--step", type=int, default=10, help="peers solve every STEP-th puzzle")
    parser.add_argument("--clues", type=int, default=10000, help="17clue puzzles timed")
    parser.add_argument("--repeat", type=int, default=3, help="solves per puzzle (best kept)")
    parser.add_argument(
        "--collections", default=",".join(COLLECTIONS), help="comma-separated; '' for none"
    )
    parser.add_argument("--no-counts", action="store_true", help="skip sections 2-4")
    parser.add_argument(
        "--tdoku", metavar="PATH", help="only the targets: side by side with tdoku (checkout)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds with --tdoku (best kept)")
    args = parser.parse_args()
    print(f"python {platform.python_version()}, load {os.getloadavg()[0]:.1f}")
    print(f"native warm-up in this process: {warm():.2f} s (not timed below)")
    if args.tdoku:
        files = [("top1465", None), ("17clue", args.clues), ("top95", None)]
        compare_tdoku(args.tdoku, files, args.rounds)
        api_count_rate()
        print(f"load at the end {os.getloadavg()[0]:.1f}")
        return
    quick = args.quick
    for name in filter(None, args.collections.split(",")):
        count = {"17clue": 2000 if quick else args.clues, "top1465": 300 if quick else None}
        solve_times(name, count.get(name, 300 if quick else None), args.step, args.repeat)
    if args.no_counts:
        return
    if not quick:
        uniqueness_17clue()
    counting(not quick)
    first_call()


if __name__ == "__main__":
    main()
