"""Where the band kernel's cold call goes: the same calls back to back, with work between, or
of one puzzle again.

`python benchmarks/native.py --tdoku` times each puzzle once a pass, a `backend.solve` and
`timed_call`'s Python between two kernel calls; the same puzzle's call repeated is about twice
as fast on top95. This splits the difference, in one process, on this revision's kernel (the
kept library `native` loads, called as `backend.solve` calls it: the state's head and givens
written, then the bound entry), each a mean us a call over a file's puzzles:

- a numba loop calling `native_band.search` over the file, nothing between two calls;
- the library called over the file from Python, untimed, nothing between but writing the
  state (the pass's time less the best of the writes alone);
- the library timed call by call (`perf_counter_ns`, the empty region's time taken off), with
  between two calls: nothing; `backend.solve` of the puzzle (the benchmark's pattern); Python
  that does not call the kernel (`Grid.parse`, `str`, `is_valid`, `conflicts`); a 4 MB
  `memset` (the caches cooled, the branch predictor's history kept);
- each puzzle's call repeated 30 times, its best kept.

Each pass is run `--passes` times, the patterns alternated; printed the best and the median.

    python benchmarks/band_cold.py
    python benchmarks/band_cold.py --collection 17clue --limit 2 --passes 9

With `--pattern tight|between|same` it only makes the library's calls once over the file
(`same`: ten calls a puzzle), untimed, for valgrind; build the kept library for a CPU valgrind
runs (no AVX-512) in a cache of its own first, then count the entry's events alone:

    export NUMBA_CACHE_DIR=DIR NUMBA_CPU_NAME=skylake NUMBA_CPU_FEATURES=+bmi2
    python -c "from sudokubench.solvers import native; native.warm()"
    valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes --collect-atstart=no \\
        --toggle-collect='*native_band5entry*' python benchmarks/band_cold.py --pattern between
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.grid import Grid, Shape
from sudokubench.solvers import native

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    """Time the patterns (or make one pattern's calls for valgrind)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", default="top95")
    parser.add_argument("--limit", type=int, default=1)
    parser.add_argument("--passes", type=int, default=15)
    parser.add_argument("--pattern", choices=("tight", "between", "same"))
    args = parser.parse_args()
    grids = [r.puzzle for r in read_puzzles(collection_path(args.collection))]
    lines = [str(g) for g in grids]
    digits = [g.digit_bytes() for g in grids]
    backend = native.Native()
    backend.solve(grids[0], limit=args.limit)  # loads the kernel and fills the shared run
    lane = native.lane(Shape(3, 3))
    assert lane is not None
    state, head = lane.state, lane.heads[args.limit]
    head_end, givens_end = lane.head_end, lane.givens_end
    _, _, arguments, entry = lane.prepared[args.limit]

    def python_between(i: int) -> None:
        grid = Grid.parse(lines[i])
        str(grid)
        grid.is_valid()
        grid.conflicts()

    if args.pattern is not None:
        repeat = 10 if args.pattern == "same" else 1
        for i, given in enumerate(digits):
            for _ in range(repeat):
                state[:head_end] = head
                state[head_end:givens_end] = given
                entry(*arguments)
            if args.pattern == "between":
                python_between(i)
        return

    import numpy as np
    from native_versions import kernel_loop
    from numba import njit

    from sudokubench.solvers import native_band, native_band_layout

    loop = kernel_loop(njit, native_band.search, native_band.NODES)
    layout = native_band_layout
    work = np.zeros(layout.work_size(1), dtype=np.int64)
    work[layout.TABLE_AT : layout.ROWS_AT].view(np.int32)[: layout.TABLE_SIZE] = (
        native_band.band_tables()
    )
    states = np.stack([native_band.state(d, 1, args.limit, 10**9, False) for d in digits])
    scratch = states[0].copy()
    loop(work, states, scratch)
    clock = time.perf_counter_ns
    count = len(digits)
    junk = np.zeros(4 << 20, dtype=np.uint8)

    def numba_loop() -> float:
        start = clock()
        loop(work, states, scratch)
        return (clock() - start) / count / 1e3

    def writes(call: bool) -> float:
        start = clock()
        for given in digits:
            state[:head_end] = head
            state[head_end:givens_end] = given
            if call:
                entry(*arguments)
        return (clock() - start) / count / 1e3

    def empty_region() -> int:
        start = clock()
        return clock() - start

    empty = min(empty_region() for _ in range(2000)) / 1e3

    def timed(between: Callable[[int], object] | None) -> float:
        total = 0
        for i, given in enumerate(digits):
            state[:head_end] = head
            state[head_end:givens_end] = given
            start = clock()
            entry(*arguments)
            total += clock() - start
            if between is not None:
                between(i)
        return total / count / 1e3 - empty

    patterns: dict[str, Callable[[], float]] = {
        "numba loop, back to back": numba_loop,
        "library from Python, back to back": lambda: writes(True),
        "(the state's writes alone)": lambda: writes(False),
        "library timed, nothing between": lambda: timed(None),
        "library timed, backend.solve between": lambda: timed(
            lambda i: backend.solve(grids[i], limit=args.limit)
        ),
        "library timed, Python between": lambda: timed(python_between),
        "library timed, 4 MB memset between": lambda: timed(lambda i: junk.fill(1)),
    }
    times: dict[str, list[float]] = {title: [] for title in patterns}
    for _ in range(args.passes):
        for title, run in patterns.items():
            times[title].append(run())
    same = []
    for given in digits:
        best = float("inf")
        for _ in range(30):
            state[:head_end] = head
            state[head_end:givens_end] = given
            start = clock()
            entry(*arguments)
            best = min(best, clock() - start)
        same.append(best / 1e3 - empty)
    print(
        f"{args.collection} limit {args.limit}, load {os.getloadavg()[0]:.1f}; us a call, best "
        f"and median of {args.passes} passes (the empty timed region, {empty:.3f} us, taken off)"
    )
    alone = times.pop("(the state's writes alone)")
    for title, taken in times.items():
        if title == "library from Python, back to back":  # the writes' best and median off
            taken = [t - min(alone) for t in taken]
        print(f"  {title:<40} {min(taken):6.2f} {statistics.median(taken):6.2f}")
    print(f"  {'each puzzle 30 times, its best':<40} {statistics.fmean(same):6.2f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
