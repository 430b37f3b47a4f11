"""Rendering a report: a terminal table (rich), Markdown, CSV, JSON (the HTML page to explore
is `report/html.py`; two runs side by side are `against.py`).

`render(report, fmt)` picks the output by name (`FORMATS`); `render_tasks` (one row per task)
lives in `report/tasks.py` and is re-exported here.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import textwrap
from collections.abc import Sequence
from typing import TextIO

from sudokubench.errors import ArgumentError
from sudokubench.harness.report.caveats import noise_line
from sudokubench.harness.report.model import (
    VIRTUAL_BEST,
    BackendSummary,
    RunReport,
    format_seconds,
)
from sudokubench.harness.report.tasks import (  # re-exported
    TASK_FORMATS,
    render_tasks,
    write_tasks,
)
from sudokubench.output import csv_cell, finite_json

__all__ = [
    "FORMATS",
    "PLOT_KINDS",
    "TASK_FORMATS",
    "render",
    "render_csv",
    "render_json",
    "render_markdown",
    "render_table",
    "render_tasks",
    "write",
    "write_json",
    "write_tasks",
]

FORMATS = ("table", "markdown", "csv", "json", "html")
#: The kinds of plot `plots.py` draws (named here, so that checking a name needs no matplotlib).
PLOT_KINDS = ("cactus", "scatter", "distributions")

_COLUMNS = (
    "backend",
    "solved",
    "unsat",
    "timeout",
    "error",
    "wrong",
    "median",
    "IQR",
    "p90",
    "max",
    "total",
    "PAR-2",
    "effort",
    "vs baseline",
)


def _columns(report: RunReport) -> tuple[str, ...]:
    """The summary columns, the PAR column named after the run's k."""
    return tuple(f"PAR-{report.par:g}" if c == "PAR-2" else c for c in _COLUMNS)


def _summary_rows(report: RunReport, rows: Sequence[BackendSummary]) -> list[list[str]]:
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
    return f"{r.value:.2f}x [{r.low:.2f}-{r.high:.2f}]"


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
        format_seconds(t.median_s),
        format_seconds(t.iqr_s),
        format_seconds(t.p90_s),
        format_seconds(t.max_s),
        format_seconds(t.total_s if t.timed else None),
        format_seconds(s.par_s),
        _effort_text(s),
        _ratio_text(s, baseline),
    ]


def _headline(report: RunReport) -> str:
    args = report.run.args
    return (
        f"run {report.run.id} ({report.run.status}, started {report.run.started}): "
        f"{report.puzzle_count} puzzles x {len(report.backends)} backends, "
        f"limit {args.get('limit')}, timeout {args.get('timeout')} s, "
        f"repeat {args.get('repeat')}, warm-up {args.get('warmup')}"
        f"{' + first call per worker' if args.get('warm_up') else ''}, "
        f"jobs {args.get('jobs')}"
    )


def machine_line(report: RunReport) -> str | None:
    """The machine's noise and the time the workers and the parent took (`noise_line`)."""
    return noise_line(report.run, (report.tally.cpu_s, report.tally.cpu_wall_s))


def _problem_lines(report: RunReport) -> list[str]:
    lines = []
    for puzzle_id, problem in report.problems:
        label = "WRONG" if problem.kind == "wrong" else "DISAGREE"
        lines.append(f"{label} {puzzle_id}: {problem.message}")
    return lines


def _verdict_line(report: RunReport) -> str:
    """The last line: wrong answers and disagreements first, then errors and timeouts per
    backend; "all answers check out" only when every task answered or timed out."""
    puzzles = report.checked
    if not report.ok:
        head = (
            f"{report.disagreement_count} of {puzzles} puzzles have a wrong answer "
            "or a disagreement"
        )
    elif report.errors:
        head = f"no wrong answer or disagreement on {puzzles} puzzles, but not every task answered"
    else:
        head = f"all answers check out and agree on {puzzles} puzzles"
    if not report.errors and not report.timeouts:
        return head
    per = [
        f"{backend} {_counted(f.errors, 'error')}, {_counted(f.timeouts, 'timeout')}"
        for backend, f in report.failures.items()
        if f.errors or f.timeouts
    ]
    return f"{head}; {_counted(report.errors, 'error')}, " + (
        f"{_counted(report.timeouts, 'timeout')} ({'; '.join(per)})"
    )


def _counted(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


#: Distinct error messages shown per backend (the JSON report has them all).
SHOWN_MESSAGES = 3


def _error_lines(report: RunReport) -> list[str]:
    """Each backend's distinct error messages, the most frequent first, with their counts."""
    lines = []
    for backend, f in report.failures.items():
        if not f.errors:
            continue
        lines.append(f"ERRORS {backend}: {_counted(f.errors, 'task')} failed")
        for message, n in f.messages[:SHOWN_MESSAGES]:
            lines.append(f"  {n}x {message}")
        if len(f.messages) > SHOWN_MESSAGES:
            lines.append(f"  ... and {len(f.messages) - SHOWN_MESSAGES} other messages")
    return lines


def _packed(items: Sequence[str], width: int, indent: str = "  ") -> list[str]:
    """Items joined by two spaces into lines of at most `width` columns (an item longer than
    a line gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and len(line) + 2 + len(item) > width:
            lines.append(line)
            line = ""
        line = f"{line}  {item}" if line else f"{indent}{item}"
    return [*lines, line] if line else lines


def _stacked(report: RunReport, width: int) -> list[str]:
    """The tables for a narrow terminal: each backend's numbers under its name, then each
    collection's finished/puzzles and median time per backend."""
    lines = []
    for cells in _summary_rows(report, report.summary):
        baseline = cells[0] == report.baseline
        lines.append(f"{cells[0]} (baseline)" if baseline else cells[0])
        named = zip(_columns(report)[1:], cells[1:], strict=True)
        items = [f"{name} {cell}" for name, cell in named if not (baseline and cell == "baseline")]
        lines.extend(_packed(items, width))
    if report.collections:
        lines.append("per collection: finished/puzzles, median time")
        for name, rows in report.collections.items():
            lines.append(f"  {name}")
            items = [
                f"{backend} {s.solved + s.unsatisfiable}/{s.puzzles} "
                f"{format_seconds(s.times.median_s)}"
                for backend, s in zip(report.backends, rows, strict=True)
            ]
            lines.extend(_packed(items, width, indent="    "))
    return lines


def _folded(line: str, width: int) -> list[str]:
    """`line` folded at spaces into lines of at most `width` columns, indented after the first."""
    return textwrap.wrap(
        line, width, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )


def render_table(report: RunReport, *, width: int | None = None) -> str:
    """The terminal table (rich), with disagreements and warnings below it, in `width`
    columns (default 160); when the table does not fit, each backend's numbers are stacked
    under its name and long lines are folded."""
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    width = width or 160
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=False, highlight=False)
    for line in (_headline(report), machine_line(report)):
        for part in _folded(line or "", width) if line else ():
            console.print(part, soft_wrap=True, markup=False)
    table = Table(show_lines=False, pad_edge=False)
    for i, name in enumerate(_columns(report)):
        table.add_column(name, justify="left" if i in (0, 12, 13) else "right")
    for row in _summary_rows(report, report.summary):
        table.add_row(*row, style="dim" if row[0] == VIRTUAL_BEST else None)
    grid = Table(title="per collection: finished/puzzles, median time", pad_edge=False)
    if report.collections:
        grid.add_column("backend")
        for name in report.collections:
            grid.add_column(name, justify="right")
        for i, backend in enumerate(report.backends):
            cells = []
            for rows in report.collections.values():
                s = rows[i]
                cells.append(
                    f"{s.solved + s.unsatisfiable}/{s.puzzles} {format_seconds(s.times.median_s)}"
                )
            grid.add_row(backend, *cells)
    tables = [table, *([grid] if report.collections else [])]
    unbounded = console.options.update_width(10 * width)  # the natural width, not squeezed
    fits = all(Measurement.get(console, unbounded, t).maximum <= width for t in tables)
    notes = [
        *_problem_lines(report),
        *_error_lines(report),
        *(f"warning: {line}" for line in report.warnings),
    ]
    if fits:
        for t in tables:
            console.print(t)
        for line in notes:
            console.print(line, soft_wrap=True, markup=False)
    else:
        for line in _stacked(report, width):
            console.print(line, soft_wrap=True, markup=False)
        for line in notes:
            for part in _folded(line, width):
                console.print(part, soft_wrap=True, markup=False)
    console.print(_verdict_line(report), soft_wrap=True, markup=False)
    return "".join(f"{line.rstrip()}\n" for line in out.getvalue().splitlines())


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(_md(c) for c in row) + " |" for row in rows)
    return lines


def _md(text: str) -> str:
    """Text (a backend or collection name, a message) as Markdown that shows it as it is: HTML
    and Markdown's own signs escaped, on one line."""
    text = html.escape(" ".join(str(text).split()), quote=False)
    return _MD_SIGNS.sub(r"\\\g<0>", text)


_MD_SIGNS = re.compile(r"[\\`*_{}\[\]()#+!|~]")


def render_markdown(report: RunReport) -> str:
    """A Markdown document: headline, summary table, collections, problems, warnings."""
    lines = [f"# sudokubench run {report.run.id}", "", _headline(report), ""]
    if machine := machine_line(report):
        lines += [machine, ""]
    lines += _md_table(_columns(report), _summary_rows(report, report.summary))
    for name, rows in report.collections.items():
        lines += ["", f"## {_md(name)}", ""]
        lines += _md_table(_columns(report), _summary_rows(report, rows))
    problems = _problem_lines(report)
    if problems:
        lines += ["", "## Wrong answers and disagreements", ""]
        lines += [f"- {_md(line)}" for line in problems]
    if errors := _error_lines(report):
        lines += ["", "## Errors", "", "```", *errors, "```"]
    if report.warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {_md(line)}" for line in report.warnings]
    lines += ["", _verdict_line(report), ""]
    return "\n".join(lines)


def render_csv(report: RunReport) -> str:
    """One row per collection and backend (collection `all` first), the JSON summary keys."""
    out = io.StringIO()
    rows = [("all", s) for s in report.summary]
    if report.virtual_best is not None:
        rows.append(("all", report.virtual_best))
    rows += [(name, s) for name, group in report.collections.items() for s in group]
    keys = ["collection", *report.summary[0].to_json().keys()] if report.summary else []
    writer = csv.DictWriter(out, fieldnames=keys, lineterminator="\n")
    writer.writeheader()
    for name, s in rows:
        row = {"collection": name, **s.to_json()}
        writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return out.getvalue()


def render_json(report: RunReport) -> str:
    """`to_json()` as text (`write_json` into a string)."""
    out = io.StringIO()
    write_json(report, out)
    return out.getvalue()


def write_json(report: RunReport, out: TextIO, *, indent: int | None = 2) -> None:
    """`to_json()` as JSON text into `out` (`indent` as `json.dumps` takes it: None for one
    line), its `results` written one by one as they are read back (never held in memory
    together): the text `json.dumps` makes of the whole, without NaN or infinity."""
    head = json.dumps(finite_json(report.head_json()), indent=indent, allow_nan=False)
    entries = (
        json.dumps(finite_json(entry), indent=indent, allow_nan=False)
        for entry in report.results_json()
    )
    if indent is None:
        out.write(head[:-1] + ', "results": [')
        for i, text in enumerate(entries):
            out.write(", " + text if i else text)
        out.write("]}")
        return
    inner = "\n" + " " * 2 * indent  # an entry of a list that is a value of the top object
    out.write(head[: -len("\n}")] + f',\n{" " * indent}"results": [')
    first = True
    for text in entries:
        out.write(inner if first else "," + inner)
        out.write(text.replace("\n", inner))
        first = False
    out.write("]\n}" if first else f"\n{' ' * indent}]\n}}")


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px}"
    "td{text-align:right}td:first-child{text-align:left}th{background:#f0f0f0}"
)


def render(
    report: RunReport, fmt: str, *, vs: tuple[str, str] | None = None, width: int | None = None
) -> str:
    """The report in one of FORMATS (`width`: the terminal table's columns)."""
    out = io.StringIO()
    write(report, fmt, out, vs=vs, width=width)
    return out.getvalue()


def write(
    report: RunReport,
    fmt: str,
    out: TextIO,
    *,
    vs: tuple[str, str] | None = None,
    width: int | None = None,
) -> None:
    """Write the report in one of FORMATS into `out`; JSON and HTML as their per-task and
    per-puzzle parts are read back, so memory does not grow with the run."""
    if fmt == "table":
        out.write(render_table(report, width=width))
    elif fmt == "markdown":
        out.write(render_markdown(report))
    elif fmt == "csv":
        out.write(render_csv(report))
    elif fmt == "json":
        write_json(report, out)
    elif fmt == "html":
        from sudokubench.harness.report.html import write_html

        write_html(report, out, vs=vs)
    else:
        raise ArgumentError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
