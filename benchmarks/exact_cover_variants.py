"""Why `dlx` uses dancing links on int arrays: measured against dict-of-sets Algorithm X.

Both search the same exact-cover matrix (`sudokubench.encodings.exact_cover`), choose the
column with the fewest options, pre-select the givens and stop at `limit` solutions. The
dict-of-sets version is Ali Assaf's well-known formulation (X: constraint -> set of options,
Y: option -> constraints); the links version is the `dlx` backend itself. Puzzles are
interleaved (each puzzle solved by both before the next), one warm-up per collection is
discarded, every answer is checked with `is_solution`, and the script prints the median and
mean ms per puzzle and the ratio of medians.

    python benchmarks/exact_cover_variants.py                 # 40 puzzles of each collection
    python benchmarks/exact_cover_variants.py --sample 95 --limit 1
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Iterator

from sudokubench.encodings.exact_cover import given_options, matrix, solution_grid
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.grid import Grid, is_solution
from sudokubench.solvers.dlx import DancingLinks


def dict_of_sets(puzzle: Grid, limit: int) -> list[Grid]:
    """Algorithm X with X as a dict of sets, as in Ali Assaf's version."""
    shape = puzzle.shape
    cover = matrix(shape)
    options = cover.options
    columns = {j: set(covering) for j, covering in enumerate(cover.covers)}

    def select(option: int) -> list[set[int]]:
        removed = []
        for j in options[option]:
            for other in columns[j]:
                for k in options[other]:
                    if k != j:
                        columns[k].remove(other)
            removed.append(columns.pop(j))
        return removed

    def deselect(option: int, removed: list[set[int]]) -> None:
        for j in reversed(options[option]):
            columns[j] = removed.pop()
            for other in columns[j]:
                for k in options[other]:
                    if k != j:
                        columns[k].add(other)

    chosen = given_options(puzzle)
    for option in chosen:
        select(option)

    def solve() -> Iterator[Grid]:
        if not columns:
            yield solution_grid(shape, chosen)
            return
        smallest = min(columns, key=lambda j: len(columns[j]))
        for option in list(columns[smallest]):
            chosen.append(option)
            removed = select(option)
            yield from solve()
            deselect(option, removed)
            chosen.pop()

    return list(itertools.islice(solve(), limit))


def links(puzzle: Grid, limit: int) -> list[Grid]:
    """The `dlx` backend."""
    return list(DancingLinks().solve(puzzle, limit=limit).solutions)


def main() -> None:
    """Time both variants side by side and print medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", default="easy50,top95,hexadoku1500")
    parser.add_argument("--sample", type=int, default=40, help="puzzles per collection")
    parser.add_argument("--limit", type=int, default=2, help="solutions asked (2: uniqueness)")
    args = parser.parse_args()
    variants = {"dict-of-sets": dict_of_sets, "links": links}
    print(f"{'collection':14s} {'variant':13s} {'median ms':>10s} {'mean ms':>9s} {'x links':>8s}")
    for name in args.collections.split(","):
        records = list(itertools.islice(read_puzzles(collection_path(name)), args.sample + 1))
        times: dict[str, list[float]] = {v: [] for v in variants}
        for i, record in enumerate(records):
            for variant, solve in variants.items():
                start = time.perf_counter()
                solutions = solve(record.puzzle, args.limit)
                elapsed = time.perf_counter() - start
                assert solutions and all(is_solution(s, record.puzzle) for s in solutions)
                if i:  # the first puzzle is the warm-up
                    times[variant].append(elapsed)
        base = statistics.median(times["links"])
        for variant, samples in times.items():
            median = statistics.median(samples)
            print(
                f"{name:14s} {variant:13s} {1000 * median:10.2f} "
                f"{1000 * statistics.mean(samples):9.2f} {median / base:8.1f}"
            )


if __name__ == "__main__":
    main()
