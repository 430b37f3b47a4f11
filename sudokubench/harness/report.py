"""Reports of a stored run: terminal table, Markdown, CSV, JSON and a self-contained HTML page.

`build_report(store, run_id)` reads a run back from the database, cross-checks every puzzle's
answers again (`harness.cross_check`), and summarizes per backend and per collection
(`stats`); `compare` calls it with the rows it stored, so both always say the same. The
renderers only format it:

- `render_table` (rich; the terminal default), `render_markdown`, `render_csv` (one row per
  collection and backend, collection `all` first), `render_json` (`to_json()`: the keys of
  `compare --json`), `render_html` (tables plus the plots embedded as base64 PNG).
- `compare_runs(old, new)` and its renderers: the change per backend between two runs.

Per backend: `solved`, `unsatisfiable`, `timeout`, `error` count (puzzle, backend) pairs by the
status of their first measured sample; `wrong` counts pairs whose answer is proven wrong or
contradicts the file's expected answer; `disagree` counts puzzles with a disagreement the
backend took a side in. Times are described in `stats`.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sudokubench.harness.stats import (
    Pair,
    TimeSummary,
    effort_of,
    geometric_ratio,
    jobs_warning,
    summarize_times,
    warnings_for,
)
from sudokubench.harness.store import PuzzleRow, RunRow, Store, TaskRow
from sudokubench.harness.verify import Problem, PuzzleVerdict

__all__ = [
    "FORMATS",
    "BackendSummary",
    "RunReport",
    "build_report",
    "compare_runs",
    "format_seconds",
    "render",
    "render_against",
]

FORMATS = ("table", "markdown", "csv", "json", "html")


def format_seconds(value: float | None) -> str:
    """A duration for people: `850 µs`, `12.3 ms`, `1.20 s`; `-` for none."""
    if value is None:
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


@dataclass(frozen=True)
class BackendSummary:
    """What one backend did over a set of puzzles."""

    backend: str
    version: str | None
    puzzles: int
    solved: int
    unsatisfiable: int
    timeout: int
    error: int
    wrong: int
    disagree: int
    times: TimeSummary
    ratio: tuple[float, float, float, int] | None = None

    def to_json(self) -> dict[str, Any]:
        """Flat plain data (the `summary` entries of `compare --json`)."""
        data: dict[str, Any] = {
            "backend": self.backend,
            "version": self.version,
            "puzzles": self.puzzles,
            "solved": self.solved,
            "unsatisfiable": self.unsatisfiable,
            "timeout": self.timeout,
            "error": self.error,
            "wrong": self.wrong,
            "disagree": self.disagree,
        }
        data.update(self.times.to_json())
        ratio = self.ratio
        data["ratio"] = ratio[0] if ratio else None
        data["ratio_low"] = ratio[1] if ratio else None
        data["ratio_high"] = ratio[2] if ratio else None
        data["ratio_puzzles"] = ratio[3] if ratio else 0
        return data


@dataclass(frozen=True)
class RunReport:
    """A stored run, cross-checked and summarized."""

    run: RunRow
    puzzles: tuple[PuzzleRow, ...]
    tasks: tuple[TaskRow, ...]
    backends: tuple[str, ...]
    baseline: str | None
    verdicts: dict[str, PuzzleVerdict]
    pairs: dict[str, list[Pair]]
    summary: tuple[BackendSummary, ...]
    collections: dict[str, tuple[BackendSummary, ...]]
    warnings: tuple[str, ...]
    planned: int
    collection_of: dict[str, str] = field(default_factory=dict)

    @property
    def problems(self) -> list[tuple[str, Problem]]:
        """Every wrong answer and disagreement, by puzzle in input order."""
        return [
            (p.puzzle_id, problem)
            for p in self.puzzles
            if p.puzzle_id in self.verdicts
            for problem in self.verdicts[p.puzzle_id].problems
        ]

    @property
    def disagreement_count(self) -> int:
        """Puzzles with a wrong answer or a disagreement."""
        return sum(1 for v in self.verdicts.values() if not v.agreed)

    @property
    def ok(self) -> bool:
        """No wrong answer and no disagreement."""
        return self.disagreement_count == 0

    @property
    def missing(self) -> int:
        """Planned tasks with no stored outcome (a run still going or interrupted)."""
        return self.planned - len(self.tasks)

    def to_json(self) -> dict[str, Any]:
        """The stable JSON form (the same as `compare --json`)."""
        puzzle_of = {p.puzzle_id: p for p in self.puzzles}
        disagreements = []
        for puzzle_id, problem in self.problems:
            entry = {"puzzle_id": puzzle_id, "puzzle": puzzle_of[puzzle_id].puzzle}
            entry.update(problem.to_json())
            disagreements.append(entry)
        return {
            "run_id": self.run.id,
            "status": self.run.status,
            "ok": self.ok,
            "started": self.run.started,
            "ended": self.run.ended,
            "args": self.run.args,
            "machine": self.run.machine,
            "baseline": self.baseline,
            "puzzles": len(self.puzzles),
            "tasks": len(self.tasks),
            "missing": self.missing,
            "summary": {s.backend: s.to_json() for s in self.summary},
            "collections": {
                name: {s.backend: s.to_json() for s in rows}
                for name, rows in self.collections.items()
            },
            "disagreements": disagreements,
            "warnings": list(self.warnings),
            "results": [
                {
                    "puzzle_id": t.puzzle_id,
                    "backend": t.backend,
                    "sample": t.sample,
                    "status": t.status,
                    "count": t.count,
                    "exhaustive": t.exhaustive,
                    "verdict": t.verdict,
                    "solutions": list(t.solutions),
                    "time_s": t.wall_s,
                    "encode_s": t.encode_s,
                    "solve_s": t.solve_s,
                    "stats": t.stats,
                    "valid": t.valid,
                    "problem": t.problem,
                    "message": t.message,
                }
                for t in self.tasks
            ],
        }


#: The statuses whose samples are timed.
_FINISHED = frozenset(("solved", "unsatisfiable"))


def _pairs(tasks: Sequence[TaskRow]) -> dict[str, list[Pair]]:
    """Measured samples grouped into (puzzle, backend) pairs, per backend."""
    grouped: dict[tuple[str, str], list[TaskRow]] = {}
    for t in tasks:
        if t.sample >= 0:
            key = (t.backend, t.puzzle_id)
            if (group := grouped.get(key)) is None:
                grouped[key] = [t]
            else:
                group.append(t)
    pairs: dict[str, list[Pair]] = defaultdict(list)
    for (backend, puzzle_id), rows in grouped.items():
        if len(rows) > 1:
            rows.sort(key=lambda t: t.sample)
        times = tuple(t.wall_s for t in rows if t.status in _FINISHED)
        efforts = [e for t in rows if (e := effort_of(t.stats))]
        effort = (
            (efforts[0][0], sorted(e[1] for e in efforts)[len(efforts) // 2]) if efforts else None
        )
        pairs[backend].append(Pair(puzzle_id, backend, rows[0].status, times, effort))
    return pairs


def _summaries(
    backends: Sequence[str],
    pairs: dict[str, list[Pair]],
    verdicts: dict[str, PuzzleVerdict],
    baseline: str | None,
    versions: dict[str, Any],
    only: set[str] | None = None,
) -> tuple[BackendSummary, ...]:
    rows = []
    base_pairs = [p for p in pairs.get(baseline or "", []) if only is None or p.puzzle_id in only]
    for backend in backends:
        mine = [p for p in pairs.get(backend, []) if only is None or p.puzzle_id in only]
        by_status = defaultdict(int)
        wrong = disagree = 0
        for p in mine:
            by_status[p.status] += 1
            verdict = verdicts.get(p.puzzle_id)
            if verdict is None:
                continue
            wrong += backend in verdict.blamed
            disagree += any(
                problem.kind == "disagree" and any(backend in names for _, names in problem.sides)
                for problem in verdict.problems
            )
        rows.append(
            BackendSummary(
                backend=backend,
                version=versions.get(backend),
                puzzles=len(mine),
                solved=by_status["solved"],
                unsatisfiable=by_status["unsatisfiable"],
                timeout=by_status["timeout"],
                error=by_status["error"],
                wrong=wrong,
                disagree=disagree,
                times=summarize_times(mine),
                ratio=None if backend == baseline else geometric_ratio(mine, base_pairs),
            )
        )
    return tuple(rows)


def build_report(
    store: Store,
    run_id: int | None = None,
    *,
    tasks: Sequence[TaskRow] | None = None,
    verdicts: dict[str, PuzzleVerdict] | None = None,
    puzzles: Sequence[PuzzleRow] | None = None,
) -> RunReport:
    """Read a run (the latest when `run_id` is None) and cross-check and summarize it.

    `compare` passes the rows it just stored (in task order), their verdicts and the run's
    puzzles, so they are not read back and checked again.
    """
    from sudokubench.harness import CompareArgs, cross_check

    run = store.run(run_id)
    args = CompareArgs.from_json(run.args)
    puzzles = tuple(store.puzzles(run.id)) if puzzles is None else tuple(puzzles)
    tasks = tuple(store.tasks(run.id)) if tasks is None else tuple(tasks)
    if verdicts is None:
        by_puzzle: dict[str, list[TaskRow]] = defaultdict(list)
        for t in tasks:
            by_puzzle[t.puzzle_id].append(t)
        verdicts = {
            p.puzzle_id: cross_check(p, by_puzzle[p.puzzle_id])
            for p in puzzles
            if p.puzzle_id in by_puzzle
        }
    backends = tuple(args.backends)
    pairs = _pairs(tasks)
    versions = run.machine.get("backends", {})
    summary = _summaries(backends, pairs, verdicts, args.baseline, versions)
    collection_of = {p.puzzle_id: p.collection for p in puzzles}
    names = list(dict.fromkeys(p.collection for p in puzzles))
    collections = {}
    if len(names) > 1:
        for name in names:
            members = {pid for pid, c in collection_of.items() if c == name}
            collections[name] = _summaries(
                backends, pairs, verdicts, args.baseline, versions, members
            )
    warnings = []
    if jobs := jobs_warning(args.jobs):
        warnings.append(jobs)
    for s in summary:
        warnings.extend(warnings_for(s.backend, s.times, timeouts=s.timeout))
    planned = len(puzzles) * len(backends) * (args.repeat + args.warmup)
    if planned > len(tasks):
        missing = f"{planned - len(tasks)} of {planned} tasks"
        if run.status == "running":
            warnings.append(
                f"run {run.id} is still running (or its compare was killed): {missing} are not "
                f"stored yet; if no compare runs it, complete it with "
                f"sudokubench compare --resume {run.id} --db {store.path}"
            )
        else:
            warnings.append(
                f"run {run.id} is {run.status} with {missing} missing: complete it with "
                f"sudokubench compare --resume {run.id} --db {store.path}"
            )
    return RunReport(
        run=run,
        puzzles=puzzles,
        tasks=tasks,
        backends=backends,
        baseline=args.baseline,
        verdicts=verdicts,
        pairs=dict(pairs),
        summary=summary,
        collections=collections,
        warnings=tuple(warnings),
        planned=planned,
        collection_of=collection_of,
    )


# -- rendering -------------------------------------------------------------------------------

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
    ratio, low, high, _ = s.ratio
    return f"{ratio:.2f}x [{low:.2f}-{high:.2f}]"


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
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines.extend("| " + " | ".join(esc(c) for c in row) + " |" for row in rows)
    return lines


def render_markdown(report: RunReport) -> str:
    """A Markdown document: headline, summary table, collections, problems, warnings."""
    lines = [f"# sudokubench run {report.run.id}", "", _headline(report), ""]
    lines += _md_table(_COLUMNS, [_cells(s, report.baseline) for s in report.summary])
    for name, rows in report.collections.items():
        lines += ["", f"## {name}", ""]
        lines += _md_table(_COLUMNS, [_cells(s, report.baseline) for s in rows])
    problems = _problem_lines(report)
    if problems:
        lines += ["", "## Wrong answers and disagreements", ""]
        lines += [f"- {line}" for line in problems]
    if report.warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {line}" for line in report.warnings]
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
        writer.writerow({"collection": name, **s.to_json()})
    return out.getvalue()


def render_json(report: RunReport) -> str:
    """`to_json()` as text."""
    return json.dumps(report.to_json(), indent=2)


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
    from sudokubench.harness import plots

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
    raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")


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
                "ratio": ratio[0] if ratio else None,
                "ratio_low": ratio[1] if ratio else None,
                "ratio_high": ratio[2] if ratio else None,
                "ratio_puzzles": ratio[3] if ratio else 0,
            }
        )
    return rows


def render_against(old: RunReport, new: RunReport, fmt: str) -> str:
    """The change per backend from run `old` to run `new`."""
    rows = compare_runs(old, new)
    if fmt == "json":
        return json.dumps({"run_id": new.run.id, "against": old.run.id, "backends": rows}, indent=2)
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
        writer.writerows(rows)
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
