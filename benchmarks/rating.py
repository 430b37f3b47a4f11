"""Rater benchmark: how our scores rank puzzles against HoDoKu's, the level confusion, and speed.

Run from the repository root (one process, one core):

    python benchmarks/rating.py                    # top95, hardest, easy50, 100 of top1465
    python benchmarks/rating.py --quick            # top95 only, fewer timing rounds

HoDoKu (through the `hodoku-py` port, GPL, installed by hand: `pip install hodoku-py`) is the
measuring stick only: this script imports it when it can and says so and skips the comparison
when it cannot; nothing in the package or its tests imports it. HoDoKu is slow in Python (tens
of seconds for some puzzles), so its verdicts are kept in a cache file (default
`.cache/hodoku.json`, not tracked) keyed by puzzle text.

What it prints, per collection:

1. Spearman's rank correlation between our score and HoDoKu's score (ties get mean ranks).
2. The confusion table of our level against HoDoKu's (EASY, MEDIUM, HARD, UNFAIR, EXTREME).
3. Rating time per puzzle (`rate_with`, the solution known, so only the human solving is
   timed): median and IQR over the puzzles of each puzzle's median over `--rounds` rounds, in
   CPU seconds of this process (the machine may be shared; wall time is printed too).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path

from sudokubench.formats import collection_path, read_puzzles
from sudokubench.generate.rating import Level, rate, rate_with
from sudokubench.grid import Grid

HODOKU_LEVELS = ("EASY", "MEDIUM", "HARD", "UNFAIR", "EXTREME")


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for m in range(i, j + 1):
            result[order[m]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rho: Pearson's correlation of the ranks."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else float("nan")


def hodoku_verdicts(puzzles: list[str], cache_path: Path) -> dict[str, tuple[str, int]] | None:
    """HoDoKu's (level, score) per puzzle text, from the cache or computed; None without it."""
    try:
        from hodoku import Solver
    except ImportError:
        return None
    cache: dict[str, list] = {}
    if cache_path.exists():
        cache = json.loads(cache_path.read_text())
    solver = Solver()
    for i, text in enumerate(puzzles):
        if text in cache:
            continue
        result = solver.solve(text.replace(".", "0"))
        cache[text] = [result.level.name, result.score]
        if i % 10 == 0 or i == len(puzzles) - 1:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            cache_path.write_text(json.dumps(cache))
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache_path.write_text(json.dumps(cache))
    return {text: (cache[text][0], cache[text][1]) for text in puzzles}


def load(name: str, limit: int | None) -> list[Grid]:
    """The first `limit` puzzles of a shipped collection."""
    records = list(read_puzzles(collection_path(name)))
    return [r.puzzle for r in records[:limit]]


def time_ratings(puzzles: list[Grid], rounds: int) -> tuple[list[float], list[float], dict]:
    """CPU and wall seconds per puzzle (each the median of the rounds) and each rating."""
    solutions = {p: rate(p).solution for p in puzzles}
    cpu: dict[Grid, list[float]] = collections.defaultdict(list)
    wall: dict[Grid, list[float]] = collections.defaultdict(list)
    ratings = {}
    for _ in range(rounds):
        for p in puzzles:
            start, cpu_start = time.perf_counter(), time.process_time()
            ratings[p] = rate_with(p, solutions[p])
            cpu[p].append(time.process_time() - cpu_start)
            wall[p].append(time.perf_counter() - start)
    med = statistics.median
    return [med(cpu[p]) for p in puzzles], [med(wall[p]) for p in puzzles], ratings


def report(name: str, puzzles: list[Grid], rounds: int, cache_path: Path, hodoku: bool) -> None:
    """Correlation, confusion table and timing for one collection."""
    cpu, wall, ratings = time_ratings(puzzles, rounds)
    print(f"\n{name}: {len(puzzles)} puzzles")
    for clock, seconds in (("cpu", cpu), ("wall", wall)):
        q1, med, q3 = statistics.quantiles(seconds, n=4, method="inclusive")
        print(
            f"rating time per puzzle ({clock}): median {1000 * med:.1f} ms "
            f"(IQR {1000 * q1:.1f}-{1000 * q3:.1f}, max {1000 * max(seconds):.0f})"
        )
    if not hodoku:
        return
    texts = [str(p) for p in puzzles]
    verdicts = hodoku_verdicts(texts, cache_path)
    if verdicts is None:
        print("hodoku-py is not installed: no comparison (pip install hodoku-py)")
        return
    ours = [float(ratings[p].score) for p in puzzles]
    theirs = [float(verdicts[t][1]) for t in texts]
    print(f"Spearman rank correlation with HoDoKu's score: {spearman(ours, theirs):.3f}")
    table: collections.Counter[tuple[Level, str]] = collections.Counter()
    for p, t in zip(puzzles, texts, strict=True):
        table[ratings[p].level, verdicts[t][0]] += 1
    print(f"{'ours / HoDoKu':14}" + "".join(f"{h:>8}" for h in HODOKU_LEVELS))
    for level in Level:
        if any(table[level, h] for h in HODOKU_LEVELS):
            print(f"{level!s:14}" + "".join(f"{table[level, h]:8}" for h in HODOKU_LEVELS))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds per collection")
    parser.add_argument("--others", type=int, default=100, help="puzzles of top1465 to add")
    parser.add_argument("--cache", type=Path, default=Path(".cache/hodoku.json"))
    parser.add_argument("--no-hodoku", action="store_true", help="timing only")
    parser.add_argument("--quick", action="store_true", help="top95 only, one round")
    args = parser.parse_args(argv)
    sets = [("top95", None), ("hardest", None), ("easy50", None), ("top1465", args.others)]
    if args.quick:
        sets, args.rounds = sets[:1], 1
    print(f"python {sys.version.split()[0]}")
    for name, limit in sets:
        report(name, load(name, limit), args.rounds, args.cache, not args.no_hodoku)
    return 0


if __name__ == "__main__":
    sys.exit(main())
