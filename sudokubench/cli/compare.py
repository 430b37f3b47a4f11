"""Command `compare`: the harness on the command line (`report` and `runs`, which read what it
stored, are `cli/report.py`'s; they share the `--db`, `--par` and `--allow-errors` options
defined here).

- `compare [PUZZLE|FILE|-...]` runs every (puzzle, backend) pair (see `sudokubench.harness`),
  shows a progress bar with an ETA on stderr when it is a terminal, prints the report, and
  exits 1 when an answer is wrong or backends disagree, 3 when nothing is wrong but some task
  ended in ERROR (0 with `--allow-errors`). Inputs are read as every command
  reads them (`sudokubench.catalog`): files, collections by name with subsets, stdin, puzzle
  strings.
  With none it runs the built-in showcase over every available backend with a
  short timeout. Ctrl-C stops cleanly and prints the command that resumes the run.
  `--cluster ADDRESS` runs the tasks on a dask.distributed scheduler, `--cluster local:N` on N
  dask workers here (`harness/pool/dask.py`); the database stays this process's alone.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from sudokubench.cli.app import UsageFailure, app
from sudokubench.cli.native import ready_native
from sudokubench.cli.progress import Ticker, terminal_width
from sudokubench.errors import InputError
from sudokubench.harness import CompareArgs, Interrupted, Progress
from sudokubench.harness import compare as run_compare
from sudokubench.harness.noise import load_average, load_warning
from sudokubench.harness.plan import SHOWCASE_TIMEOUT
from sudokubench.harness.pool import Executor
from sudokubench.harness.stats import jobs_warning

DbOpt = Annotated[
    Path,
    typer.Option("--db", help="The results database (SQLite).", show_default=True),
]
DEFAULT_DB = Path("sudokubench.sqlite")
ParOpt = Annotated[
    float,
    typer.Option(
        "--par",
        metavar="K",
        min=1.0,
        help="The penalty factor of the PAR score: an unsolved puzzle counts K x the timeout.",
    ),
]
AllowErrorsOpt = Annotated[
    bool,
    typer.Option(
        "--allow-errors", help="Exit 0 rather than 3 when tasks ended in ERROR but none is wrong."
    ),
]


class _Reporter:
    """Live progress on stderr with an ETA and the counts so far, on a terminal only (a pipe
    or a log stays quiet: see `cli/progress.py`)."""

    def __init__(self, quiet: bool, jobs: int) -> None:
        self.quiet = quiet
        self.jobs = jobs
        self.ticker: Ticker | None = None
        self.last = 0.0
        self.warning: str | None = None  # the load warning, once the run has started

    def start(self, run_id: int, total: int, done: int) -> None:
        self.ticker = Ticker(f"run {run_id}", total - done, quiet=self.quiet)
        if not self.quiet:  # said with the first outcome: bad input stays one error line
            self.warning = load_warning(load_average(), os.cpu_count(), self.jobs)

    @staticmethod
    def _counts(p: Progress) -> str:
        return f"timeouts {p.timeouts} errors {p.errors} wrong {p.wrong} disagree {p.disagreements}"

    def update(self, p: Progress) -> None:
        if self.warning:
            print(f"warning: {self.warning}", file=sys.stderr, flush=True)
            self.warning = None
        if self.ticker is None or not self.ticker.shown:
            return
        now = time.monotonic()
        if now - self.last >= 0.1 or p.done == p.total:  # a tenth of a second is smooth enough
            self.last = now
            self.ticker.update(p.done, note=self._counts(p))

    def stop(self) -> None:
        if self.ticker is not None:
            self.ticker.close()


@app.command()
def compare(
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PUZZLE|FILE|-",
            help="Puzzle files (lines, annotated lines, blocks, CSV, .gz), collections by name "
            "(top95, top95:1-20), - (stdin) or puzzles written out; none: the showcase.",
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
        int,
        typer.Option("--warmup", min=0, help="Discarded warm-up runs per pair (stored, untimed)."),
    ] = 0,
    no_warmup: Annotated[
        bool,
        typer.Option(
            "--no-warmup",
            help="Time every call, even each worker's first of each backend (no warm-up at all).",
        ),
    ] = False,
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
    allow_errors: AllowErrorsOpt = False,
    par: ParOpt = 2.0,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            metavar="ADDRESS",
            help="Run the tasks on a dask scheduler (tcp://host:8786), or on local:N, N dask "
            "workers on this machine (needs the dask extra).",
        ),
    ] = None,
    cluster_timeout: Annotated[
        float,
        typer.Option(
            "--cluster-timeout",
            min=0.1,
            help="Seconds to reach the --cluster scheduler, and then for its first worker.",
        ),
    ] = 10.0,
) -> None:
    """Run every puzzle through every backend; check, cross-check, time and store the answers.

    Exit code 0 when every task answered (timeouts allowed) and all agree; 1 when an answer is
    wrong or backends disagree; 3 when tasks ended in ERROR (0 with --allow-errors); 2 for bad
    input; 130 on Ctrl-C.
    """
    _refuse_clashes(
        resume is not None and bool(files), no_warmup, warmup, bool(cluster), jobs is not None
    )
    try:
        args = CompareArgs(
            files=tuple(files or ()),
            backends=tuple(b.strip() for b in backends.split(",") if b.strip()),
            limit=limit,
            timeout=timeout,
            jobs=jobs or 1,
            repeat=repeat,
            warmup=warmup,
            box=box,
            baseline=baseline,
            warm_up=not no_warmup,
        )
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    if jobs is not None and (warning := jobs_warning(jobs)) and not quiet:
        print(f"warning: {warning}", file=sys.stderr)
    if resume is None and {"all", "native"} & {b.partition(":")[0] for b in args.backends}:
        ready_native(quiet=quiet)  # a first compile here, announced, before any worker starts
    reporter = _Reporter(quiet, args.jobs)
    executor = _cluster(cluster, cluster_timeout) if cluster else None
    try:
        report = run_compare(
            args,
            db=db,
            resume=resume,
            executor=executor,
            progress=reporter.update,
            on_start=reporter.start,
            par=par,
            jobs=jobs,
            trust_backends=trust_backends,
        )
    except Interrupted as stop:
        reporter.stop()
        print(
            f"\ninterrupted: the finished tasks of run {stop.run_id} are stored\n"
            f"resume with: sudokubench compare --resume {stop.run_id} --db {stop.db}"
            + (" --trust-backends" if trust_backends or _names_code(args.backends) else ""),
            file=sys.stderr,
        )
        raise typer.Exit(130) from None
    finally:
        reporter.stop()
        if executor is not None:
            executor.close()
    from sudokubench.harness.report.render import render, write_json

    if json_out:  # one line, its results written as they are read back
        write_json(report, sys.stdout, indent=None)
        print(flush=True)
    else:
        sys.stdout.write(render(report, "table", width=terminal_width()))
        print(f"stored as run {report.run.id} in {db}")
    if code := report.exit_code(allow_errors=allow_errors):
        raise typer.Exit(code)


def _names_code(backends: tuple[str, ...]) -> bool:
    """Whether any of `backends` is a plug-in or program (resumed only with --trust-backends)."""
    from sudokubench.harness.pool.guard import trusted

    return any(not trusted(name) for name in backends)


def _refuse_clashes(
    resume_with_input: bool, no_warmup: bool, warmup: int, cluster: bool, jobs_given: bool
) -> None:
    """UsageFailure for options that exclude each other."""
    if resume_with_input:
        raise UsageFailure("--resume takes the puzzles from the stored run: give no input")
    if no_warmup and warmup:
        raise UsageFailure(f"--no-warmup and --warmup {warmup} exclude each other")
    if cluster and jobs_given:
        raise UsageFailure(
            "--jobs sizes the local pool: with --cluster, the dask workers' threads set how "
            "many tasks run at once"
        )


def _cluster(address: str, timeout: float) -> Executor:
    """The executor for `--cluster`: a dask scheduler's address or `local:N`."""
    from sudokubench.harness.pool import DaskExecutor

    return DaskExecutor.connect(address, timeout=timeout)
