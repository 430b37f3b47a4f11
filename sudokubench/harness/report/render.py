"""Rendering a report: a terminal table (rich), Markdown, CSV, JSON (the HTML page to explore
is `report/html.py`; two runs side by side are `against.py`).

`render(report, fmt)` picks the output by name (`FORMATS`); `render_tasks` (one row per task)
lives in `report/tasks.py` and is re-exported here.
"""

from __future__ import annotations

import csv
import io
import json
import re
import textwrap
from collections.abc import Sequence
from typing import TextIO

from sudokubench.errors import ArgumentError
from sudokubench.harness.report.lines import (
    PLOT_KINDS,
    baseline_line,
    columns,
    error_lines,
    headline,
    machine_line,
    md,
    md_table,
    problem_lines,
    summary_rows,
    verdict_line,
)
from sudokubench.harness.report.model import (
    VIRTUAL_BEST,
    RunReport,
    format_seconds,
)
from sudokubench.harness.report.tasks import (  # re-exported
    TASK_FORMATS,
    render_tasks,
    write_tasks,
)
from sudokubench.output import csv_row, escape_controls, finite_json

__all__ = [
    "FORMATS",
    "PLOT_KINDS",
    "TASK_FORMATS",
    "prepare",
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
#: The summary CSV's columns of outside text, guarded against formulas (`output.csv_row`).
SUMMARY_OUTSIDE = frozenset({"collection", "backend", "version"})


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
    for cells in summary_rows(report, report.summary):
        baseline = cells[0] == report.baseline
        lines.append(f"{cells[0]} (baseline)" if baseline else cells[0])
        names = [*columns(report)[1:-1], "time ratio"]  # (the footnote says vs what, and which way)
        named = zip(names, cells[1:], strict=True)
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


def prepare(fmt: str) -> None:
    """Import now the modules `write` imports for `fmt` on first use (rich, for the table:
    about 45 ms of CPU), so that a caller can have them loaded while it waits anyway (as
    `compare` does while its workers start) rather than after its run."""
    if fmt == "table":
        import rich.console
        import rich.measure
        import rich.table  # noqa: F401


def render_table(report: RunReport, *, width: int | None = None) -> str:
    """The terminal table (rich), with disagreements and warnings below it, in `width`
    columns (default 160); when the table does not fit, each backend's numbers are stacked
    under its name and long lines are folded."""
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    width = width or 160
    out = io.StringIO()
    # Outside text (backend names, messages, file names) is shown as text: no markup, no
    # emoji codes (`exec:cat` is not `exec🐱`), control characters escaped
    # (`output.escape_controls`).
    console = Console(
        file=out, width=width, force_terminal=False, highlight=False, markup=False, emoji=False
    )

    def say(line: str) -> None:
        console.print(escape_controls(line), soft_wrap=True)

    for line in (headline(report), machine_line(report)):
        for part in _folded(line or "", width) if line else ():
            say(part)
    table = Table(show_lines=False, pad_edge=False)
    heads = columns(report)
    left = {heads[0], "effort", heads[-1]}  # names and phrases; numbers to the right
    for name in heads:
        shown = name.replace(" (", "\n(")  # two lines: the ratio's header is a phrase
        table.add_column(shown, justify="left" if name in left else "right")
    for row in summary_rows(report, report.summary):
        table.add_row(*map(escape_controls, row), style="dim" if row[0] == VIRTUAL_BEST else None)
    grid = Table(title="per collection: finished/puzzles, median time", pad_edge=False)
    if report.collections:
        grid.add_column("backend")
        for name in report.collections:
            grid.add_column(escape_controls(name), justify="right")
        for i, backend in enumerate(report.backends):
            cells = []
            for rows in report.collections.values():
                s = rows[i]
                cells.append(
                    f"{s.solved + s.unsatisfiable}/{s.puzzles} {format_seconds(s.times.median_s)}"
                )
            grid.add_row(escape_controls(backend), *cells)
    tables = [table, *([grid] if report.collections else [])]
    unbounded = console.options.update_width(10 * width)  # the natural width, not squeezed
    fits = all(Measurement.get(console, unbounded, t).maximum <= width for t in tables)
    notes = [
        *([footnote] if (footnote := baseline_line(report)) else []),
        *problem_lines(report),
        *error_lines(report),
        *(f"warning: {line}" for line in report.warnings),
    ]
    if fits:
        for t in tables:
            console.print(t)
        for line in notes:
            say(line)
    else:
        for line in _stacked(report, width):
            say(line)
        for line in notes:
            for part in _folded(line, width):
                say(part)
    say(verdict_line(report))
    return "".join(f"{line.rstrip()}\n" for line in out.getvalue().splitlines())


def render_markdown(report: RunReport) -> str:
    """A Markdown document: headline, summary table, collections, problems, warnings."""
    lines = [f"# sudokubench run {report.run.id}", "", escape_controls(headline(report)), ""]
    if machine := machine_line(report):
        lines += [escape_controls(machine), ""]
    lines += md_table(columns(report), summary_rows(report, report.summary))
    if footnote := baseline_line(report):
        lines += ["", md(footnote)]
    for name, rows in report.collections.items():
        lines += ["", f"## {md(name)}", ""]
        lines += md_table(columns(report), summary_rows(report, rows))
    problems = problem_lines(report)
    if problems:
        lines += ["", "## Wrong answers and disagreements", ""]
        lines += [f"- {md(line)}" for line in problems]
    if errors := [escape_controls(line) for line in error_lines(report)]:
        # a fence longer than any run of backticks in the messages: none can close it
        runs = re.findall("`+", "\n".join(errors))
        fence = "`" * max(3, 1 + max(map(len, runs), default=0))
        lines += ["", "## Errors", "", fence, *errors, fence]
    if report.warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {md(line)}" for line in report.warnings]
    lines += ["", escape_controls(verdict_line(report)), ""]
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
        writer.writerow(csv_row(row, SUMMARY_OUTSIDE))
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
        from sudokubench.harness.report.html import write_html  # (the page's modules: here)

        write_html(report, out, vs=vs)
    else:
        raise ArgumentError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
