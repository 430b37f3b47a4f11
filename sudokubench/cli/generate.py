"""The puzzle commands: generate (unique puzzles at a level) and rate (level, score, steps).

`generate` writes one puzzle a line (or `puzzle:1:solution` with --annotate, the annotated form
`compare` reads; or random complete grids with --complete) to stdout or --out FILE, and a
one-line summary with the seed on stderr.
`rate` prints each puzzle's level, score and technique counts (--json: one object a line with
`id`, `level`, `score`, `techniques`, and with --explain `steps`: `technique` and `text` of
each; --explain alone: every step in words). A puzzle with conflicting
givens, no solution or several solutions is refused with one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from sudokubench.cli.app import (
    ARGUMENT_ID,
    BackendOpt,
    BoxOpt,
    JsonOpt,
    PuzzleArg,
    UsageFailure,
    app,
    emit_json,
    fail,
    parse_box,
    read_input,
    resolve_backend,
)
from sudokubench.cli.progress import Ticker
from sudokubench.generate.batch import Request, complete_grids, generate_puzzles, new_seed
from sudokubench.generate.digging import GenerationError, Symmetry
from sudokubench.generate.rating import TECHNIQUES, Level, Rating, RatingError, rate
from sudokubench.grid import Shape
from sudokubench.processes import MAX_WORKERS
from sudokubench.solvers import DEFAULT_BACKEND

_TITLES = {t.key: t.title for t in TECHNIQUES}

T = TypeVar("T")


def _choice(parse: Callable[[Any], T], value: Any, option: str) -> T | None:
    """Parse an option value (None stays None); a bad one is bad usage (exit 2)."""
    if value is None:
        return None
    try:
        return parse(value)
    except ValueError as exc:
        raise UsageFailure(f"{option}: {exc}") from None


@app.command()
def generate(
    count: Annotated[int, typer.Option("--count", "-n", min=1, help="Puzzles to write.")] = 1,
    difficulty: Annotated[
        str | None,
        typer.Option(
            "--difficulty",
            "-d",
            metavar="LEVEL",
            help="Keep only this level: simple, easy, medium, hard, unfair, expert. Default: any.",
        ),
    ] = None,
    size: Annotated[
        int | None,
        typer.Option("--size", min=4, help="N of an NxN grid (4, 6, 8, 9, 12, 16, 25); default 9."),
    ] = None,
    box: BoxOpt = None,
    symmetry: Annotated[
        str,
        typer.Option("--symmetry", help="Clue positions: none, rot180, rot90, mirror or diagonal."),
    ] = "none",
    minimal: Annotated[
        bool, typer.Option("--minimal", help="Every clue necessary (checked one by one).")
    ] = False,
    clues: Annotated[
        int | None,
        typer.Option("--clues", min=0, help="Stop digging at this many givens (or fewer)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Same seed, same puzzles. Default: random.")
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=1, max=MAX_WORKERS, help="Worker processes (same output)."
        ),
    ] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write here instead of stdout.")
    ] = None,
    annotate: Annotated[
        bool, typer.Option("--annotate", help="Write puzzle:1:solution lines (for compare).")
    ] = False,
    complete: Annotated[
        bool, typer.Option("--complete", help="Write random complete grids, not puzzles.")
    ] = False,
    backend: BackendOpt = DEFAULT_BACKEND,
) -> None:
    """Generate unique puzzles (proved by a counting backend), optionally of one level.

    Each puzzle is dug from a random complete grid, one symmetry orbit at a time, while the
    solution stays unique; then it is rated, and kept if it has the asked level.
    """
    shape = parse_box(box) if box else _choice(Shape.for_size, size or 9, "--size")
    if size is not None and size != shape.n:
        raise UsageFailure(
            f"--size {size} and --box {shape} disagree: {shape} boxes make {shape.n}x{shape.n}"
        )
    level = _choice(Level.parse, difficulty, "--difficulty")
    sym = _choice(Symmetry.parse, symmetry, "--symmetry")
    if clues is not None and clues > shape.cells:
        raise UsageFailure(f"--clues: a {shape.n}x{shape.n} grid has only {shape.cells} cells")
    if complete and (level or minimal or clues is not None or sym is not Symmetry.NONE):
        raise UsageFailure(
            "--complete writes whole grids: no --difficulty, --minimal, --clues or --symmetry"
        )
    resolve_backend(backend)
    run_seed = new_seed() if seed is None else seed
    request = Request(shape, level, sym, minimal, clues, backend)
    start = time.perf_counter()
    written = 0
    handle = open(out, "w", encoding="utf-8") if out else None  # noqa: SIM115
    try:
        if complete:
            lines = (str(grid) for grid in complete_grids(shape, count, run_seed))
        else:
            made = generate_puzzles(request, count, run_seed, jobs=jobs)
            lines = (g.annotated() if annotate else str(g.puzzle) for g in made)
        with Ticker("generate", count) as ticker:
            for line in lines:
                # sys.stdout looked up each time: the bar redirects it on a terminal
                print(line, file=handle or sys.stdout, flush=True)
                written += 1
                ticker.advance()
    except GenerationError as exc:
        raise fail(str(exc), 1) from None
    finally:
        if handle is not None:
            handle.close()
    elapsed = time.perf_counter() - start
    what = f"{level} " if level else ""
    noun = "complete grid" if complete else "puzzle"
    print(
        f"generated {written} {what}{shape.n}x{shape.n} {noun}{'s' * (written != 1)} "
        f"in {elapsed:.2f} s (seed {run_seed})",
        file=sys.stderr,
    )


def _summary(rating: Rating) -> str:
    used = ", ".join(f"{_TITLES[key]} x{times}" for key, times in rating.techniques.items())
    return f"{rating.level} (score {rating.score}): {used or 'no empty cell'}"


@app.command(name="rate")
def rate_command(
    puzzle: PuzzleArg,
    explain: Annotated[
        bool, typer.Option("--explain", help="Print every step, as a teacher would.")
    ] = False,
    as_json: JsonOpt = False,
    box: BoxOpt = None,
    backend: BackendOpt = DEFAULT_BACKEND,
) -> None:
    """Rate puzzles by the human techniques they need: level, score, techniques used.

    Levels: simple (naked singles), easy (+ hidden singles), medium (+ pairs, triples,
    pointing, box/line), hard (+ basic fish, single-digit patterns, wings, uniqueness),
    unfair (+ chains, ALS, Sue de Coq), expert (forcing chains and nets, trial).
    A puzzle that is not unique or has conflicting givens is refused (exit code 2).
    """
    solver = resolve_backend(backend)
    refused = False
    for record in read_input(puzzle, box, progress="rate"):
        label = "" if record.id == ARGUMENT_ID else f"{record.id}: "
        try:
            rating = rate(record.puzzle, solver)
        except RatingError as exc:
            print(f"sudokubench: error: {label}cannot rate: {exc}", file=sys.stderr)
            refused = True
            continue
        if as_json:
            obj = {"id": record.id, **rating.to_json()}
            if explain:
                obj["steps"] = [
                    {"technique": step.technique, "text": step.text} for step in rating.steps
                ]
            emit_json(obj)
            continue
        print(f"{label}{_summary(rating)}")
        if explain:
            width = len(str(len(rating.steps)))
            for i, step in enumerate(rating.steps, 1):
                print(f"{i:>{width}}. {step.text}")
    if refused:
        raise typer.Exit(2)
