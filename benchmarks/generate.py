"""Generator and rater benchmark: puzzles per second, the two uniqueness proofs, level mixes.

Run from the repository root (one process, one core):

    python benchmarks/generate.py                 # the numbers of docs/benchmarks.md
    python benchmarks/generate.py --quick         # a smoke run in a few seconds

What it measures, side by side in one run:

1. Digging 9x9 puzzles with the "exclude" and the "count" uniqueness proofs (see
   `sudokubench/generate/digging.py`), alternating rounds on the same seeds, so both dig exactly
   the same puzzles: median puzzles per CPU second over the rounds, the IQR, and the ratio.
2. The same comparison on 16x16 (full digs, a few puzzles).
3. End to end as `sudokubench generate` does it (dig + rate, default proof): puzzles/s, hard
   or harder puzzles/s, and the distribution of levels over `--count` puzzles. Rates are given
   per wall-clock second and per CPU second of this process (the machine may be shared).
4. The levels of the shipped top95 and easy50 collections as rated, and the rating time.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.generate.batch import Request, generate_puzzles
from sudokubench.generate.digging import DigCounters, make_puzzle
from sudokubench.generate.rating import Level, rate
from sudokubench.grid import shape_of
from sudokubench.solvers import DEFAULT_BACKEND, get_backend


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """(q1, median, q3); with fewer than two values all three are the value."""
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def dig_rate(box: int, method: str, seeds: range, backend: str) -> tuple[float, DigCounters]:
    """Puzzles per CPU second (of this process) digging one puzzle per seed with `method`."""
    counters = DigCounters()
    shape = shape_of(box, box)
    start = time.process_time()
    for seed in seeds:
        make_puzzle(shape, seed, method=method, backend=backend, counters=counters)
    return len(seeds) / (time.process_time() - start), counters


def compare_methods(box: int, rounds: int, per_round: int, backend: str) -> None:
    """Part 1 and 2: the two proofs on the same seeds, alternating, median of the rounds."""
    n = box * box
    rates: dict[str, list[float]] = {"exclude": [], "count": []}
    work: dict[str, DigCounters] = {}
    dig_rate(box, "exclude", range(10_000, 10_001), backend)  # warm-up, discarded
    for i in range(rounds):
        seeds = range(i * per_round, (i + 1) * per_round)
        order = ("exclude", "count") if i % 2 == 0 else ("count", "exclude")
        for method in order:
            value, counters = dig_rate(box, method, seeds, backend)
            rates[method].append(value)
            total = work.setdefault(method, DigCounters())
            for field in ("tried", "kept", "solves", "free"):
                setattr(total, field, getattr(total, field) + getattr(counters, field))
    print(f"\n{n}x{n} digging, {rounds} rounds x {per_round} puzzles, backend {backend}")
    header = ("method", "median/cpu-s", "IQR", "solves/puzzle", "free/puzzle")
    print("{:8} {:>12} {:>15} {:>14} {:>12}".format(*header))
    puzzles = rounds * per_round
    for method, values in rates.items():
        q1, med, q3 = quartiles(values)
        c = work[method]
        print(
            f"{method:8} {med:12.2f} {f'{q1:.2f}-{q3:.2f}':>15} "
            f"{c.solves / puzzles:14.1f} {c.free / puzzles:12.1f}"
        )
    ratios = [a / b for a, b in zip(rates["exclude"], rates["count"], strict=True)]
    q1, med, q3 = quartiles(ratios)
    print(f"exclude/count speed ratio: median {med:.2f} (IQR {q1:.2f}-{q3:.2f})")


def end_to_end(count: int, seed: int, backend: str) -> None:
    """Part 3: generate + rate `count` 9x9 puzzles, any level; rates and the level mix."""
    request = Request(shape_of(3, 3), backend=backend)
    levels: collections.Counter[Level] = collections.Counter()
    givens = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for made in generate_puzzles(request, count, seed):
        levels[made.rating.level] += 1
        givens.append(made.puzzle.givens)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    hard = sum(times for level, times in levels.items() if level >= Level.HARD)
    print(f"\n9x9 generate + rate, {count} puzzles (seed {seed}), one process, backend {backend}")
    for clock, seconds in (("wall", elapsed), ("cpu", cpu)):
        print(
            f"per {clock} second: {count / seconds:.1f} puzzles, "
            f"{hard / seconds:.2f} hard-or-harder ({seconds:.1f} s)"
        )
    print(f"givens: median {statistics.median(givens)}, min {min(givens)}, max {max(givens)}")
    show_levels(levels, count)


def show_levels(levels: collections.Counter[Level], total: int) -> None:
    """One line per level: count and percentage."""
    for level in Level:
        share = 100 * levels[level] / total if total else 0.0
        print(f"  {level!s:7} {levels[level]:5}  {share:5.1f}%")


def rate_collection(name: str, backend: str) -> None:
    """Part 4: the level mix of a shipped collection and the time per puzzle."""
    records = list(read_puzzles(collection_path(name)))
    levels: collections.Counter[Level] = collections.Counter()
    start = time.perf_counter()
    for record in records:
        levels[rate(record.puzzle, backend).level] += 1
    per = (time.perf_counter() - start) / len(records)
    print(f"\n{name}: {len(records)} puzzles rated, {1000 * per:.1f} ms each (with the proof)")
    show_levels(levels, len(records))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="puzzles for the level mix")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-round", type=int, default=40, help="9x9 puzzles per round")
    parser.add_argument("--big", type=int, default=3, help="16x16 puzzles per method round")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--backend", default=DEFAULT_BACKEND)
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run")
    args = parser.parse_args(argv)
    if args.quick:
        args.count, args.rounds, args.per_round, args.big = 50, 2, 10, 0
    backend = get_backend(args.backend)
    print(f"backend {backend.name} {backend.version() or ''}; python {sys.version.split()[0]}")
    compare_methods(3, args.rounds, args.per_round, args.backend)
    if args.big:
        compare_methods(4, 2, args.big, args.backend)
    end_to_end(args.count, args.seed, args.backend)
    for name in ("top95", "easy50"):
        rate_collection(name, args.backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())
