"""The pieces every rendering of a report shares (`render.py`'s table, Markdown and CSV,
`html.py`'s page, `against.py`'s comparison): the summary's columns and cells, the headline,
machine, problem, error and verdict lines, text made safe for Markdown and HTML tables, and
the names of the plots (`PLOT_KINDS`, so that checking one needs no matplotlib).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from sudokubench.harness.pool.memory import format_size
from sudokubench.harness.records import RunStatus
from sudokubench.harness.report.caveats import noise_line
from sudokubench.harness.report.model import BackendSummary, RunReport, format_seconds
from sudokubench.output import escape_controls
from sudokubench.solvers import DEFAULT_BACKEND

__all__ = [
    "COLUMNS",
    "PLAIN_CSS",
    "PLOT_KINDS",
    "RATIO_HEADER",
    "SHOWN_MESSAGES",
    "baseline_line",
    "columns",
    "counted",
    "error_lines",
    "headline",
    "html_table",
    "machine_line",
    "md",
    "md_table",
    "problem_lines",
    "summary_rows",
    "verdict_line",
    "where",
]

#: The kinds of plot `plots.py` draws (named here, so that checking a name needs no matplotlib).
PLOT_KINDS = ("cactus", "scatter", "distributions")

COLUMNS = (
    "backend",
    "solved",
    "unsat",
    "timeout",
    "error",
    "wrong",
    "n",
    "median",
    "IQR",
    "p90",
    "max",
    "total",
    "PAR-2",
    "effort",
    "peak memory",
    "vs baseline",
)
#: The column of the time ratio, as the tables name it: what it is, and which way is better.
RATIO_HEADER = "time ratio vs {baseline} (lower is faster)"


def columns(report: RunReport) -> tuple[str, ...]:
    """The summary columns: the PAR column named after the run's k, the ratio column after
    the baseline, and which way is faster."""
    ratio = RATIO_HEADER.format(baseline=report.baseline or "baseline")
    named = {"PAR-2": f"PAR-{report.par:g}", "vs baseline": ratio}
    return tuple(named.get(c, c) for c in COLUMNS)


def baseline_line(report: RunReport) -> str | None:
    """Which backend the time ratios refer to, why that one, and what n means: the tables'
    own footnote (None for a run without a baseline)."""
    baseline = report.baseline
    if baseline is None:
        return None
    backends = report.backends
    if baseline == DEFAULT_BACKEND:
        why = "the default baseline"
    elif DEFAULT_BACKEND not in backends and backends and baseline == backends[0]:
        why = f"the first backend listed, as {DEFAULT_BACKEND} did not run; choose with --baseline"
    else:
        why = "chosen with --baseline"
    return (
        f"baseline {baseline} ({why}). n: the puzzles a backend finished in time, over which "
        "median, IQR, p90, max, total and effort are taken; a time ratio is the geometric "
        "mean of its time / the baseline's over the n puzzles both finished (below 1: faster)."
    )


def summary_rows(report: RunReport, rows: Sequence[BackendSummary]) -> list[list[str]]:
    """The cells of each backend's row, then the virtual best's (for the whole run only)."""
    cells = [_cells(s, report.baseline) for s in rows]
    if rows is report.summary and report.virtual_best is not None:
        cells.append(_cells(report.virtual_best, report.baseline))
    return cells


def _ratio_text(s: BackendSummary, baseline: str | None) -> str:
    if s.backend == baseline:
        return "baseline"
    if s.ratio is None:
        return "-"
    r = s.ratio
    return f"{r.value:.2f}x [{r.low:.2f}-{r.high:.2f}] n={r.puzzles}"


def _effort_text(s: BackendSummary) -> str:
    t = s.times
    if t.median_effort is None or t.effort_name is None:
        return "-"
    return f"{t.median_effort:,.0f} {t.effort_name}"


def _cells(s: BackendSummary, baseline: str | None) -> list[str]:
    t = s.times
    return [
        s.backend,
        str(s.solved),
        str(s.unsatisfiable),
        str(s.timeout),
        str(s.error),
        str(s.wrong),
        str(t.timed),
        format_seconds(t.median_s),
        format_seconds(t.iqr_s),
        format_seconds(t.p90_s),
        format_seconds(t.max_s),
        format_seconds(t.total_s if t.timed else None),
        format_seconds(s.par_s),
        _effort_text(s),
        "-" if s.peak_memory_bytes is None else format_size(s.peak_memory_bytes),
        _ratio_text(s, baseline),
    ]


def headline(report: RunReport) -> str:
    args = report.run.args
    return (
        f"run {report.run.id} ({report.run.status}, started {report.run.started}): "
        f"{report.puzzle_count} puzzles x {len(report.backends)} backends, "
        f"limit {args.get('limit')}, timeout {args.get('timeout')} s, "
        f"repeat {args.get('repeat')}, warm-up {args.get('warmup')}"
        f"{' + first call per worker' if args.get('warm_up') else ''}, "
        f"{where(report.run.machine, args.get('jobs'))}"
    )


def where(machine: dict, jobs: object) -> str:
    """Where the tasks ran, from the run's `machine["workers"]`: `jobs N` on this machine,
    `dask ADDRESS (N workers, T threads)` on a cluster; each of them when a run was resumed
    on another executor."""
    workers = [w for w in machine.get("workers") or () if isinstance(w, dict)]
    clusters: dict[str, list[dict]] = {}
    for w in workers:
        if "scheduler" in w:
            clusters.setdefault(str(w["scheduler"]), []).append(w)
    local = not clusters or any("scheduler" not in w for w in workers)
    parts = [f"jobs {jobs}"] if local else []
    for address, found in clusters.items():
        threads = sum(w["threads"] for w in found if isinstance(w.get("threads"), int))
        size = f"{len(found)} worker{'s' if len(found) != 1 else ''}"
        parts.append(f"dask {address} ({size}{f', {threads} threads' if threads else ''})")
    return ", ".join(parts)


def machine_line(report: RunReport) -> str | None:
    """The machine's noise and the time the workers and the parent took (`noise_line`)."""
    return noise_line(report.run, (report.tally.cpu_s, report.tally.cpu_wall_s))


def problem_lines(report: RunReport) -> list[str]:
    lines = []
    for puzzle_id, problem in report.problems:
        label = "WRONG" if problem.kind == "wrong" else "DISAGREE"
        lines.append(f"{label} {puzzle_id}: {problem.message}")
    return lines


def verdict_line(report: RunReport) -> str:
    """The last line: wrong answers and disagreements first, then missing tasks and why, then
    errors and timeouts per backend; "all answers check out" only when every planned task
    answered or timed out."""
    puzzles = report.checked
    if report.wrong:
        head = (
            f"{report.disagreement_count} of {puzzles} puzzles have a wrong answer "
            "or a disagreement"
        )
    elif report.missing:
        head = (
            f"no wrong answer or disagreement on {puzzles} puzzles, but {report.missing} of "
            f"{report.planned} tasks are missing: run {report.run.id} {_why_missing(report)}"
        )
    elif report.errors:
        head = f"no wrong answer or disagreement on {puzzles} puzzles, but not every task answered"
    else:
        head = f"all answers check out and agree on {puzzles} puzzles"
    if not report.errors and not report.timeouts:
        return head
    per = [
        f"{backend} {counted(f.errors, 'error')}, {counted(f.timeouts, 'timeout')}"
        for backend, f in report.failures.items()
        if f.errors or f.timeouts
    ]
    return f"{head}; {counted(report.errors, 'error')}, " + (
        f"{counted(report.timeouts, 'timeout')} ({'; '.join(per)})"
    )


def _why_missing(report: RunReport) -> str:
    """Why a run has tasks missing, from its stored status."""
    status = report.run.status
    if status == RunStatus.RUNNING:
        return "is still running (or its compare was killed)"
    if status == RunStatus.INTERRUPTED:
        return "was interrupted"
    return f"is {status}, but rows were deleted from its database"


def counted(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


#: Distinct error messages shown per backend (the JSON report has every one kept).
SHOWN_MESSAGES = 3


def error_lines(report: RunReport) -> list[str]:
    """Each backend's distinct error messages, the most frequent first, with their counts."""
    lines = []
    for backend, f in report.failures.items():
        if not f.errors:
            continue
        lines.append(f"ERRORS {backend}: {counted(f.errors, 'task')} failed")
        for message, n in f.messages[:SHOWN_MESSAGES]:
            lines.append(f"  {n}x {message}")
        if len(f.messages) > SHOWN_MESSAGES:
            lines.append(f"  ... and {len(f.messages) - SHOWN_MESSAGES} other messages")
        if f.unlisted:
            lines.append(
                f"  ... and {counted(f.unlisted, 'task')} with yet other messages, not listed "
                f"(past the first {len(f.messages)}: `report --per-task` has each)"
            )
    return lines


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(md(c) for c in row) + " |" for row in rows)
    return lines


def md(text: str) -> str:
    """Text (a backend or collection name, a message) as Markdown that shows it as it is: HTML
    and Markdown's own signs escaped, on one line."""
    text = html.escape(escape_controls(" ".join(str(text).split())), quote=False)
    return _MD_SIGNS.sub(r"\\\g<0>", text)


_MD_SIGNS = re.compile(r"[\\`*_{}\[\]()#+!|~]")


def html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


PLAIN_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px}"
    "td{text-align:right}td:first-child{text-align:left}th{background:#f0f0f0}"
)
