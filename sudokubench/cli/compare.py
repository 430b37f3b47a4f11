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
  short timeout. Ctrl-C stops cleanly and prints the command that resumes the run; so does a
  lost cluster scheduler, with exit 3.
  `--cluster ADDRESS` runs the tasks on a dask.distributed scheduler, `--cluster local:N` on N
  dask workers here (`harness/pool/dask.py`); the database stays this process's alone.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sudokubench.cli.app import UsageFailure, app
from sudokubench.cli.native import ready_native
from sudokubench.cli.options import (
    BackendsOpt,
    JsonOpt,
    QuietOpt,
    examples,
    format_option,
    pick_format,
)
from sudokubench.cli.progress import Ticker, terminal_width
from sudokubench.errors import ClusterLost, InputError
from sudokubench.harness import CompareArgs, Interrupted, Progress
from sudokubench.harness import compare as run_compare
from sudokubench.harness.noise import load_average, load_warning
from sudokubench.harness.plan import SHOWCASE_TIMEOUT
from sudokubench.harness.pool.local import boot_fork_server
from sudokubench.harness.report.render import FORMATS as REPORT_FORMATS
from sudokubench.harness.report.render import prepare as prepare_report
from sudokubench.harness.stats import jobs_warning
from sudokubench.output import escape_controls

if TYPE_CHECKING:
    from sudokubench.harness.pool import DaskExecutor

ReportFormatOpt = format_option(REPORT_FORMATS)
DbOpt = Annotated[
    Path,
    typer.Option("--db", metavar="FILE", help="The results database (SQLite).", show_default=True),
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


@app.command(
    epilog=examples(
        "sudokubench compare -b fast,dlx top95:..5 -q",
        "sudokubench compare -b fast,norvig,dlx hardest -t 5 -f markdown -q",
        "sudokubench compare -b fast,dlx -q",
    )
)
def compare(
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PUZZLE|FILE|-",
            help="Puzzle files (lines, annotated lines, blocks, CSV, .gz), collections by name "
            "(top95, top95:7, top95:1-20, top95:..20), - (stdin) or puzzles written out; "
            "none: the showcase.",
            show_default=False,
        ),
    ] = None,
    backends: BackendsOpt = "all",
    limit: Annotated[
        int,
        typer.Option(
            "--limit",
            "-n",
            metavar="N",
            min=1,
            help="Solutions to look for (2 proves uniqueness).",
        ),
    ] = 2,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            "-t",
            metavar="SECONDS",
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
            metavar="N",
            min=1,
            help="Worker processes (1 for fair timings) [default: 1; --resume: the run's].",
            show_default=False,
        ),
    ] = None,
    memory_limit: Annotated[
        str | None,
        typer.Option(
            "--memory-limit",
            metavar="SIZE",
            help="Most a worker may reside in, e.g. 1G or 512M: a task over it is an ERROR "
            "'memory limit' and its worker is restarted [default: 3/4 of this machine's "
            "memory over --jobs; with --cluster: no cap unless given].",
            show_default=False,
        ),
    ] = None,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat", metavar="N", min=1, help="Measured samples per puzzle and backend."
        ),
    ] = 1,
    warmup: Annotated[
        int,
        typer.Option(
            "--warmup",
            metavar="N",
            min=0,
            help="Discarded warm-up runs per pair (stored, untimed).",
        ),
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
            metavar="NAME",
            help="Backend the time ratios refer to [default: fast if it runs, else the first "
            "listed].",
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
    fmt: ReportFormatOpt = "table",
    json_out: JsonOpt = False,
    quiet: QuietOpt = False,
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
            metavar="SECONDS",
            min=0.1,
            help="Seconds to reach the --cluster scheduler, then for its first worker, and "
            "at most with no worker able to take the run's tasks (it is then interrupted).",
        ),
    ] = 10.0,
) -> None:
    """Run every puzzle through every backend: check, cross-check, time, store.

    Every answer is checked and cross-checked, timed and stored (`--db`). Exit code 0 when
    every task answered (timeouts allowed) and all agree; 1 when an answer is wrong or
    backends disagree; 3 when tasks ended in ERROR (0 with --allow-errors); 2 for bad input;
    130 on Ctrl-C.
    """
    fmt = pick_format(fmt, json_out, REPORT_FORMATS)
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
            memory_limit=None if memory_limit is None else _size(memory_limit),
        )
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    if jobs is not None and (warning := jobs_warning(jobs)) and not quiet:
        print(f"warning: {warning}", file=sys.stderr)
    if _names_code(args.backends) and not quiet:
        from sudokubench.confine import unconfined

        if why := unconfined():
            print(f"warning: plug-ins and programs can change any file of yours: {why}",
                  file=sys.stderr)  # fmt: skip
    if resume is None and cluster is None and _registered(args.backends):
        boot_fork_server(args.backends)  # its imports overlap this process's (numba's below)
    if resume is None and {"all", "native"} & {b.partition(":")[0] for b in args.backends}:
        # a first compile here, announced, before any worker starts; a cached kernel is
        # loaded by the workers' fork server alone
        ready_native(quiet=quiet, workers_only=True)
    # the report's modules now, while the workers' fork server loads (the run waits for it),
    # rather than after the run
    prepare_report(fmt)
    reporter = _Reporter(quiet, args.jobs)
    cap = args.memory_limit if memory_limit is not None else None  # (this machine's share: not)
    executor = _cluster(cluster, cluster_timeout, cap) if cluster else None
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
        if executor is not None and not quiet:
            for worker, lacks in executor.refused().items():
                print(
                    f"warning: dask worker {escape_controls(worker)} was given no task: it joined "
                    f"during the run and cannot run {escape_controls(lacks)}",
                    file=sys.stderr,
                )
    except Interrupted as stop:
        reporter.stop()
        import shlex

        why = "interrupted" if stop.reason is None else f"sudokubench: error: {stop.reason}"
        print(
            f"\n{escape_controls(why)}: the finished tasks of run {stop.run_id} are stored\n"
            f"resume with: sudokubench compare --resume {stop.run_id} "
            f"--db {escape_controls(shlex.quote(str(stop.db)))}"
            + (" --trust-backends" if trust_backends or _names_code(args.backends) else ""),
            file=sys.stderr,
        )
        raise typer.Exit(130 if stop.reason is None else 3) from None
    except ClusterLost as lost:  # before the run was stored: nothing to resume
        reporter.stop()
        message = escape_controls(f"{lost}; nothing was stored")
        print(f"\nsudokubench: error: {message}", file=sys.stderr)
        raise typer.Exit(3) from None
    finally:
        reporter.stop()
        if executor is not None:
            executor.close()
    from sudokubench.harness.report.render import write, write_json

    if fmt == "json":  # one line, its results written as they are read back
        write_json(report, sys.stdout, indent=None)
        print(flush=True)
    else:
        write(report, fmt, sys.stdout, width=terminal_width())
    stored = f"stored as run {report.run.id} in {db}"
    print(stored, file=sys.stdout if fmt == "table" else sys.stderr)  # (stdout: the data alone)
    if code := report.exit_code(allow_errors=allow_errors):
        raise typer.Exit(code)


def _size(text: str) -> int:
    """The bytes of --memory-limit's SIZE; a usage error saying what is accepted."""
    from sudokubench.harness.pool.memory import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise UsageFailure(f"--memory-limit {exc}") from None


def _registered(backends: tuple[str, ...]) -> bool:
    """Whether every one of `backends` is named in the registry (none is `all`, a plug-in or a
    program), so that the modules the workers need are known before the names are resolved."""
    from sudokubench.solvers import REGISTRY

    return bool(backends) and all(name.partition(":")[0] in REGISTRY for name in backends)


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


def _cluster(address: str, timeout: float, memory_limit: int | None) -> DaskExecutor:
    """The executor for `--cluster`: a dask scheduler's address or `local:N`. Dask's own log
    lines are silenced: the command words what matters (a lost scheduler, a missing backend)
    in its own lines, and dask's came after them (a traceback from a closing client)."""
    from sudokubench.harness.pool.dask import DaskExecutor, quiet_dask

    quiet_dask()
    return DaskExecutor.connect(address, timeout=timeout, memory_limit=memory_limit)
