"""`backend.solve` of `native` at several git revisions: CPU time a call, in one process.

What a Python user pays for one `native` solve, the contract around the kernel included
(`prepare`, the timing rule's clocks, the grids, the stats, the checked `SolveResult`). Each
revision's package is exported and imported beside the others as in
`benchmarks/native_versions.py`; every round, each version solves the first `--count` puzzles
of a file (read by `read_puzzles`, as a user would) with `backend.solve`, the versions' order
reversed every other round. Printed: each version's median and best CPU us a call over the
rounds, and the median over the rounds of its pass's ratio to the first revision's pass of the
same round (paired: a round's passes run back to back, under about the same load). Every
answer is checked (one solution, a valid grid, its givens kept).

    python benchmarks/solve_call.py main HEAD
    python benchmarks/solve_call.py main HEAD --collection top1465 --limits 2 --rounds 20
    python benchmarks/solve_call.py main .     (`.`: the working tree, uncommitted changes too)

The calls run under `itertools.starmap`, which nothing else in a solve uses, so that
valgrind counts their instructions alone: with one revision,

    NUMBA_CPU_NAME=generic valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect=starmap_next python benchmarks/solve_call.py HEAD --rounds 1 --limits 1

counts `--count` calls (the total over `--count` is a call's; `NUMBA_CPU_NAME=generic` so
that valgrind's CPU loads numba's cached kernel).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import itertools
import os
import statistics
import sys
import time

from native_versions import export


def load(revision: str) -> tuple:
    """`revision`'s (name, Native backend, formats module, grid module), warmed (`.`: the
    working tree's own package, as imported)."""
    name = "sudokubench" if revision == "." else export(revision)
    native = importlib.import_module(f"{name}.solvers.native")
    native.warm()  # compiles or loads the kernel outside any timing
    formats = importlib.import_module(f"{name}.formats")
    grid = importlib.import_module(f"{name}.grid")
    return revision, native.Native(), formats, grid


def one_pass(version: tuple, collection: str, count: int, limit: int) -> float:
    """CPU seconds of `backend.solve` over the first `count` puzzles (read outside the timing);
    exits on an answer that is not one valid solution of its puzzle."""
    revision, backend, formats, grid = version
    path = formats.collection_path(collection)
    puzzles = [r.puzzle for r in itertools.islice(formats.read_puzzles(path), count)]
    solve = functools.partial(backend.solve, limit=limit)
    arguments = [(puzzle,) for puzzle in puzzles]
    process_time = time.process_time
    start = process_time()
    results = list(itertools.starmap(solve, arguments))
    cpu = process_time() - start
    for puzzle, result in zip(puzzles, results, strict=True):
        if result.count != 1 or not grid.is_solution(result.solutions[0], puzzle):
            sys.exit(f"{revision}: {result.count} solutions of {puzzle}")
    return cpu


def main() -> None:
    """Parse the options, load every version, alternate their passes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions; the first is the base")
    parser.add_argument("--collection", default="17clue")
    parser.add_argument("--count", type=int, default=2000, help="puzzles a pass")
    parser.add_argument("--limits", default="1,2")
    parser.add_argument("--rounds", type=int, default=10, help="passes per version")
    args = parser.parse_args()
    versions = [load(revision) for revision in args.revisions]
    print(f"load average {os.getloadavg()[0]:.1f}; CPU us a backend.solve call", flush=True)
    for limit in map(int, args.limits.split(",")):
        cpu: list[list[float]] = [[] for _ in versions]
        for round_number in range(args.rounds):
            order = range(len(versions))
            for i in order if round_number % 2 == 0 else reversed(order):
                cpu[i].append(one_pass(versions[i], args.collection, args.count, limit))
        shown = "  ".join(
            f"{version[0]} {statistics.median(c) / args.count * 1e6:.2f} "
            f"(best {min(c) / args.count * 1e6:.2f}, "
            f"{statistics.median(x / y for x, y in zip(c, cpu[0], strict=True)):.3f}x)"
            for version, c in zip(versions, cpu, strict=True)
        )
        print(f"{args.collection} {args.count} limit {limit}: {shown}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
