"""Commands `report` and `runs`: what `compare` stored, read back from its database.

- `report [RUN]` prints a stored run (default: the latest) as a table, Markdown, CSV, JSON or
  a self-contained HTML page, writes plots (`--plot FILE`), or the change against another run.
- `runs` lists the stored runs.

The `--db`, `--par` and `--allow-errors` options are `cli/compare.py`'s, shared with `compare`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer

from sudokubench.cli.app import UsageFailure, app, emit_json
from sudokubench.cli.compare import DEFAULT_DB, AllowErrorsOpt, DbOpt, ParOpt, ReportFormatOpt
from sudokubench.cli.options import (
    TABLE_FORMATS,
    JsonOpt,
    OutputOpt,
    TableFormatOpt,
    examples,
    pick_format,
)
from sudokubench.cli.progress import terminal_width
from sudokubench.errors import InputError, StoreError
from sudokubench.harness.store import Store
from sudokubench.output import escape_controls


def _open(db: Path) -> Store:
    try:
        return Store(db, create=False)
    except StoreError as exc:
        raise UsageFailure(str(exc)) from None


def _refuse_the_database(db: Path, *outputs: Path | None) -> None:
    """UsageFailure when an output would overwrite the results database (or its WAL files),
    said before anything is opened."""
    guarded = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    for out in outputs:
        if out is None or str(out) == "-":
            continue
        for path in guarded:
            try:
                same = out.resolve() == path.resolve() or os.path.samefile(out, path)
            except OSError:
                same = False
            if same:
                raise UsageFailure(f"{out} is the results database {db}: write to another file")


def _save_plot(built: Any, path: Path, kind: str, vs: tuple[str, str] | None) -> None:
    """Draw the run's `kind` of plot (a scatter of `vs` when given) into `path`."""
    from sudokubench.harness.report import plots

    if vs is not None or kind == "scatter":
        pair = vs or plots.default_pair(built)
        if pair is None:
            raise UsageFailure("a scatter plot needs two backends: use --vs A B")
        figure = plots.scatter(built, *pair)
    elif kind == "distributions":
        figure = plots.distributions(built)
    else:
        figure = plots.cactus(built)
    plots.save(figure, path)


class _Output:
    """Where a report is written as it is made: FILE, or stdout, which gets a last newline
    when the report does not end with one."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.last = ""

    def __enter__(self) -> _Output:
        self.file: TextIO = (
            sys.stdout if self.path is None else self.path.open("w", encoding="utf-8")
        )
        return self

    def write(self, text: str) -> int:
        if text:
            self.last = text[-1]
            self.file.write(text)
        return len(text)

    def __exit__(self, *exc: object) -> None:
        if self.path is not None:
            self.file.close()
        elif self.last != "\n":
            self.file.write("\n")


@app.command(
    epilog=examples(
        "sudokubench report",
        "sudokubench report --format markdown",
        "sudokubench report --json",
        "sudokubench report -f html -o run.html --plot cactus.png",
        "sudokubench report --format csv --per-task -o tasks.csv",
    )
)
def report(
    run: Annotated[
        int | None,
        typer.Argument(metavar="RUN", help="Run id [default: the latest].", show_default=False),
    ] = None,
    db: DbOpt = DEFAULT_DB,
    fmt: ReportFormatOpt = "table",
    as_json: JsonOpt = False,
    output: OutputOpt = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", metavar="FILE", help="Also write a plot (.png or .svg)."),
    ] = None,
    plot_kind: Annotated[
        str,
        typer.Option(
            "--plot-kind", metavar="KIND", help="cactus, scatter (with --vs) or distributions."
        ),
    ] = "cactus",
    vs: Annotated[
        tuple[str, str] | None,
        typer.Option("--vs", metavar="A B", help="Scatter plot of B's times against A's."),
    ] = None,
    against: Annotated[
        int | None,
        typer.Option("--against", metavar="OTHER", help="Show the change from run OTHER."),
    ] = None,
    allow_errors: AllowErrorsOpt = False,
    par: ParOpt = 2.0,
    per_task: Annotated[
        bool, typer.Option("--per-task", help="With --format csv or json: one row per task.")
    ] = False,
    fail_slower: Annotated[
        float | None,
        typer.Option(
            "--fail-slower",
            metavar="PCT",
            min=0.0,
            help="With --against: exit 4 when a backend got slower by more than PCT percent "
            "(its whole 95% interval above).",
        ),
    ] = None,
) -> None:
    """Show a stored run (default: the latest) as a table, a page, data or plots.

    Exit code 1 if the run holds a wrong answer or disagreement, 3 if tasks ended in ERROR (0
    with --allow-errors), 4 with --fail-slower when a backend got slower than run OTHER.
    """
    from sudokubench.harness.report import (
        FORMATS,
        build_report,
        compare_runs,
        render_against,
        slower_backends,
    )
    from sudokubench.harness.report.against import EXIT_SLOWER, gate_refusals
    from sudokubench.harness.report.render import PLOT_KINDS, TASK_FORMATS, write, write_tasks

    if fail_slower is not None and against is None:
        raise UsageFailure("--fail-slower needs --against OTHER: the run to compare with")
    fmt = pick_format(fmt, as_json, FORMATS)
    if per_task and (fmt not in TASK_FORMATS or against is not None):
        raise UsageFailure("--per-task goes with --format csv or json, without --against")
    if plot_kind not in PLOT_KINDS:
        raise UsageFailure(f"--plot-kind {plot_kind!r}: choose one of {', '.join(PLOT_KINDS)}")
    _refuse_the_database(db, output, plot)
    store = _open(db)
    try:
        try:
            built = build_report(store, run, par=par)
            old = build_report(store, against, par=par) if against is not None else None
        except StoreError as exc:
            raise UsageFailure(str(exc)) from None
    finally:
        store.close()
    try:
        with _Output(output) as out:
            if old is not None:
                out.write(render_against(old, built, fmt))
            elif per_task:
                write_tasks(built, fmt, out)
            else:
                write(built, fmt, out, vs=vs, width=terminal_width())
        if plot is not None:
            _save_plot(built, plot, plot_kind, vs)
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    code = built.exit_code(allow_errors=allow_errors)
    rows = [] if old is None or fail_slower is None else compare_runs(old, built)
    if rows and (refused := gate_refusals(old, built, rows)):
        raise UsageFailure(
            f"--fail-slower cannot judge run {built.run.id} against run {old.run.id}: "
            + "; ".join(refused)
            + ": compare complete runs of enough puzzles, each taken on a quiet machine"
        )
    if slower := slower_backends(rows, fail_slower or 0.0):
        print(
            f"sudokubench: slower than run {against} by more than {fail_slower:g}%: "
            + ", ".join(slower),
            file=sys.stderr,
        )
        code = code or EXIT_SLOWER
    if code:
        raise typer.Exit(code)


@app.command(epilog=examples("sudokubench runs", "sudokubench runs --json"))
def runs(
    db: DbOpt = DEFAULT_DB,
    fmt: TableFormatOpt = "table",
    json_out: JsonOpt = False,
) -> None:
    """List the stored runs with their task counts by status.

    A line a run: id, start, end, status, task counts by status, answers that failed the
    checker (invalid), and puzzles with a wrong answer or a disagreement (disputed).
    """
    json_out = pick_format(fmt, json_out, TABLE_FORMATS) == "json"
    store = _open(db)
    try:
        rows = store.runs()
        counts = store.status_counts()
    except StoreError as exc:  # a damaged database
        raise UsageFailure(str(exc)) from None
    finally:
        store.close()
    if not rows:
        print(f"{db} holds no runs yet (run compare first)", file=sys.stderr)
    for r in rows:
        per = counts.get(r.id, {})
        entry = {
            "run_id": r.id,
            "started": r.started,
            "ended": r.ended,
            "status": r.status,
            "files": [Path(f).name for f in r.args.get("files", [])] or ["showcase"],
            "backends": r.args.get("backends", []),
            "tasks": sum(v for k, v in per.items() if k != "wrong"),
            "solved": per.get("solved", 0),
            "unsatisfiable": per.get("unsatisfiable", 0),
            "timeout": per.get("timeout", 0),
            "error": per.get("error", 0),
            "invalid": per.get("wrong", 0),
            "disagreements": r.disagreements,
        }
        if json_out:
            emit_json(entry)
        else:
            disagree = "-" if r.disagreements is None else r.disagreements
            print(  # (the database's fields and the files' names as text: `escape_controls`)
                escape_controls(
                    f"{r.id:>4}  {r.started}  {r.ended or '-':<25}  {r.status:<11}  "
                    f"{entry['tasks']} tasks: {entry['solved']} solved, "
                    f"{entry['unsatisfiable']} unsat, {entry['timeout']} timeout, "
                    f"{entry['error']} error, {entry['invalid']} invalid; "
                    f"{disagree} puzzles disputed  "
                    f"[{', '.join(entry['files'])} x {len(entry['backends'])} backends]"
                )
            )
