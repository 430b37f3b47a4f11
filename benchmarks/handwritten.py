"""Side-by-side timing of the hand-written backends; the numbers behind docs/benchmarks.md's table.

For each collection, each puzzle is solved by every backend in turn, at every limit, before
the next puzzle is read (puzzle-major order), so machine noise hits all backends alike; the
order of the backends rotates from puzzle to puzzle. One warm-up solve per backend and
collection is discarded. Every answer is checked: each solution with the independent checker
`is_solution`, against the collection's known solution and count when it has them, and the
exact counts of different backends against each other. Any mismatch is listed and makes the
script exit 1: a benchmark of wrong answers is worthless.

Printed per collection and limit: puzzles solved, timed out, median and mean ms per puzzle,
median and mean guesses (cells branched on) per puzzle, and the speed ratio of each backend
to `fast` (its median time over fast's median time). A median over puzzles with timeouts
counts each timeout as the timeout, so it is shown as a lower bound (`>=`).

    python benchmarks/handwritten.py                      # easy50, top95, top1465, hexadoku1500
    python benchmarks/handwritten.py --sample 200         # at most 200 puzzles per collection
    python benchmarks/handwritten.py --collections top95 --backends fast,norvig --limits 2
    python benchmarks/handwritten.py --17clue             # fast proves all 17-clue puzzles unique

`--17clue` runs only the uniqueness proof (limit 2) of every puzzle of the 17clue collection
(49,158 puzzles) with each backend named by `--backends` (default: fast), on one core, and
prints the total time. Run it alone on the machine.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from sudokubench.backend import Backend, SolveResult, Status
from sudokubench.formats import PuzzleRecord, collection_path, read_puzzles
from sudokubench.grid import solution_problem
from sudokubench.solvers import UnknownBackendError, get_backend

HANDWRITTEN = ("backtracking", "propagation", "fast", "norvig", "dlx")
COLLECTIONS = ("easy50", "top95", "top1465", "hexadoku1500")
#: Collections of hard puzzles: a backend that declares `handles_hard = False` runs only on
#: the ones named by --contrast (default top95), with the per-solve timeout.
HARD = ("top95", "top1465", "hardest", "17clue")
REFERENCE = "fast"


@dataclass
class Tally:
    """The measurements of one backend on one collection at one limit."""

    times: list[float] = field(default_factory=list)
    guesses: list[float] = field(default_factory=list)
    solved: int = 0
    unsat: int = 0
    timeouts: int = 0
    errors: int = 0

    def add(self, result: SolveResult, seconds: float) -> None:
        """Record one solve."""
        self.times.append(seconds)
        self.guesses.append(result.stats.get("guesses", float("nan")))
        if result.status is Status.SOLVED:
            self.solved += 1
        elif result.status is Status.UNSATISFIABLE:
            self.unsat += 1
        elif result.status is Status.TIMEOUT:
            self.timeouts += 1
        else:
            self.errors += 1


def load_backends(names: Iterable[str]) -> dict[str, Backend]:
    """The named backends that exist and run here; a note for each one that does not."""
    found: dict[str, Backend] = {}
    for name in names:
        try:
            backend = get_backend(name)
        except UnknownBackendError as exc:
            print(f"note: skipping {name}: {exc}")
            continue
        if not backend.available():
            print(f"note: skipping {name}: not available here")
            continue
        found[name] = backend
    return found


def sample(name: str, size: int | None) -> list[PuzzleRecord]:
    """At most `size` puzzles of a collection, evenly spaced through it."""
    records = list(read_puzzles(collection_path(name)))
    if size is None or size >= len(records):
        return records
    step = len(records) / size
    return [records[int(i * step)] for i in range(size)]


def check(record: PuzzleRecord, name: str, limit: int, result: SolveResult) -> list[str]:
    """What is wrong with one answer, judged without trusting any backend."""
    where = f"{record.id} {name} limit {limit}"
    problems = []
    for solution in result.solutions:
        problem = solution_problem(solution, record.puzzle)
        if problem:
            problems.append(f"{where}: wrong solution: {problem}")
    if result.status is Status.ERROR:
        problems.append(f"{where}: error: {result.message}")
    expected = record.expected_count
    if expected is not None and result.status is not Status.TIMEOUT:
        if result.exhaustive and result.count != expected:
            problems.append(f"{where}: {result.count} solutions, the file says {expected}")
        if not result.exhaustive and expected < result.count:
            problems.append(f"{where}: {result.count}+ solutions, the file says {expected}")
    unique = expected == 1 or (result.exhaustive and result.count == 1)
    known = record.expected_solution
    if known is not None and unique and result.solutions and result.solutions[0] != known:
        problems.append(f"{where}: solution differs from the collection's solution file")
    return problems


def disagreements(record: PuzzleRecord, limit: int, results: dict[str, SolveResult]) -> list[str]:
    """Backends whose exact counts differ, or whose unique solutions differ, on one puzzle."""
    exact = {name: r.count for name, r in results.items() if r.exhaustive}
    problems = []
    if len(set(exact.values())) > 1:
        problems.append(f"{record.id} limit {limit}: counts disagree: {exact}")
    unique = {str(r.solutions[0]) for r in results.values() if r.exhaustive and r.count == 1}
    if len(unique) > 1:
        problems.append(f"{record.id} limit {limit}: different unique solutions")
    return problems


def run_collection(
    name: str,
    backends: dict[str, Backend],
    limits: list[int],
    size: int | None,
    timeout: float,
    contrast: list[str],
) -> tuple[dict[tuple[int, str], Tally], list[str], int]:
    """Time every backend on every puzzle of one collection, puzzle-major."""
    records = sample(name, size)
    n = records[0].puzzle.n
    runnable = {}
    for backend_name, backend in backends.items():
        practical = getattr(backend, "practical_n", 25)
        if practical < n:
            print(f"note: {name}: skipping {backend_name} (practical only up to N={practical})")
        elif name in HARD and not getattr(backend, "handles_hard", True) and name not in contrast:
            print(f"note: {name}: skipping {backend_name} (declares handles_hard = False)")
        else:
            runnable[backend_name] = backend
    tallies = {(limit, b): Tally() for limit in limits for b in runnable}
    problems: list[str] = []
    for backend in runnable.values():  # warm-up: imports, per-shape tables; not measured
        backend.solve(records[0].puzzle, limit=1, timeout=timeout)
    order = list(runnable.items())
    for i, record in enumerate(records):
        rotated = order[i % len(order) :] + order[: i % len(order)]
        for limit in limits:
            results = {}
            for backend_name, backend in rotated:
                start = time.perf_counter()
                result = backend.solve(record.puzzle, limit=limit, timeout=timeout)
                seconds = time.perf_counter() - start
                tallies[limit, backend_name].add(result, seconds)
                problems += check(record, backend_name, limit, result)
                results[backend_name] = result
            problems += disagreements(record, limit, results)
    return tallies, problems, len(records)


def fmt_ms(tally: Tally, pick: str) -> str:
    """Median or mean ms per puzzle, marked as a lower bound when some solves timed out."""
    values = tally.times
    ms = (statistics.median(values) if pick == "median" else statistics.fmean(values)) * 1e3
    text = f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"
    return (">=" + text) if tally.timeouts else text


def fmt_number(x: float) -> str:
    """A guesses figure: integer when whole, '-' when the backend does not count guesses."""
    if x != x:  # NaN
        return "-"
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def table(name: str, count: int, tallies: dict[tuple[int, str], Tally], markdown: bool) -> str:
    """The results of one collection as a text or markdown table."""
    header = [
        "collection",
        "limit",
        "backend",
        "solved",
        "timeout",
        "median ms",
        "mean ms",
        "median guesses",
        "mean guesses",
        f"x {REFERENCE}",
    ]
    rows = []
    for (limit, backend_name), tally in tallies.items():
        reference = tallies.get((limit, REFERENCE))
        ratio = "-"
        if reference is not None:
            ratio = f"{statistics.median(tally.times) / statistics.median(reference.times):.1f}"
            if tally.timeouts:
                ratio = ">=" + ratio
        guesses = [g for g in tally.guesses if g == g]
        rows.append(
            [
                f"{name} ({count})",
                str(limit),
                backend_name,
                str(tally.solved + tally.unsat),
                str(tally.timeouts),
                fmt_ms(tally, "median"),
                fmt_ms(tally, "mean"),
                fmt_number(statistics.median(guesses)) if guesses else "-",
                fmt_number(statistics.fmean(guesses)) if guesses else "-",
                ratio,
            ]
        )
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def uniqueness_run(backends: dict[str, Backend], size: int | None) -> list[str]:
    """Prove every 17-clue puzzle unique (limit 2) with each backend; print the totals."""
    records = sample("17clue", size)
    problems: list[str] = []
    for name, backend in backends.items():
        backend.solve(records[0].puzzle, limit=2)  # warm-up
        times = []
        wrong = 0
        started = time.perf_counter()
        for record in records:
            start = time.perf_counter()
            result = backend.solve(record.puzzle, limit=2)
            times.append(time.perf_counter() - start)
            found = check(record, name, 2, result)
            if not (result.exhaustive and result.count == 1):
                found.append(f"{record.id} {name}: not proved unique: {result.status.name}")
            wrong += bool(found)
            problems += found
        total = time.perf_counter() - started
        print(
            f"17clue uniqueness, {name}: {len(records)} puzzles in {total:.1f} s "
            f"(solve calls {sum(times):.1f} s), median {statistics.median(times) * 1e3:.3f} ms, "
            f"mean {statistics.fmean(times) * 1e3:.3f} ms, max {max(times) * 1e3:.0f} ms, "
            f"{len(records) - wrong} proved unique, {wrong} mismatches"
        )
        if name == REFERENCE and len(records) == CLUE17_PUZZLES:
            verdict = "met" if total < CLUE17_TARGET_S else "NOT MET"
            print(f"17clue: {total:.1f} s (target < {CLUE17_TARGET_S:.0f} s): {verdict}")
    return problems


#: The targets: fast at least this many times faster than norvig (median per puzzle).
SPEEDUP_TARGETS = {"easy50": 10.0, "top95": 3.0, "top1465": 3.0}
#: ... and fast's median ms per puzzle below this.
MEDIAN_TARGETS_MS = {"hexadoku1500": 10.0}
#: ... and the full 17-clue uniqueness run below this many seconds.
CLUE17_TARGET_S = 90.0
CLUE17_PUZZLES = 49_158


def targets(results: dict[str, dict[tuple[int, str], Tally]]) -> list[str]:
    """The targets these results can judge, each marked met or NOT MET."""
    lines = []
    for name, tallies in results.items():
        for (limit, backend_name), tally in tallies.items():
            if backend_name != REFERENCE:
                continue
            fast_ms = statistics.median(tally.times) * 1e3
            norvig = tallies.get((limit, "norvig"))
            if name in SPEEDUP_TARGETS and norvig is not None:
                ratio = statistics.median(norvig.times) * 1e3 / fast_ms
                goal = SPEEDUP_TARGETS[name]
                verdict = "met" if ratio >= goal else "NOT MET"
                lines.append(
                    f"{name} limit {limit}: fast {ratio:.1f}x faster than norvig "
                    f"(target >= {goal:.0f}x): {verdict}"
                )
            if name in MEDIAN_TARGETS_MS:
                goal = MEDIAN_TARGETS_MS[name]
                verdict = "met" if fast_ms < goal else "NOT MET"
                lines.append(
                    f"{name} limit {limit}: fast median {fast_ms:.2f} ms "
                    f"(target < {goal:.0f} ms): {verdict}"
                )
    return lines


def machine() -> str:
    """One line about where the numbers were measured."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"python {platform.python_version()} ({platform.python_implementation()}), "
        f"{platform.machine()}, {os.cpu_count()} cpus, load average {load:.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit status 1 when any answer is wrong."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backends", default=None, help="comma-separated backend names")
    parser.add_argument("--collections", default=",".join(COLLECTIONS))
    parser.add_argument("--limits", default="1,2", help="comma-separated limits (1 and 2)")
    parser.add_argument("--sample", type=int, default=None, help="at most N puzzles each")
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds per solve")
    parser.add_argument(
        "--contrast",
        default="top95",
        help="hard collections on which backends that declare handles_hard = False still run",
    )
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    parser.add_argument(
        "--17clue", dest="clue17", action="store_true", help="the 17-clue uniqueness run only"
    )
    args = parser.parse_args(argv)
    default = (REFERENCE,) if args.clue17 else HANDWRITTEN
    names = args.backends.split(",") if args.backends else list(default)
    backends = load_backends(names)
    if not backends:
        print("no backend to run", file=sys.stderr)
        return 2
    print(machine())
    if args.clue17:
        problems = uniqueness_run(backends, args.sample)
    else:
        limits = [int(x) for x in args.limits.split(",")]
        problems = []
        results = {}
        for name in args.collections.split(","):
            started = time.perf_counter()
            tallies, found, count = run_collection(
                name, backends, limits, args.sample, args.timeout, args.contrast.split(",")
            )
            problems += found
            results[name] = tallies
            print()
            print(table(name, count, tallies, args.markdown))
            print(f"({name}: {time.perf_counter() - started:.0f} s)")
        print()
        for line in targets(results):
            print(line)
    print()
    for problem in itertools.islice(problems, 50):
        print("MISMATCH", problem)
    print(f"{len(problems)} mismatches")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
