"""Commands `compare`, `report` and `runs`: the harness on the command line.

- `compare [FILE...]` runs every (puzzle, backend) pair (see `sudokubench.harness`), shows a
  progress bar on stderr, prints the report, and exits 1 when an answer is wrong or backends
  disagree. With no FILE it runs the built-in showcase over every available backend with a
  short timeout. Ctrl-C stops cleanly and prints the command that resumes the run.
- `report [RUN]` prints a stored run (default: the latest) as a table, Markdown, CSV, JSON or
  a self-contained HTML page, writes plots (`--plot FILE`), or the change against another run.
- `runs` lists the stored runs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from sudokubench.cli.app import UsageFailure, app, emit_json
from sudokubench.errors import InputError, StoreError
from sudokubench.harness import CompareArgs, Interrupted, Progress
from sudokubench.harness import compare as run_compare
from sudokubench.harness.plan import SHOWCASE_TIMEOUT
from sudokubench.harness.stats import jobs_warning
from sudokubench.harness.store import Store

DbOpt = Annotated[
    Path,
    typer.Option("--db", help="The results database (SQLite).", show_default=True),
]
DEFAULT_DB = Path("sudokubench.sqlite")


class _Reporter:
    """Live progress on stderr: a rich bar on a terminal, a plain line every few seconds else."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.rich = sys.stderr.isatty() and not quiet
        self.bar = None
        self.task = None
        self.last = 0.0

    def start(self, run_id: int, total: int, done: int) -> None:
        if self.quiet:
            return
        todo = total - done
        resumed = f", {done} already stored" if done else ""
        print(f"run {run_id}: {todo} tasks to run{resumed}", file=sys.stderr, flush=True)
        if self.rich:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as Bar,
            )

            self.bar = Bar(
                TextColumn("compare"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                TextColumn("{task.fields[counts]}"),
                console=Console(file=sys.stderr),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task("compare", total=todo, counts="")

    @staticmethod
    def _counts(p: Progress) -> str:
        return (
            f"timeouts {p.timeouts}  errors {p.errors}  wrong {p.wrong}  "
            f"disagreements {p.disagreements}"
        )

    def update(self, p: Progress) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if self.bar is not None:  # a tenth of a second between redraws is smooth enough
            if now - self.last >= 0.1 or p.done == p.total:
                self.last = now
                self.bar.update(self.task, completed=p.done, counts=self._counts(p))
            return
        if now - self.last >= 5.0 or p.done == p.total:
            self.last = now
            eta = p.eta_s()
            left = f", about {eta:.0f} s left" if eta is not None and p.done < p.total else ""
            print(
                f"compare: {p.done}/{p.total} tasks, {self._counts(p)}{left}",
                file=sys.stderr,
                flush=True,
            )

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


@app.command()
def compare(
    files: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="FILE",
            help="Puzzle files (lines, annotated lines, blocks, CSV, .gz); none: the showcase.",
            show_default=False,
        ),
    ] = None,
    backends: Annotated[
        str,
        typer.Option(
            "--backends",
            "-b",
            help="Comma-separated backend names, module:attr, exec:'CMD', or all.",
        ),
    ] = "all",
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="Solutions to look for (2 proves uniqueness).")
    ] = 2,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            "-t",
            min=0.001,
            help=f"Seconds per task, enforced by killing the worker [default: 10; "
            f"showcase: {SHOWCASE_TIMEOUT:g}]",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Worker processes (1 for fair timings) [default: 1; --resume: the run's].",
            show_default=False,
        ),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Measured samples per puzzle and backend.")
    ] = 1,
    warmup: Annotated[
        int, typer.Option("--warmup", min=0, help="Discarded warm-up runs per pair.")
    ] = 0,
    box: Annotated[
        str | None, typer.Option("--box", metavar="RxC", help="Force the box shape, e.g. 2x3.")
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="Backend the time ratios refer to [default: fast if it runs, else the first].",
        ),
    ] = None,
    db: DbOpt = DEFAULT_DB,
    resume: Annotated[
        int | None,
        typer.Option(
            "--resume",
            metavar="RUN",
            help="Complete an interrupted run, with the options it was started with.",
        ),
    ] = None,
    trust_backends: Annotated[
        bool,
        typer.Option(
            "--trust-backends",
            help="With --resume: run the plug-ins and exec: programs the stored run names.",
        ),
    ] = False,
    json_out: Annotated[
        bool, typer.Option("--json", help="The report as one JSON object (stable keys).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Run every puzzle through every backend; check, cross-check, time and store the answers.

    Exit code 1 when an answer is wrong or backends disagree, 2 for bad input, 130 on Ctrl-C.
    """
    if resume is not None and files:
        raise UsageFailure("--resume takes the files from the stored run: give no FILE")
    try:
        args = CompareArgs(
            files=tuple(str(f.resolve()) for f in files or ()),
            backends=tuple(b.strip() for b in backends.split(",") if b.strip()),
            limit=limit,
            timeout=timeout,
            jobs=jobs or 1,
            repeat=repeat,
            warmup=warmup,
            box=box,
            baseline=baseline,
        )
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    if jobs is not None and (warning := jobs_warning(jobs)) and not quiet:
        print(f"warning: {warning}", file=sys.stderr)
    reporter = _Reporter(quiet)
    try:
        report = run_compare(
            args,
            db=db,
            resume=resume,
            progress=reporter.update,
            on_start=reporter.start,
            jobs=jobs,
            trust_backends=trust_backends,
        )
    except Interrupted as stop:
        reporter.stop()
        print(
            f"\ninterrupted: the finished tasks of run {stop.run_id} are stored\n"
            f"resume with: sudokubench compare --resume {stop.run_id} --db {stop.db}",
            file=sys.stderr,
        )
        raise typer.Exit(130) from None
    finally:
        reporter.stop()
    from sudokubench.harness.report import render

    if json_out:
        emit_json(report.to_json())
    else:
        sys.stdout.write(render(report, "table"))
        print(f"stored as run {report.run.id} in {db}")
    if not report.ok:
        raise typer.Exit(1)


def _open(db: Path) -> Store:
    try:
        return Store(db, create=False)
    except StoreError as exc:
        raise UsageFailure(str(exc)) from None


@app.command()
def report(
    run: Annotated[
        int | None,
        typer.Argument(metavar="[RUN]", help="Run id [default: the latest].", show_default=False),
    ] = None,
    db: DbOpt = DEFAULT_DB,
    fmt: Annotated[
        str,
        typer.Option("--format", "-f", help="table, markdown, csv, json or html."),
    ] = "table",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of stdout.")
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", metavar="FILE", help="Also write a plot (.png or .svg)."),
    ] = None,
    plot_kind: Annotated[
        str,
        typer.Option("--plot-kind", help="cactus, scatter (with --vs) or distributions."),
    ] = "cactus",
    vs: Annotated[
        tuple[str, str] | None,
        typer.Option("--vs", metavar="A B", help="Scatter plot of B's times against A's."),
    ] = None,
    against: Annotated[
        int | None,
        typer.Option("--against", metavar="OTHER", help="Show the change from run OTHER."),
    ] = None,
) -> None:
    """Show a stored run (default: the latest); exit 1 if it holds a wrong answer or
    disagreement."""
    from sudokubench.harness.report import FORMATS, build_report, plots, render, render_against

    if fmt not in FORMATS:
        raise UsageFailure(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if plot_kind not in plots.KINDS:
        raise UsageFailure(f"--plot-kind {plot_kind!r}: choose one of {', '.join(plots.KINDS)}")
    store = _open(db)
    try:
        try:
            built = build_report(store, run)
            old = build_report(store, against) if against is not None else None
        except StoreError as exc:
            raise UsageFailure(str(exc)) from None
    finally:
        store.close()
    try:
        text = render_against(old, built, fmt) if old else render(built, fmt, vs=vs)
        if plot is not None:
            if vs is not None or plot_kind == "scatter":
                pair = vs or plots.default_pair(built)
                if pair is None:
                    raise UsageFailure("a scatter plot needs two backends: use --vs A B")
                figure = plots.scatter(built, *pair)
            elif plot_kind == "distributions":
                figure = plots.distributions(built)
            else:
                figure = plots.cactus(built)
            plots.save(figure, plot)
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if not built.ok and old is None:
        raise typer.Exit(1)


@app.command()
def runs(
    db: DbOpt = DEFAULT_DB,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object a line.")] = False,
) -> None:
    """List the stored runs: id, start, end, status, task counts by status, answers that failed
    the checker (invalid), and puzzles with a wrong answer or a disagreement (disputed)."""
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
            print(
                f"{r.id:>4}  {r.started}  {r.ended or '-':<25}  {r.status:<11}  "
                f"{entry['tasks']} tasks: {entry['solved']} solved, "
                f"{entry['unsatisfiable']} unsat, {entry['timeout']} timeout, "
                f"{entry['error']} error, {entry['invalid']} invalid; "
                f"{disagree} puzzles disputed  "
                f"[{', '.join(entry['files'])} x {len(entry['backends'])} backends]"
            )
