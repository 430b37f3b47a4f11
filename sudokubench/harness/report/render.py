"""Rendering a report: a terminal table (rich), Markdown, CSV, JSON and a self-contained HTML
page (tables plus the plots embedded as base64 PNG); `compare_runs(old, new)` and
`render_against`: the change per backend between two runs, in the same formats.

`render(report, fmt)` and `render_against(old, new, fmt)` pick the output by name (`FORMATS`).
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from sudokubench.errors import ArgumentError
from sudokubench.harness.report.model import BackendSummary, RunReport, format_seconds
from sudokubench.harness.stats import Pair, geometric_ratio
from sudokubench.output import csv_cell, finite_json

__all__ = [
    "FORMATS",
    "compare_runs",
    "render",
    "render_against",
    "render_csv",
    "render_html",
    "render_json",
    "render_markdown",
    "render_table",
]

FORMATS = ("table", "markdown", "csv", "json", "html")

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
    "effort",
    "vs baseline",
)


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
        _effort_text(s),
        _ratio_text(s, baseline),
    ]


def _headline(report: RunReport) -> str:
    args = report.run.args
    return (
        f"run {report.run.id} ({report.run.status}, started {report.run.started}): "
        f"{len(report.puzzles)} puzzles x {len(report.backends)} backends, "
        f"limit {args.get('limit')}, timeout {args.get('timeout')} s, "
        f"repeat {args.get('repeat')}, warm-up {args.get('warmup')}, jobs {args.get('jobs')}"
    )


def _problem_lines(report: RunReport) -> list[str]:
    lines = []
    for puzzle_id, problem in report.problems:
        label = "WRONG" if problem.kind == "wrong" else "DISAGREE"
        lines.append(f"{label} {puzzle_id}: {problem.message}")
    return lines


def _verdict_line(report: RunReport) -> str:
    if report.ok:
        return f"all answers check out and agree on {len(report.verdicts)} puzzles"
    return (
        f"{report.disagreement_count} of {len(report.verdicts)} puzzles have a wrong answer "
        "or a disagreement"
    )


def render_table(report: RunReport, *, width: int | None = None) -> str:
    """The terminal table (rich), with disagreements and warnings below it."""
    from rich.console import Console
    from rich.table import Table

    out = io.StringIO()
    console = Console(file=out, width=width or 160, force_terminal=False, highlight=False)
    console.print(_headline(report))
    table = Table(show_lines=False, pad_edge=False)
    for i, name in enumerate(_COLUMNS):
        table.add_column(name, justify="left" if i in (0, 11, 12) else "right")
    for s in report.summary:
        table.add_row(*_cells(s, report.baseline))
    console.print(table)
    if report.collections:
        grid = Table(title="per collection: finished/puzzles, median time", pad_edge=False)
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
        console.print(grid)
    for line in _problem_lines(report):
        console.print(line, soft_wrap=True)
    for line in report.warnings:
        console.print(f"warning: {line}", soft_wrap=True)
    console.print(_verdict_line(report))
    return out.getvalue()


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
    lines += _md_table(_COLUMNS, [_cells(s, report.baseline) for s in report.summary])
    for name, rows in report.collections.items():
        lines += ["", f"## {_md(name)}", ""]
        lines += _md_table(_COLUMNS, [_cells(s, report.baseline) for s in rows])
    problems = _problem_lines(report)
    if problems:
        lines += ["", "## Wrong answers and disagreements", ""]
        lines += [f"- {_md(line)}" for line in problems]
    if report.warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {_md(line)}" for line in report.warnings]
    lines += ["", _verdict_line(report), ""]
    return "\n".join(lines)


def render_csv(report: RunReport) -> str:
    """One row per collection and backend (collection `all` first), the JSON summary keys."""
    out = io.StringIO()
    rows = [("all", s) for s in report.summary]
    rows += [(name, s) for name, group in report.collections.items() for s in group]
    keys = ["collection", *report.summary[0].to_json().keys()] if report.summary else []
    writer = csv.DictWriter(out, fieldnames=keys, lineterminator="\n")
    writer.writeheader()
    for name, s in rows:
        row = {"collection": name, **s.to_json()}
        writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return out.getvalue()


def render_json(report: RunReport) -> str:
    """`to_json()` as text."""
    return json.dumps(finite_json(report.to_json()), indent=2, allow_nan=False)


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
    ".bad{color:#b00}.warn{color:#a60}img{max-width:100%;display:block;margin:1em 0}"
)


def render_html(report: RunReport, *, vs: tuple[str, str] | None = None) -> str:
    """A self-contained page: the tables, the problems, and the plots as embedded PNGs."""
    import sudokubench.harness.report.plots as plots

    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>sudokubench run {report.run.id}</title><style>{_CSS}</style></head><body>",
        f"<h1>sudokubench run {report.run.id}</h1><p>{html.escape(_headline(report))}</p>",
        _html_table(_COLUMNS, [_cells(s, report.baseline) for s in report.summary]),
    ]
    for name, rows in report.collections.items():
        parts.append(f"<h2>{html.escape(name)}</h2>")
        parts.append(_html_table(_COLUMNS, [_cells(s, report.baseline) for s in rows]))
    problems = _problem_lines(report)
    if problems:
        parts.append("<h2>Wrong answers and disagreements</h2><ul>")
        parts.extend(f"<li class='bad'>{html.escape(line)}</li>" for line in problems)
        parts.append("</ul>")
    if report.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts.extend(f"<li class='warn'>{html.escape(line)}</li>" for line in report.warnings)
        parts.append("</ul>")
    parts.append(f"<p><b>{html.escape(_verdict_line(report))}</b></p><h2>Plots</h2>")
    figures = [("cactus", plots.cactus(report))]
    if len(report.collections) > 1 or report.summary:
        figures.append(("distributions", plots.distributions(report)))
    pair = vs or plots.default_pair(report)
    if pair:
        figures.append((f"{pair[1]} vs {pair[0]}", plots.scatter(report, *pair)))
    for title, figure in figures:
        data = base64.b64encode(plots.to_bytes(figure, "png")).decode("ascii")
        parts.append(f"<img alt='{html.escape(title)}' src='data:image/png;base64,{data}'>")
    machine = json.dumps(report.run.machine, indent=1)
    parts.append(f"<h2>Machine</h2><pre>{html.escape(machine)}</pre></body></html>")
    return "".join(parts)


def render(report: RunReport, fmt: str, *, vs: tuple[str, str] | None = None) -> str:
    """The report in one of FORMATS."""
    if fmt == "table":
        return render_table(report)
    if fmt == "markdown":
        return render_markdown(report)
    if fmt == "csv":
        return render_csv(report)
    if fmt == "json":
        return render_json(report)
    if fmt == "html":
        return render_html(report, vs=vs)
    raise ArgumentError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


# -- two runs --------------------------------------------------------------------------------


def compare_runs(old: RunReport, new: RunReport) -> list[dict[str, Any]]:
    """Per backend in both runs: finished counts, medians, and the geometric-mean time ratio
    new/old over the puzzles (same puzzle text) both runs finished."""
    rows = []
    old_summary = {s.backend: s for s in old.summary}
    for s in new.summary:
        before = old_summary.get(s.backend)
        if before is None:
            continue
        text_old = {p.puzzle_id: p.puzzle for p in old.puzzles}
        text_new = {p.puzzle_id: p.puzzle for p in new.puzzles}
        old_pairs = [
            Pair(text_old[p.puzzle_id], p.backend, p.status, p.times, p.effort)
            for p in old.pairs.get(s.backend, [])
        ]
        new_pairs = [
            Pair(text_new[p.puzzle_id], p.backend, p.status, p.times, p.effort)
            for p in new.pairs.get(s.backend, [])
        ]
        ratio = geometric_ratio(new_pairs, old_pairs)
        rows.append(
            {
                "backend": s.backend,
                "finished_old": before.solved + before.unsatisfiable,
                "finished_new": s.solved + s.unsatisfiable,
                "wrong_old": before.wrong,
                "wrong_new": s.wrong,
                "median_old_s": before.times.median_s,
                "median_new_s": s.times.median_s,
                "ratio": ratio.value if ratio else None,
                "ratio_low": ratio.low if ratio else None,
                "ratio_high": ratio.high if ratio else None,
                "ratio_puzzles": ratio.puzzles if ratio else 0,
            }
        )
    return rows


def render_against(old: RunReport, new: RunReport, fmt: str) -> str:
    """The change per backend from run `old` to run `new`."""
    rows = compare_runs(old, new)
    if fmt == "json":
        data = {"run_id": new.run.id, "against": old.run.id, "backends": rows}
        return json.dumps(finite_json(data), indent=2, allow_nan=False)
    header = ["backend", "finished", "wrong", "median", "time ratio new/old"]
    cells = []
    for r in rows:
        ratio = r["ratio"]
        ratio_text = (
            "-"
            if ratio is None or not math.isfinite(ratio)
            else f"{ratio:.2f}x [{r['ratio_low']:.2f}-{r['ratio_high']:.2f}] n={r['ratio_puzzles']}"
        )
        cells.append(
            [
                r["backend"],
                f"{r['finished_old']} -> {r['finished_new']}",
                f"{r['wrong_old']} -> {r['wrong_new']}",
                f"{format_seconds(r['median_old_s'])} -> {format_seconds(r['median_new_s'])}",
                ratio_text,
            ]
        )
    title = f"run {new.run.id} against run {old.run.id}"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(
            out, fieldnames=list(rows[0]) if rows else ["backend"], lineterminator="\n"
        )
        writer.writeheader()
        writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
        return out.getvalue()
    if fmt == "markdown":
        return "\n".join([f"# {title}", "", *_md_table(header, cells), ""])
    if fmt == "html":
        return (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            f"{_html_table(header, cells)}</body></html>"
        )
    width = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, width, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, width, strict=True)) for row in cells]
    return "\n".join(lines) + "\n"
