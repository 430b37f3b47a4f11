"""The HTML report: one self-contained page to explore a run in a browser, offline.

What the page holds (nothing is fetched: no network, no external script, style or font):

- the summary and per-collection tables, sortable (click a header) and filterable (a text box
  over each table), with a legend of every column shown;
- the wrong answers and disagreements, each linking to its puzzle;
- a puzzles table (verdict per backend, time), sortable and filterable, "problems only";
- a per-puzzle view: the grid, each backend's verdict, status and time, the solution grids side
  by side (the puzzle, the file's solution, each distinct answer), a wrong answer's wrong cells
  highlighted (cells that differ from the reference solution, else cells that change a given or
  repeat a digit in a unit);
- the plots as inline SVG (each point of the scatter plot links to its puzzle's view), and the
  machine the run happened on.

The page's state is in the URL's fragment, so a view can be shared and tested:
`#sort=summary:median:desc&filter=puzzles:top95&problems=1&puzzle=top95.txt:3` (tables:
`summary`, `puzzles`, `collection-N`; a column by its header text). The data is one JSON
document in a `<script type="application/json">` element, every `<`, `>` and `&` escaped;
the script builds the puzzles table and the per-puzzle view with `textContent` only (never
markup from data). Text in the page's own markup is HTML-escaped with its control characters
written as `\\xNN`. A script error is written into the page (`#errors`).
"""

from __future__ import annotations

import functools
import html
import io
import json
import re
import statistics
from collections.abc import Sequence
from importlib import resources
from typing import Any, TextIO

from sudokubench.grid import Grid
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.report.lines import (
    baseline_line,
    columns,
    error_lines,
    headline,
    problem_lines,
    summary_rows,
    verdict_line,
)
from sudokubench.harness.report.model import RunReport, format_seconds
from sudokubench.harness.stats import FINISHED
from sudokubench.harness.verify import Problem, cross_check
from sudokubench.output import escape_controls
from sudokubench.shape import Shape

__all__ = ["LEGEND", "render_html", "write_html"]

#: What each column of the tables means, by header (lower case; a header starting with a key
#: gets its text). The legend shows the columns the page has.
LEGEND: dict[str, str] = {
    "backend": "The solver, with its variant (cpsat:integer, pysat:minisat22, ...).",
    "solved": "Puzzles it answered with at least one solution (its first measured sample).",
    "unsat": "Puzzles it proved to have no solution.",
    "timeout": "Puzzles it did not finish within --timeout (killed at timeout + grace).",
    "error": "Puzzles where it raised, crashed or its worker died.",
    "wrong": "Answers proven wrong by the checker, or contradicting the file's answer.",
    "median": "Median time of the finished puzzles (each puzzle: the median of its samples).",
    "iqr": "Interquartile range of those times (p75 - p25): the spread.",
    "p90": "90th percentile of those times.",
    "max": "Slowest finished puzzle.",
    "total": "Sum of the finished puzzles' times (timeouts are not timed).",
    "peak memory": "The most the backend's worker resided in (RSS) during any one of its "
    "tasks: the interpreter and loaded solvers plus what the task touched.",
    "effort": "Median search effort the backend reports (nodes, guesses, conflicts...): "
    "comparable within one backend, not across backends.",
    "vs baseline": "Geometric mean of the per-puzzle time ratio to the baseline backend, with "
    "its 95% interval: 2.00x is twice as slow, 0.50x twice as fast. Puzzles both finished.",
    "time ratio": "Geometric mean of the per-puzzle time ratio to the baseline backend, with "
    "its 95% interval and n, the puzzles both finished: 2.00x is twice as slow, 0.50x twice "
    "as fast (lower is faster).",
    "x baseline": "Geometric mean of the per-puzzle time ratio to the baseline backend, with "
    "its 95% interval: 2.00x is twice as slow, 0.50x twice as fast. Puzzles both finished.",
    "par-2": "PAR-2 mean: the mean time where every unfinished puzzle (timeout, error) counts "
    "twice the timeout: one number that charges failures (lower is better).",
    "par2": "PAR-2 mean: the mean time where every unfinished puzzle (timeout, error) counts "
    "twice the timeout: one number that charges failures (lower is better).",
    "puzzle": "The puzzle's id, source:K (the K-th puzzle of a collection, a file or stdin; "
    "argument for one given on the command line): `sudokubench show ID` shows it again.",
    "collection": "The collection it belongs to (a # collection: line, else the file's name).",
    "consensus": "What the answers agree on: =n an exact count, >=n at least n, 0 none, ? unknown.",
    "n": "Puzzles the backend finished in time: median, IQR, p90, max, total and effort are "
    "taken over these n.",
    "state": "ok, wrong (an answer failed the checker) or disagree (answers contradict).",
}


@functools.cache
def _asset(name: str) -> str:
    """A file shipped beside this module: the page's style (`page.css`) and script
    (`page.js`), kept as real CSS and JavaScript files rather than strings in Python and
    inlined into every page (one self-contained file); read when a page is first written."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


#: Puzzles the puzzles table shows at most (the rest through its filter / "problems only").
ROW_LIMIT = 2000


def _esc(text: str) -> str:
    """Outside text (a name, a message) as HTML text: markup and quotes escaped, control
    characters written as `\\xNN` (as in the other formats)."""
    return html.escape(escape_controls(text))


def _json_for_script(data: Any) -> str:
    """JSON safe inside a <script> element: no `</script>`, no markup, no entity, no control
    character (JSON escapes those below 0x20; DEL and the C1 block are escaped here)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_C1 = re.compile("[\x7f-\x9f]")


def _table(table_id: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    esc = _esc
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f"<input class='filter' data-table='{esc(table_id)}' placeholder='filter rows'>"
        f"<div class='scroll'><table class='sortable' id='{esc(table_id)}'><thead><tr>{head}"
        f"</tr></thead><tbody>{body}</tbody></table></div>"
    )


def _legend(columns: Sequence[str]) -> str:
    items = []
    for name in columns:
        key = name.lower()
        text = LEGEND.get(key) or next(
            (v for k, v in LEGEND.items() if key.startswith(k)), "(no description)"
        )
        items.append(f"<dt>{_esc(name)}</dt><dd>{_esc(text)}</dd>")
    return f"<dl class='legend'>{''.join(items)}</dl>"


def _wrong_cells(puzzle: Grid, answer: Grid, reference: Grid | None) -> list[int]:
    """The cells to highlight in a wrong answer: where it differs from the reference solution,
    else the givens it changes and the cells of every unit it repeats a digit in."""
    if reference is not None and reference.shape == answer.shape:
        return [
            k for k, (a, b) in enumerate(zip(answer.cells, reference.cells, strict=True)) if a != b
        ]
    bad = {k for k, d in enumerate(puzzle.cells) if d and answer.cells[k] != d}
    for conflict in answer.conflicts():
        bad.update(conflict.cells)
    return sorted(bad)


def _reference(p: PuzzleRow, first: dict[str, TaskRow], shape: Shape) -> Grid | None:
    """The solution a wrong answer's cells are compared with: the file's, else a sound answer
    that proved the solution unique (even amid a dispute on counts), else None."""
    if p.expected_solution:
        return Grid.parse(p.expected_solution, shape)
    right = [t for t in first.values() if t.valid and t.count == 1 and t.exhaustive and t.solutions]
    return Grid.parse(right[0].solutions[0], shape) if right else None


def _answer_data(t: TaskRow, time_s: float | None, blamed: bool) -> dict[str, Any]:
    """One backend's first measured answer to a puzzle, for the per-puzzle view."""
    return {
        "backend": t.backend,
        "status": str(t.status),
        "verdict": t.verdict,
        "time_text": format_seconds(time_s),
        "valid": t.valid,
        "blamed": blamed,
        "problem": t.problem or "",
        "message": t.message,
    }


def _state(problems: Sequence[Problem], answers: Sequence[dict[str, Any]]) -> str:
    """A puzzle's state on the page: `wrong`, else `disagree`, else `ok`."""
    if any(x.kind == "wrong" for x in problems) or not all(a["valid"] for a in answers):
        return "wrong"
    if any(x.kind == "disagree" for x in problems):
        return "disagree"
    return "ok"


def _puzzle_data(p: PuzzleRow, rows: Sequence[TaskRow], backends: Sequence[str]) -> dict[str, Any]:
    """One puzzle for the page: its grid, every backend's first measured answer, the grids to
    show side by side."""
    puzzle = Grid.parse(p.puzzle, Shape.parse(p.box) if p.box else None)
    shape = puzzle.shape
    verdict = cross_check(p, rows) if rows else None
    samples: dict[str, list[float]] = {}
    for t in rows:
        if t.sample >= 0 and t.status in FINISHED:
            samples.setdefault(t.backend, []).append(t.wall_s)
    times = {backend: statistics.median(values) for backend, values in samples.items()}
    first: dict[str, TaskRow] = {}
    for t in rows:
        if t.sample >= 0 and t.backend not in first:
            first[t.backend] = t
    reference = _reference(p, first, shape)
    answers, grids, shown = [], [], {}
    for backend in backends:
        t = first.get(backend)
        if t is None:
            continue
        blamed = verdict is not None and backend in verdict.blamed
        answers.append(_answer_data(t, times.get(backend), blamed))
        if not t.solutions:  # a side of the disagreement too: an empty grid says so
            label = f"{t.verdict} {backend}: {t.status}, no solution"
            grids.append({"label": label, "solution": None, "wrong": []})
            continue
        solution = t.solutions[0]
        if solution in shown and t.valid:
            shown[solution]["label"] += f", {backend}"
            continue
        answer = Grid.parse(solution, shape)
        wrong = [] if t.valid else _wrong_cells(puzzle, answer, reference)
        entry = {
            "label": f"{'WRONG: ' if not t.valid else ''}{t.verdict} {backend}",
            "solution": str(answer),
            "wrong": wrong,
        }
        shown.setdefault(solution, entry)
        grids.append(entry)
    problems = list(verdict.problems) if verdict else []
    return {
        "id": p.puzzle_id,
        "collection": p.collection,
        "puzzle": str(puzzle),
        "n": shape.n,
        "box_rows": shape.box_rows,
        "box_cols": shape.box_cols,
        "expected_solution": str(reference) if p.expected_solution and reference else None,
        "consensus": verdict.consensus if verdict else "?",
        "state": _state(problems, answers),
        "problems": [x.message for x in problems],
        "answers": answers,
        "grids": grids,
    }


def _write_page_data(report: RunReport, out: TextIO) -> None:
    """The page's data, `{"backends", "puzzles", "row_limit"}`, as `_json_for_script` writes
    it, a puzzle at a time as the puzzles are read back."""
    backends = list(report.backends)
    out.write('{"backends":' + _json_for_script(backends) + ',"puzzles":[')
    for i, p, rows in report.stream():
        out.write(("," if i else "") + _json_for_script(_puzzle_data(p, rows, backends)))
    out.write('],"row_limit":' + _json_for_script(ROW_LIMIT) + "}")


def _svg(figure: Any) -> str:
    """A matplotlib figure as inline SVG markup (its XML prolog dropped)."""
    from sudokubench.harness.report import plots

    text = plots.to_bytes(figure, "svg").decode("utf-8")
    return text[text.index("<svg") :]


def _plots(report: RunReport, vs: tuple[str, str] | None) -> list[tuple[str, str, str, str]]:
    """(anchor, navigation label, title, inline SVG) of each plot: the label is a word of its
    own, never cut out of a title (a backend's name has colons: `exec:'./solver'`)."""
    from sudokubench.harness.report import plots

    figures = [
        ("plot-cactus", "Cactus", "Cactus: puzzles finished within a time", plots.cactus(report))
    ]
    if report.summary:
        figures.append(
            (
                "plot-distributions",
                "Distributions",
                "Time distributions per collection",
                plots.distributions(report),
            )
        )
    pair = vs or plots.default_pair(report)
    if pair:
        title = f"Scatter: {pair[1]} vs {pair[0]}, per puzzle"
        figures.append(("plot-scatter", "Scatter", title, plots.scatter(report, *pair)))
    return [(anchor, label, title, _svg(figure)) for anchor, label, title, figure in figures]


def _collections_html(report: RunReport, columns: Sequence[str]) -> list[str]:
    """The per-collection tables (none for a run of one collection)."""
    if not report.collections:
        return []
    parts = ["<h2 id='collections'>Per collection</h2>"]
    for i, (name, rows) in enumerate(report.collections.items(), 1):
        parts.append(f"<h3>{_esc(name)}</h3>")
        parts.append(_table(f"collection-{i}", columns, summary_rows(report, rows)))
    return parts


def _notes_html(report: RunReport) -> list[str]:
    """The wrong answers and disagreements (each linking to its puzzle), errors and warnings."""
    from sudokubench.harness.report.plots import puzzle_link

    esc = _esc
    parts = []
    if report.problems:
        parts.append("<h2 id='problems'>Wrong answers and disagreements</h2><ul>")
        for (puzzle_id, _), line in zip(report.problems, problem_lines(report), strict=True):
            link = esc(puzzle_link(puzzle_id))
            parts.append(
                f"<li class='bad'><a href='{link}' class='puzzle-link'>{esc(line)}</a></li>"
            )
        parts.append("</ul>")
    if errors := error_lines(report):
        parts.append(
            f"<h2 id='task-errors'>Errors</h2><pre class='bad'>{esc(chr(10).join(errors))}</pre>"
        )
    if report.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts.extend(f"<li class='warn'>{esc(line)}</li>" for line in report.warnings)
        parts.append("</ul>")
    return parts


def render_html(report: RunReport, *, vs: tuple[str, str] | None = None) -> str:
    """The self-contained page of the module docstring (`write_html` into a string)."""
    out = io.StringIO()
    write_html(report, out, vs=vs)
    return out.getvalue()


def write_html(report: RunReport, out: TextIO, *, vs: tuple[str, str] | None = None) -> None:
    """The self-contained page of the module docstring into `out`, its per-puzzle data
    written as the puzzles are read back."""
    esc = _esc
    verdict = verdict_line(report)
    plots = _plots(report, vs)
    summary = summary_rows(report, report.summary)
    heads = columns(report)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>sudokubench run {report.run.id}</title>",
        f"<style>{_asset('page.css')}</style></head><body>",
        "<nav><a href='#top'>Summary</a>",
        "<a href='#collections'>Collections</a>" if report.collections else "",
        "<a href='#problems'>Problems</a>" if report.problems else "",
        "<a href='#puzzles-section'>Puzzles</a>",
        "".join(f"<a href='#{a}'>{esc(label)}</a>" for a, label, _, _ in plots),
        "<a href='#legend'>Legend</a><a href='#machine'>Machine</a></nav>",
        "<div id='errors'></div>",
        f"<h1 id='top'>sudokubench run {report.run.id}</h1><p>{esc(headline(report))}</p>",
        f"<p class='{'ok' if report.ok else 'bad'}'><b>{esc(verdict)}</b></p>",
        "<h2>Per backend</h2>",
        _table("summary", heads, summary),
        f"<p>{esc(baseline_line(report) or '')} Columns: see the <a href='#legend'>legend</a>.</p>",
    ]
    parts += _collections_html(report, heads)
    parts += _notes_html(report)
    parts += [
        "<h2 id='puzzles-section'>Puzzles</h2>",
        "<p>Click a row for the puzzle's grids and every backend's answer. ",
        "<label><input type='checkbox' id='problems-only'> problems only</label></p>",
        "<div id='detail' hidden></div>",
        "<input class='filter' data-table='puzzles' placeholder='filter puzzles'>",
        "<span id='puzzles-note'></span>",
        "<div class='scroll'><table id='puzzles'><thead><tr><th>puzzle</th><th>collection</th>",
        "<th>consensus</th><th>state</th></tr></thead><tbody></tbody></table></div>",
        "<h2 id='plots'>Plots</h2>",
    ]
    for anchor, _, title, svg in plots:
        parts.append(f"<figure class='plot' id='{anchor}'><figcaption>{esc(title)}</figcaption>")
        parts.append(f"{svg}</figure>")
    parts += [
        "<h2 id='legend'>Legend</h2>",
        _legend([*heads, "puzzle", "collection", "consensus", "state"]),
        "<p>Times are wall-clock seconds around the backend's solve call in its worker; "
        "a pair's time is the median of its measured samples (warm-ups excluded).</p>",
        f"<h2 id='machine'>Machine</h2><pre>{esc(json.dumps(report.run.machine, indent=1))}</pre>",
        "<script type='application/json' id='data'>",
    ]
    out.write("".join(parts))
    _write_page_data(report, out)
    out.write(f"</script><script>{_asset('page.js')}</script></body></html>")
