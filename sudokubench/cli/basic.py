"""The everyday commands: solve, count, check, show, backends.

Every command takes PUZZLE|FILE|- (see `read_input` in `cli/app.py`) and `--box RxC`.
Exit codes: 0 ok; 1 no solution (solve), not valid (check), a wrong answer or backends that
disagree (`count --backend all`); 2 bad usage or unreadable input; 3 a backend ended in ERROR
and nothing was wrong (`solve`, `count`; 0 for `count --allow-errors`).
"""

from __future__ import annotations

import enum
import json
import sys
from collections import Counter
from collections.abc import Callable
from typing import Annotated

import typer

from sudokubench.backend import SolveResult, Status, Streaming
from sudokubench.cli.app import (
    ARGUMENT_ID,
    UsageFailure,
    app,
    emit_json,
    read_input,
    resolve_backend,
    resolve_backends,
    result_json,
    run_backend,
)
from sudokubench.cli.every import stream_all, too_many
from sudokubench.cli.options import (
    TEXT_FORMATS,
    AllOpt,
    BackendOpt,
    BackendsOpt,
    BoxOpt,
    JsonOpt,
    PuzzleArg,
    QuietOpt,
    TextFormatOpt,
    TimeoutOpt,
    examples,
    format_option,
    pick_format,
)
from sudokubench.formats import FORMATS, PuzzleRecord, format_candidates, grid_to_json, parse_grid
from sudokubench.grid import Grid, solution_problem
from sudokubench.solvers import DEFAULT_BACKEND

#: `solve --all`: no limit in practice; `--timeout` bounds a grid with very many solutions.
ALL = sys.maxsize
#: Seconds each backend gets in `count --backend a,b|all` unless `--timeout` says otherwise.
SIDE_BY_SIDE_TIMEOUT = 10.0


class OutputFormat(enum.StrEnum):
    """How `solve` and `show` print grids."""

    pretty = "pretty"
    line = "line"
    tokens = "tokens"
    json = "json"


GRID_FORMATS = tuple(f.value for f in OutputFormat)
GridFormatOpt = format_option(GRID_FORMATS)


def _plural(count: int, word: str = "solution") -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _no_solution_reason(puzzle: Grid, result: SolveResult) -> str:
    """Why a puzzle has no solution, as far as the result says."""
    if result.status is Status.TIMEOUT:
        return "timed out before finding a solution"
    if result.status is Status.ERROR:
        return f"backend error: {result.message}"
    conflicts = puzzle.conflicts()
    if conflicts:
        return "no solution: " + "; ".join(c.describe(puzzle.shape) for c in conflicts)
    return "no solution"


def describe_count(result: SolveResult, limit: int) -> str:
    """One phrase for a count: `28 solutions`, `at least 100 solutions (--limit 100)`, ..."""
    if result.status is Status.ERROR:
        return f"error: {result.message}"
    if result.status is Status.UNSATISFIABLE:
        return "no solution"
    if result.exhaustive:
        return _plural(result.count)
    if result.status is Status.TIMEOUT:
        return f"timed out after finding {_plural(result.count)} (at least {result.count})"
    return f"at least {_plural(result.count)} (stopped at --limit {limit})"


@app.command(
    epilog=examples(
        "sudokubench solve top95:7",
        "sudokubench solve top95:..3 -f line -b dlx",
        "sudokubench solve '8.9.....7.76.89....3..7.89..2.7.8.1.7.......2.6.12.47.6978.4231...9.67"
        ".......79.6' -n 2",
    )
)
def solve(
    puzzle: PuzzleArg,
    backend: BackendOpt = DEFAULT_BACKEND,
    all_solutions: AllOpt = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", metavar="N", min=1, help="Print up to N solutions."),
    ] = None,
    fmt: GridFormatOpt = "pretty",
    as_json: JsonOpt = False,
    timeout: TimeoutOpt = None,
    box: BoxOpt = None,
) -> None:
    """Solve puzzles; with --all or --limit N print each solution.

    Each solution is printed as `Solution #k` and checked with the independent checker. Exit
    code 1 when a puzzle has no solution or the backend returned a wrong one, 3 when the
    backend failed (ERROR) and nothing was wrong (the reason goes to stderr).
    """
    output = OutputFormat(pick_format(fmt, as_json, GRID_FORMATS))
    if all_solutions and limit is not None:
        raise UsageFailure("--all and --limit exclude each other")
    limit = ALL if all_solutions else (limit or 1)
    from sudokubench.harness.verify import EXIT_ERRORS, EXIT_WRONG

    solver = resolve_backend(backend)
    failed = False
    errors = 0
    for record in read_input(puzzle, box):
        streams = all_solutions and output is not OutputFormat.json and record.puzzle.is_valid()
        if streams and (too_many(record, solver) or isinstance(solver, Streaming)):
            wrong, error = _solve_streamed(solver, record, output, timeout)  # type: ignore[arg-type]
            failed, errors = failed or wrong, errors + error
            continue
        result, seconds = run_backend(solver, record.puzzle, limit=limit, timeout=timeout)
        if output is OutputFormat.json:
            emit_json(result_json(result, seconds, id=record.id, puzzle=str(record.puzzle)))
        elif output is OutputFormat.line:
            for solution in result.solutions:
                print(solution)
            if not result.solutions:
                print("none" if result.status is Status.UNSATISFIABLE else "?")
        else:
            header = record.id != ARGUMENT_ID
            _print_solutions(record.id, result, limit, FORMATS[output.value], header=header)
        if result.status is Status.ERROR:
            errors += 1
        elif not result.solutions:
            failed = True
        if not result.solutions:
            print(
                f"sudokubench: {record.id}: {_no_solution_reason(record.puzzle, result)}",
                file=sys.stderr,
            )
        for k, solution in enumerate(result.solutions, 1):
            why = solution_problem(solution, record.puzzle)
            if why is not None:
                failed = True
                print(
                    f"sudokubench: {record.id}: WRONG: solution #{k} of {result.backend}: {why}",
                    file=sys.stderr,
                )
    if failed:
        raise typer.Exit(EXIT_WRONG)
    if errors:
        raise typer.Exit(EXIT_ERRORS)


def _solve_streamed(
    solver: Streaming, record: PuzzleRecord, output: OutputFormat, timeout: float | None
) -> tuple[bool, bool]:
    """`solve --all` of one puzzle, each solution printed as it is found (`cli/every.py`):
    (something wrong or no solution, an error)."""
    form = FORMATS[output.value]
    line = output is OutputFormat.line
    if not line and record.id != ARGUMENT_ID:
        print(f"# {record.id}")

    def show(k: int, solution: Grid) -> None:
        if line:
            print(solution)
        else:
            print(f"Solution #{k}\n{form(solution)}\n")

    done = stream_all(solver, record, show, timeout)
    n = _plural(done.count)
    said = {
        Status.SOLVED: f"{n} (all found)",
        Status.UNSATISFIABLE: "no solution",
        Status.TIMEOUT: f"timed out after finding {n} (at least {done.count})",
        Status.ERROR: f"backend error after {n}: {done.message}",
    }[done.status]
    if line and not done.count:
        print("none" if done.status is Status.UNSATISFIABLE else "?")
    elif not line and done.count:
        print(said)
    if not done.count or done.status is Status.ERROR:
        print(f"sudokubench: {record.id}: {said}", file=sys.stderr)
    return done.wrong > 0 or (not done.count and done.status is not Status.ERROR), (
        done.status is Status.ERROR
    )


def _print_solutions(
    record_id: str, result: SolveResult, limit: int, form: Callable[[Grid], str], *, header: bool
) -> None:
    """The pretty (or tokens) output of one puzzle's solutions."""
    if header:
        print(f"# {record_id}")
    numbered = limit > 1
    for k, solution in enumerate(result.solutions, 1):
        if numbered:
            print(f"Solution #{k}")
        print(form(solution))
        if numbered or header:
            print()
    if numbered and result.solutions:
        print(describe_count(result, limit) + (" (all found)" if result.exhaustive else ""))


@app.command(
    epilog=examples(
        "sudokubench count top95:1",
        "sudokubench count top95:..3 -b fast,dlx -n 2",
        "sudokubench count showcase:13 --json",
    )
)
def count(
    puzzle: PuzzleArg,
    backend: BackendsOpt = DEFAULT_BACKEND,
    limit: Annotated[
        int,
        typer.Option("--limit", "-n", metavar="N", min=1, help="Stop counting at N solutions."),
    ] = 1000,
    timeout: TimeoutOpt = None,
    fmt: TextFormatOpt = "text",
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
    box: BoxOpt = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all", "-a", help="Count every solution, keeping none but the first few (native)."
        ),
    ] = False,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="Estimate the count by random probes (Knuth; native), for --timeout s (10).",
        ),
    ] = False,
    allow_errors: Annotated[
        bool,
        typer.Option("--allow-errors", help="Exit 0 rather than 3 when a backend failed."),
    ] = False,
) -> None:
    """Count solutions up to --limit: exact when the search finished.

    Answers are checked (every solution with the independent checker, against the file's
    expected count and solution when it has them); with `--backends a,b` or `all` every
    backend counts (10 s each unless --timeout says otherwise) and the counts are
    cross-checked. Exit code 1 on a wrong answer or a disagreement, 3 when a backend ended in
    ERROR and nothing was wrong (0 with --allow-errors); a timeout is an answer (`?`, `>=n`).
    `--all` and `--estimate` count with the `native` backend: every solution without keeping
    them, or an estimate.
    """
    from sudokubench.harness.verify import agree, check_result, exit_code, expected_voice

    as_json = pick_format(fmt, as_json, TEXT_FORMATS) == "json"
    if every or estimate:
        from sudokubench.cli.native import count_natively

        if every and estimate:
            raise UsageFailure("--all and --estimate exclude each other")
        if backend not in (DEFAULT_BACKEND, "native"):
            raise UsageFailure("--all and --estimate count with the native backend only")
        if not count_natively(read_input(puzzle, box), timeout, as_json, estimate=estimate):
            raise typer.Exit(1)
        return

    solvers = resolve_backends(backend)
    if len(solvers) > 1 and timeout is None:
        timeout = SIDE_BY_SIDE_TIMEOUT  # one slow backend must not hold up the others forever
    disagreed = False
    errors: Counter[str] = Counter()
    for record in read_input(puzzle, box, progress="count", quiet=quiet):
        rows = []
        for solver in solvers:
            result, seconds = run_backend(solver, record.puzzle, limit=limit, timeout=timeout)
            rows.append((result, seconds))
            if result.status is Status.ERROR:
                errors[result.backend] += 1
            if as_json:
                emit_json(result_json(result, seconds, id=record.id))
        voices = [check_result(r.backend, record.puzzle, r, limit) for r, _ in rows]
        expected = expected_voice(record.puzzle, record.expected_count, record.expected_solution)
        verdict = agree(record.id, voices + ([expected] if expected else []))
        disagreed |= not verdict.agreed
        if as_json:
            continue
        if len(rows) == 1 and verdict.agreed:
            text = describe_count(rows[0][0], limit)
            print(text if record.id == ARGUMENT_ID else f"{record.id}: {text}")
            continue
        print(f"{record.id}:")
        width = max(len(r.backend) for r, _ in rows)
        for (r, seconds), voice in zip(rows, voices, strict=True):
            mark = "" if voice.sound else f"  WRONG: {voice.problem}"
            if r.status is Status.TIMEOUT:
                mark += "  (timed out)"
            elif r.status is Status.ERROR:
                mark += f"  (error: {r.message})"
            print(f"  {r.backend:<{width}}  {voice.verdict!s:>7}  {seconds:9.4f} s{mark}")
        if verdict.agreed:
            print(f"  agree: {_consensus(verdict.consensus, verdict.solutions_found)}")
        else:
            for problem in verdict.problems:
                print(f"  DISAGREE: {problem.message}")
    if disagreed and as_json:
        print("sudokubench: the answers disagree", file=sys.stderr)
    if errors:
        per = ", ".join(f"{name} {n}" for name, n in errors.items())
        print(f"sudokubench: {errors.total()} answers were errors ({per})", file=sys.stderr)
    if code := exit_code(wrong=disagreed, errors=errors.total(), allow_errors=allow_errors):
        raise typer.Exit(code)


def _consensus(consensus: str, found: int) -> str:
    """What the backends agree on, in words: the count (`=28`, `0`, `>=100`) and, for a lower
    bound, where its number comes from."""
    from sudokubench.harness.verify import Verdict

    verdict = Verdict.parse(consensus)
    if verdict.kind == "exact":
        words = "no solution" if verdict.n == 0 else f"exactly {_plural(verdict.n)}"
        return f"{consensus} ({words})"
    if verdict.kind != "at_least":
        return "? (no backend finished a count)"
    source = (
        f"the {verdict.n} different ones the backends found together"
        if found == verdict.n
        else "the largest count a backend reached"
    )
    return f"{consensus} (at least {_plural(verdict.n)}: {source})"


@app.command(
    epilog=examples(
        "sudokubench check top95:..3",
        "sudokubench check showcase:20 --json",
    )
)
def check(
    puzzle: PuzzleArg,
    solution: Annotated[
        str | None,
        typer.Option(
            "--solution",
            "-s",
            metavar="GRID",
            help="A grid to check as a solution of the puzzle.",
        ),
    ] = None,
    fmt: TextFormatOpt = "text",
    as_json: JsonOpt = False,
    box: BoxOpt = None,
) -> None:
    """Check puzzles without solving: repeated givens, and a solution if given.

    Repeated givens are shown with where they are; --solution is checked against the puzzle.
    A file's own solutions (annotated lines, name.solutions.txt, a CSV column) are checked too.
    Exit code 1 when a puzzle is not valid or a solution is wrong.
    """
    as_json = pick_format(fmt, as_json, TEXT_FORMATS) == "json"
    bad = False
    for record in read_input(puzzle, box):
        grid = record.puzzle
        problems = [c.describe(grid.shape) for c in grid.conflicts()]
        candidate = record.expected_solution
        if solution is not None:
            candidate = parse_grid(solution, grid.shape, where="--solution")
        why = solution_problem(candidate, grid) if candidate is not None else None
        valid = not problems
        if as_json:
            emit_json(
                {
                    "id": record.id,
                    "valid": valid,
                    "complete": grid.is_complete(),
                    "givens": grid.givens,
                    "conflicts": problems,
                    "is_solution": None if candidate is None else why is None,
                    "solution_problem": why,
                }
            )
        else:
            if not valid:
                state = "not valid: " + "; ".join(problems)
            elif grid.is_complete():
                state = "valid and complete: a solved grid"
            else:
                state = f"valid: {grid.givens} givens, no repeated digit"
            print(f"{record.id}: {state}")
            if candidate is not None:
                verdict = "is a solution" if why is None else f"is not a solution: {why}"
                print(f"{record.id}: the solution {verdict}")
        bad |= not valid or why is not None
    if bad:
        raise typer.Exit(1)


@app.command(
    epilog=examples(
        "sudokubench show top95:7",
        "sudokubench show top95:..3 -f line",
        "sudokubench show top95:7 --candidates",
    )
)
def show(
    puzzle: PuzzleArg,
    candidates: Annotated[
        bool, typer.Option("--candidates", help="Show every cell's candidates.")
    ] = False,
    fmt: GridFormatOpt = "pretty",
    as_json: JsonOpt = False,
    box: BoxOpt = None,
) -> None:
    """Print puzzles in another form (pretty, line, tokens, json), or with their candidates."""
    output = OutputFormat(pick_format(fmt, as_json, GRID_FORMATS))
    for record in read_input(puzzle, box):
        grid = record.puzzle
        if candidates:
            print(format_candidates(grid))
        elif output is OutputFormat.json:
            print(json_line(record.id, grid))
        else:
            print(FORMATS[output.value](grid))
        if output is OutputFormat.pretty or candidates:
            print()


def json_line(record_id: str, grid: Grid) -> str:
    """A grid as one JSON line with its id."""
    return json.dumps({"id": record_id, **grid_to_json(grid)}, separators=(",", ":"))


__all__ = ["check", "count", "describe_count", "show", "solve"]
