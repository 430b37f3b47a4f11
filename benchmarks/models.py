"""Model backends against the obvious stand-alone scripts, side by side in one run.

For each collection (default top95 and top1465) every contender solves every puzzle, the
contenders interleaved (the order rotates from puzzle to puzzle, so machine noise falls on all
of them alike). A contender is one of our backends (its `encode_s` and `solve_s`) or an
"obvious" script: the whole model built per puzzle the way a tutorial writes it, with the same
library, timed the same way (perf_counter around building and around solving). Every answer
is checked with `is_solution`. One warm-up solve per contender is discarded.

Printed: per contender the median encode, solve and total milliseconds per puzzle, the
interquartile range of the total, and the ratio of the obvious script's median total to ours
for the same library; then the counting speed (solutions per second) of every backend on the
`multiple` grid (28 solutions) and on the first 100 puzzles of multisolution5000; and what
asking for a timeout costs each library's default backend (a fork, for those without a time
limit).

    python benchmarks/models.py --backends cpsat,pycosat,pysat     # top95 and top1465
    python benchmarks/models.py --backends constraint --collections hardest,top95:5 \
        --timeout 5               # python-constraint's slow solvers need a timeout

With `--timeout`, every contender of a library without a time limit runs in a forked child
killed at the deadline (our backends do it themselves; the obvious scripts are wrapped the same
way), and a timed-out solve counts as the time it took.

`--families` compares one backend of every family of constraint solving side by side (CP-SAT,
SAT, SMT, ASP, MIP, classic CP, MiniZinc: `FAMILIES`, those registered and installed here) on
top95 and every 200th 17clue puzzle, then counts two grids with known counts: `multiple` (28
solutions) and the 6x6 grid with only its first row given (39,168: the 6x6 grids with a fixed
first row). A library with no obvious script is measured alone. The CPU column adds the
process's and its children's CPU seconds (`minizinc` runs in a child process), which a busy
machine disturbs far less than wall time.

    python benchmarks/models.py --families --timeout 60
    python benchmarks/models.py --families --backends scip,choco,minizinc --collections top95
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache

from sudokubench.backend import Deadline, Status
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.grid import Grid, is_solution
from sudokubench.solvers import REGISTRY, get_backend
from sudokubench.solvers.child import collect_in_child

MULTIPLE = "8.9.....7.76.89....3..7.89..2.7.8.1.7.......2.6.12.47.6978.4231...9.67.......79.6"
MODEL_BACKENDS = ("cpsat", "pycosat", "pysat", "constraint")
#: One library of each family (`--families`); those not registered here are left out.
FAMILIES = ("cpsat", "pycosat", "z3", "clingo", "highs", "scip", "choco", "minizinc")
#: The 6x6 grid with only its first row given: 39,168 solutions (28,200,960 grids / 6!).
SIX_BY_SIX_ROW = "123456" + "." * 30

Timed = tuple[float, float, Grid | None]  # encode seconds, solve seconds, solution


# -- the obvious scripts: build everything per puzzle, as a tutorial would ------------------


def obvious_cpsat(puzzle: Grid) -> Timed:
    """The OR-Tools sample: IntVar 1..9 per cell, givens as equalities, default parameters."""
    from ortools.sat.python import cp_model

    start = time.perf_counter()
    n = puzzle.n
    box_r, box_c = puzzle.shape.box_rows, puzzle.shape.box_cols
    model = cp_model.CpModel()
    grid = {}
    for i in range(n):
        for j in range(n):
            grid[(i, j)] = model.new_int_var(1, n, f"grid {i} {j}")
    for i in range(n):
        model.add_all_different([grid[(i, j)] for j in range(n)])
    for j in range(n):
        model.add_all_different([grid[(i, j)] for i in range(n)])
    for i in range(0, n, box_r):
        for j in range(0, n, box_c):
            model.add_all_different(
                [grid[(i + di, j + dj)] for di in range(box_r) for dj in range(box_c)]
            )
    for i in range(n):
        for j in range(n):
            if puzzle.value(i, j):
                model.add(grid[(i, j)] == puzzle.value(i, j))

    def read(solver: cp_model.CpSolver) -> Grid:
        cells = tuple(solver.value(grid[(i, j)]) for i in range(n) for j in range(n))
        return Grid(puzzle.shape, cells)

    return _solve_cpsat(model, start, read)


def _solve_cpsat(model: object, start: float, read: Callable[[object], Grid]) -> Timed:
    """Solve with CP-SAT's default parameters; build time since `start`, then solve time."""
    from ortools.sat.python import cp_model

    built = time.perf_counter()
    solver = cp_model.CpSolver()
    status = solver.solve(model)
    solved = time.perf_counter()
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return built - start, solved - built, None
    return built - start, solved - built, read(solver)


def _obvious_clauses(puzzle: Grid) -> tuple[list[list[int]], Callable[[int, int, int], int]]:
    """pycosat's examples/sudoku.py: the full (extended) encoding built per puzzle."""
    n = puzzle.n
    box_r, box_c = puzzle.shape.box_rows, puzzle.shape.box_cols

    def v(i: int, j: int, d: int) -> int:
        return n * n * i + n * j + d

    def valid(cells: list[tuple[int, int]]) -> list[list[int]]:
        out = []
        for a, xi in enumerate(cells):
            for b, xj in enumerate(cells):
                if a < b:
                    for d in range(1, n + 1):
                        out.append([-v(xi[0], xi[1], d), -v(xj[0], xj[1], d)])
        return out

    clauses = []
    for i in range(n):
        for j in range(n):
            clauses.append([v(i, j, d) for d in range(1, n + 1)])
            for d in range(1, n + 1):
                for dp in range(d + 1, n + 1):
                    clauses.append([-v(i, j, d), -v(i, j, dp)])
    for i in range(n):
        clauses.extend(valid([(i, j) for j in range(n)]))
        clauses.extend(valid([(j, i) for j in range(n)]))
    for i in range(0, n, box_r):
        for j in range(0, n, box_c):
            clauses.extend(valid([(i + k % box_r, j + k // box_r) for k in range(n)]))
    for i in range(n):
        for j in range(n):
            if puzzle.value(i, j):
                clauses.append([v(i, j, puzzle.value(i, j))])
    return clauses, v


def _read_model(puzzle: Grid, model: list[int], v: Callable[[int, int, int], int]) -> Grid:
    n = puzzle.n
    true = set(lit for lit in model if lit > 0)
    cells = tuple(
        next(d for d in range(1, n + 1) if v(i, j, d) in true) for i in range(n) for j in range(n)
    )
    return Grid(puzzle.shape, cells)


def obvious_pycosat(puzzle: Grid) -> Timed:
    """pycosat's sudoku example: clauses built per puzzle, `pycosat.solve`."""
    import pycosat

    start = time.perf_counter()
    clauses, v = _obvious_clauses(puzzle)
    built = time.perf_counter()
    model = pycosat.solve(clauses)
    solved = time.perf_counter()
    if not isinstance(model, list):
        return built - start, solved - built, None
    return built - start, solved - built, _read_model(puzzle, model, v)


def obvious_pysat(puzzle: Grid) -> Timed:
    """The same clauses handed to PySAT's CaDiCaL, per puzzle."""
    from pysat.solvers import Solver

    start = time.perf_counter()
    clauses, v = _obvious_clauses(puzzle)
    built = time.perf_counter()
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        ok = solver.solve()
        model = solver.get_model() if ok else None
    solved = time.perf_counter()
    if model is None:
        return built - start, solved - built, None
    return built - start, solved - built, _read_model(puzzle, model, v)


def obvious_constraint(puzzle: Grid) -> Timed:
    """python-constraint's sudoku example: default solver, givens as constraints."""
    from constraint import AllDifferentConstraint, Problem

    start = time.perf_counter()
    n = puzzle.n
    box_r, box_c = puzzle.shape.box_rows, puzzle.shape.box_cols
    problem = Problem()
    names = [(i, j) for i in range(n) for j in range(n)]
    problem.addVariables(names, range(1, n + 1))
    for i in range(n):
        problem.addConstraint(AllDifferentConstraint(), [(i, j) for j in range(n)])
        problem.addConstraint(AllDifferentConstraint(), [(j, i) for j in range(n)])
    for i in range(0, n, box_r):
        for j in range(0, n, box_c):
            box = [(i + di, j + dj) for di in range(box_r) for dj in range(box_c)]
            problem.addConstraint(AllDifferentConstraint(), box)
    for i, j in names:
        if value := puzzle.value(i, j):
            problem.addConstraint(lambda x, given=value: x == given, [(i, j)])
    built = time.perf_counter()
    solution = problem.getSolution()
    solved = time.perf_counter()
    if solution is None:
        return built - start, solved - built, None
    cells = tuple(solution[name] for name in names)
    return built - start, solved - built, Grid(puzzle.shape, cells)


def cpsat_default_workers(puzzle: Grid) -> Timed:
    """Our integer model with CP-SAT's default worker count: what SOLVE_WORKERS = 1 saves."""
    from sudokubench.encodings.cpsat import Formulation, build, decode

    start = time.perf_counter()
    model = build(puzzle, Formulation.INTEGER)
    return _solve_cpsat(
        model,
        start,
        lambda solver: decode(puzzle, Formulation.INTEGER, solver.response_proto.solution),
    )


#: Extra contenders per library: our model with another setting.
EXTRAS: dict[str, list[tuple[str, Callable[[Grid], Timed]]]] = {
    "cpsat": [("cpsat:integer, default workers", cpsat_default_workers)],
}

OBVIOUS: dict[str, Callable[[Grid], Timed]] = {
    "cpsat": obvious_cpsat,
    "pycosat": obvious_pycosat,
    "pysat": obvious_pysat,
    "constraint": obvious_constraint,
}


# -- running --------------------------------------------------------------------------------


@dataclass
class Contender:
    """One column of the comparison: a backend or an obvious script."""

    name: str
    library: str
    run: Callable[[Grid], Timed]
    encode: list[float] = field(default_factory=list)
    solve: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    wrong: int = 0
    timeouts: int = 0


def backend_runner(name: str, timeout: float | None) -> Callable[[Grid], Timed]:
    """Solve with a registered backend, returning its own encode/solve split."""
    backend = get_backend(name)

    def run(puzzle: Grid) -> Timed:
        result = backend.solve(puzzle, timeout=timeout)
        return result.encode_s, result.solve_s, result.solution

    return run


def killable(script: Callable[[Grid], Timed], timeout: float | None) -> Callable[[Grid], Timed]:
    """The script as is, or (with a timeout) in a forked child killed at the deadline.

    That is what our backends without a native time limit do, so both pay for the fork.
    """
    if timeout is None:
        return script

    def run(puzzle: Grid) -> Timed:
        def search(stats: dict[str, int | float]) -> Iterator[Grid]:
            encode_s, solve_s, solution = script(puzzle)
            stats.update(encode_s=encode_s, solve_s=solve_s)
            if solution is not None:
                yield solution

        start = time.perf_counter()
        result = collect_in_child("obvious", puzzle.shape, search, 1, Deadline(timeout))
        if result.status is Status.TIMEOUT:
            return 0.0, time.perf_counter() - start, None
        encode_s = result.stats["encode_s"]
        return encode_s, result.solve_s - encode_s, result.solution

    return run


@cache  # the notes once per run
def variant_names(library: str) -> tuple[str, ...]:
    """The library's registered variants (or its one name) that are available here; none, with
    a note, when the library is not registered (another family not merged yet, a typo)."""
    entry = REGISTRY.get(library)
    if entry is None:
        print(f"note: no backend {library!r} registered here, left out", file=sys.stderr)
        return ()
    names = [f"{library}:{v}" for v in entry.all_variants()] if entry.variants else [library]
    found = [name for name in names if get_backend(name).available()]
    for name in sorted(set(names) - set(found)):
        print(f"note: {name} left out: {get_backend(name).unavailable_reason()}", file=sys.stderr)
    return tuple(found)


def contenders(libraries: list[str], timeout: float | None) -> list[Contender]:
    """Every variant of the chosen libraries, each followed by its library's obvious script
    (when there is one)."""
    found = []
    for library in libraries:
        names = variant_names(library)
        for name in names:
            found.append(Contender(name, library, backend_runner(name, timeout)))
        if not names:
            continue
        for label, extra in EXTRAS.get(library, []):
            found.append(Contender(label, library, killable(extra, timeout)))
        if library in OBVIOUS:
            script = killable(OBVIOUS[library], timeout)
            found.append(Contender(f"obvious {library}", library, script))
    return found


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def median_iqr(values: list[float]) -> tuple[float, float]:
    """Median and interquartile range."""
    if len(values) < 4:
        return statistics.median(values), 0.0
    q = statistics.quantiles(values, n=4)
    return q[1], q[2] - q[0]


def run_collection(name: str, step: int, libraries: list[str], timeout: float | None) -> None:
    """Solve one collection with every contender, interleaved; print the table."""
    puzzles = [
        r.puzzle for r in itertools.islice(read_puzzles(collection_path(name)), 0, None, step)
    ]
    field = contenders(libraries, timeout)
    for c in field:  # warm-up, discarded
        c.run(puzzles[0])
    start = time.perf_counter()
    for i, puzzle in enumerate(puzzles):
        shift = i % len(field)
        for c in field[shift:] + field[:shift]:
            cpu = cpu_seconds()
            encode_s, solve_s, solution = c.run(puzzle)
            c.cpu.append(cpu_seconds() - cpu)
            c.encode.append(encode_s)
            c.solve.append(solve_s)
            if solution is None and timeout is not None and encode_s + solve_s >= timeout:
                c.timeouts += 1
            elif solution is None or not is_solution(solution, puzzle):
                c.wrong += 1
    elapsed = time.perf_counter() - start
    limit = f", timeout {timeout} s (a timeout counts as its time)" if timeout else ""
    print(f"\n## {name}: {len(puzzles)} puzzles (every {step}){limit}, {elapsed:.0f} s\n")
    print(
        "| contender | encode ms | solve ms | total ms (median) | IQR ms | CPU ms (median) "
        "| obvious/this | timeouts | wrong |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    obvious = {c.library: c for c in field if c.name.startswith("obvious")}
    for c in field:
        totals = [e + s for e, s in zip(c.encode, c.solve, strict=True)]
        total, iqr = median_iqr(totals)
        ratio = "-"
        if base := obvious.get(c.library):
            pairs = zip(base.encode, base.solve, strict=True)
            ratio = f"{statistics.median(e + s for e, s in pairs) / total:.2f}x"
        print(
            f"| {c.name} | {statistics.median(c.encode) * 1e3:.2f} "
            f"| {statistics.median(c.solve) * 1e3:.2f} | {total * 1e3:.2f} | {iqr * 1e3:.2f} "
            f"| {statistics.median(c.cpu) * 1e3:.1f} | {ratio} | {c.timeouts} | {c.wrong} |"
        )


def run_counting(libraries: list[str], puzzles: int, timeout: float | None) -> None:
    """Solutions per second when counting: the multiple grid, and multisolution5000."""
    multiple = Grid.parse(MULTIPLE)
    many = [
        r.puzzle
        for r in itertools.islice(read_puzzles(collection_path("multisolution5000")), puzzles)
    ]
    names = [name for lib in libraries for name in variant_names(lib)]
    print(
        f"\n## counting: `multiple` (limit 1000, best of 3) and {puzzles} multisolution5000 "
        "puzzles (limit 10000)\n"
    )
    print(
        "| backend | multiple: count | ms | solutions/s | multisolution: solutions | s | "
        "solutions/s | all exact |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    counts: dict[str, list[int]] = {}
    for name in names:
        backend = get_backend(name)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            result = backend.solve(multiple, limit=1000, timeout=timeout)
            times.append(time.perf_counter() - start)
        assert all(is_solution(s, multiple) for s in result.solutions)
        best = min(times)
        start = time.perf_counter()
        found = [backend.solve(p, limit=10_000, timeout=timeout) for p in many]
        spent = time.perf_counter() - start
        counts[name] = [r.count if r.exhaustive else None for r in found]
        total = sum(r.count for r in found)
        exact = all(r.exhaustive for r in found)
        print(
            f"| {name} | {result.count}{'' if result.exhaustive else '+'} | {best * 1e3:.1f} "
            f"| {result.count / best:,.0f} "
            f"| {total} | {spent:.2f} | {total / spent:,.0f} | {'yes' if exact else 'no'} |"
        )
    for i in range(len(many)):
        exact = {c[i] for c in counts.values() if c[i] is not None}
        if len(exact) > 1:
            print(f"DISAGREEMENT on multisolution5000 #{i + 1}: {sorted(exact)}", file=sys.stderr)


def run_timeout_cost(libraries: list[str], repeat: int = 20) -> None:
    """What asking for a timeout costs each default backend: count `multiple` with and without."""
    multiple = Grid.parse(MULTIPLE)
    print(f"\n## the cost of a timeout: count `multiple` (limit 100), median of {repeat}\n")
    print("| backend | no timeout ms | timeout=60 ms | difference ms | how |")
    print("|---|---:|---:|---:|---|")
    for library in libraries:
        if library not in REGISTRY or not get_backend(library).available():
            continue
        backend = get_backend(library)
        medians = []
        for timeout in (None, 60.0):
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                result = backend.solve(multiple, limit=100, timeout=timeout)
                times.append(time.perf_counter() - start)
            medians.append(statistics.median(times))
        how = "forked child" if result.stats.get("child_process") else "in-process"
        print(
            f"| {backend.name} | {medians[0] * 1e3:.1f} | {medians[1] * 1e3:.1f} "
            f"| {(medians[1] - medians[0]) * 1e3:+.1f} | {how} |"
        )


def known_counts() -> list[tuple[str, Grid, int, int]]:
    """The grids `--families` counts: label, grid, known solution count, rounds (the 6x6 grid
    takes some backends a minute, so it is counted once)."""
    return [
        ("multiple", Grid.parse(MULTIPLE), 28, 3),
        ("6x6 first row", Grid.parse(SIX_BY_SIX_ROW), 39_168, 1),
    ]


def run_family_counts(libraries: list[str], timeout: float | None) -> None:
    """Count each known grid with every backend, interleaved over rounds; every solution
    checked, every count held against the known one."""
    names = [name for lib in libraries for name in variant_names(lib)]
    print("\n## counting grids with known counts: the median of the rounds, interleaved\n")
    print(
        "| backend | grid | rounds | count | known | ms (median) | CPU ms | solutions/s | verdict |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for label, grid, known, rounds in known_counts():
        wall: dict[str, list[float]] = {name: [] for name in names}
        cpu: dict[str, list[float]] = {name: [] for name in names}
        results = {}
        for i in range(rounds):
            order = names if i % 2 == 0 else names[::-1]
            for name in order:
                spent, start = cpu_seconds(), time.perf_counter()
                result = get_backend(name).solve(grid, limit=known + 1, timeout=timeout)
                wall[name].append(time.perf_counter() - start)
                cpu[name].append(cpu_seconds() - spent)
                results[name] = result
        for name in names:
            result, median = results[name], statistics.median(wall[name])
            valid = len(set(result.solutions)) == result.count
            valid = valid and all(is_solution(s, grid) for s in result.solutions)
            exact = result.exhaustive and result.count == known
            verdict = "ok" if exact and valid else "WRONG" if valid else "INVALID SOLUTION"
            if not result.exhaustive and valid:
                verdict = result.status.name.lower()
            shown = f"{result.count}{'' if result.exhaustive else '+'}"
            print(
                f"| {name} | {label} | {rounds} | {shown} | {known:,} | {median * 1e3:.1f} "
                f"| {statistics.median(cpu[name]) * 1e3:.1f} | {result.count / median:,.0f} "
                f"| {verdict} |"
            )


def main() -> None:
    """Parse the options and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--collections",
        help="NAME or NAME:STEP, comma-separated, or none (default: top95,top1465)",
    )
    parser.add_argument("--step", type=int, default=1, help="every STEP-th puzzle")
    parser.add_argument(
        "--backends", help="libraries, e.g. cpsat,pycosat,pysat,constraint (the default)"
    )
    parser.add_argument("--count-puzzles", type=int, default=100)
    parser.add_argument("--no-count", action="store_true", help="skip the counting part")
    parser.add_argument("--timeout", type=float, help="seconds per solve (default: none)")
    parser.add_argument(
        "--families",
        action="store_true",
        help="one library per family (FAMILIES) on top95 and 17clue:200, then known counts",
    )
    args = parser.parse_args()
    default = FAMILIES if args.families else MODEL_BACKENDS
    args.backends = args.backends or ",".join(default)
    args.collections = args.collections or (
        "top95,17clue:200" if args.families else "top95,top1465"
    )
    libraries = [b.strip() for b in args.backends.split(",") if b.strip()]
    print(
        f"# benchmarks/models.py --collections {args.collections} --step {args.step} "
        f"--backends {args.backends}{' --families' if args.families else ''}"
    )
    print(f"# load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for spec in args.collections.split(","):
        if spec.strip() in ("", "none"):
            continue
        name, _, step = spec.strip().partition(":")
        run_collection(name, int(step or args.step), libraries, args.timeout)
    if args.no_count:
        return
    if args.families:
        run_family_counts(libraries, args.timeout)
        return
    run_counting(libraries, args.count_puzzles, args.timeout)
    run_timeout_cost(libraries)


if __name__ == "__main__":
    main()
