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
markup from data). A script error is written into the page (`#errors`).
"""

from __future__ import annotations

import html
import json
import statistics
from collections.abc import Sequence
from typing import Any

from sudokubench.grid import Grid
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.report.model import RunReport, format_seconds
from sudokubench.harness.report.render import (
    _columns,
    _error_lines,
    _headline,
    _problem_lines,
    _summary_rows,
    _verdict_line,
)
from sudokubench.harness.stats import FINISHED
from sudokubench.shape import Shape

__all__ = ["LEGEND", "render_html"]

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
    "effort": "Median search effort the backend reports (nodes, guesses, conflicts...): "
    "comparable within one backend, not across backends.",
    "vs baseline": "Geometric mean of the per-puzzle time ratio to the baseline backend, with "
    "its 95% interval: 2.00x is twice as slow, 0.50x twice as fast. Puzzles both finished.",
    "x baseline": "Geometric mean of the per-puzzle time ratio to the baseline backend, with "
    "its 95% interval: 2.00x is twice as slow, 0.50x twice as fast. Puzzles both finished.",
    "par-2": "PAR-2 mean: the mean time where every unfinished puzzle (timeout, error) counts "
    "twice the timeout: one number that charges failures (lower is better).",
    "par2": "PAR-2 mean: the mean time where every unfinished puzzle (timeout, error) counts "
    "twice the timeout: one number that charges failures (lower is better).",
    "puzzle": "The puzzle's id, file:line (stdin:line, argument for one given on the command "
    "line).",
    "collection": "The collection it belongs to (a # collection: line, else the file's name).",
    "consensus": "What the answers agree on: =n an exact count, >=n at least n, 0 none, ? unknown.",
    "state": "ok, wrong (an answer failed the checker) or disagree (answers contradict).",
}

_CSS = """
body{font-family:system-ui,sans-serif;font-size:14px;margin:0 1.5em 2em;color:#222}
.scroll{overflow-x:auto;max-width:100%}
nav{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ddd;z-index:2}
nav a{margin-right:1em}
table{border-collapse:collapse;margin:.5em 0 1em}
td,th{border:1px solid #ccc;padding:3px 8px;white-space:nowrap}
td{text-align:right}td:first-child{text-align:left}
th{background:#f0f0f0;cursor:pointer;user-select:none;position:relative}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
input.filter{margin:.3em 0;padding:3px 6px;width:20em}
.bad,.bad a{color:#b00}.warn{color:#a60}.ok{color:#070}
tr.bad td{background:#fff0f0}tr.disagree td{background:#fff6e0}
#puzzles tbody tr{cursor:pointer}#puzzles tbody tr:hover td{background:#eef4ff}
.grids{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start}
.grids figure{margin:0}.grids figcaption{font-size:90%;margin-bottom:.3em;max-width:22em}
table.sudoku{border:2px solid #333;margin:0}
table.sudoku td{width:1.6em;height:1.6em;padding:0;text-align:center;font-family:monospace;
border:1px solid #bbb;white-space:normal}
table.sudoku td.given{font-weight:bold;background:#f3f3f3}
table.sudoku td.wrong{background:#f88;color:#000;font-weight:bold}
table.sudoku td.br{border-right:2px solid #333}table.sudoku td.bb{border-bottom:2px solid #333}
#detail{border:1px solid #bbb;padding:.5em 1em;margin:1em 0;background:#fcfcff}
#errors{color:#fff;background:#b00;padding:.5em;white-space:pre-wrap}
#errors:empty{display:none}
dl.legend dt{font-weight:bold;float:left;clear:left;width:9em}
dl.legend dd{margin:0 0 .3em 10em}
figure.plot svg{max-width:100%;height:auto}
"""

_SCRIPT = r"""
"use strict";
const errors = document.getElementById("errors");
window.onerror = (msg, src, line, col, err) => {
  errors.textContent += "error: " + msg + " (line " + line + ")\n";
};
const DATA = JSON.parse(document.getElementById("data").textContent);
const UNITS = {"µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1, "x": 1};
function sortKey(text) {
  const m = /^(-?[\d,]*\.?\d+)\s*(µs|us|ms|s|x)?/.exec(text.trim());
  if (!m) return null;
  return parseFloat(m[1].replace(/,/g, "")) * (UNITS[m[2]] || 1);
}
function compareCells(a, b) {
  const x = sortKey(a), y = sortKey(b);
  if (x !== null && y !== null) return x - y;
  if (x !== null) return -1;
  if (y !== null) return 1;
  return a.localeCompare(b);
}
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}
function parseHash() {
  const state = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    if (!part) continue;
    const i = part.indexOf("=");
    const key = decodeURIComponent(i < 0 ? part : part.slice(0, i));
    state[key] = i < 0 ? "" : decodeURIComponent(part.slice(i + 1));
  }
  return state;
}
let STATE = parseHash();
function saveHash() {
  const parts = Object.entries(STATE).filter(([, v]) => v !== "" && v !== undefined)
    .map(([k, v]) => encodeURIComponent(k) + "=" + encodeURIComponent(v));
  history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname);
}
function headerIndex(table, name) {
  const heads = [...table.tHead.rows[0].cells];
  const i = heads.findIndex(th => th.textContent.trim().toLowerCase() === name.toLowerCase());
  return i >= 0 ? i : (/^\d+$/.test(name) ? Number(name) : -1);
}
function sortTable(table, col, dir) {
  const body = table.tBodies[0];
  const rows = [...body.rows];
  rows.sort((a, b) => compareCells(a.cells[col].textContent, b.cells[col].textContent));
  if (dir === "desc") rows.reverse();
  for (const row of rows) body.appendChild(row);
  table.dataset.sortCol = String(col);
  table.dataset.sortDir = dir;
  for (const [i, th] of [...table.tHead.rows[0].cells].entries()) {
    const order = dir === "desc" ? "descending" : "ascending";
    th.setAttribute("aria-sort", i === col ? order : "none");
  }
}
function filterTable(table, text) {
  const needle = text.toLowerCase();
  if (table.id === "puzzles") {  // built from the data: the filter searches every puzzle
    buildRows(needle);
    const col = table.dataset.sortCol;
    if (col) sortTable(table, Number(col), table.dataset.sortDir);
    return;
  }
  for (const row of table.tBodies[0].rows) {
    row.hidden = needle !== "" && !row.textContent.toLowerCase().includes(needle);
  }
}
function applyTableState(table) {
  const sort = STATE["sort"] || "";
  const [name, column, dir] = sort.split(":");
  if (name === table.id && column !== undefined) {
    const col = headerIndex(table, column);
    if (col >= 0) sortTable(table, col, dir === "desc" ? "desc" : "asc");
  }
  const filter = STATE["filter"] || "";
  const at = filter.indexOf(":");
  const input = document.querySelector("input.filter[data-table='" + table.id + "']");
  if (at >= 0 && filter.slice(0, at) === table.id) {
    filterTable(table, filter.slice(at + 1));
    if (input) input.value = filter.slice(at + 1);
  }
}
function wireTable(table) {
  for (const [i, th] of [...table.tHead.rows[0].cells].entries()) {
    th.setAttribute("aria-sort", "none");
    th.addEventListener("click", () => {
      const dir = th.getAttribute("aria-sort") === "ascending" ? "desc" : "asc";
      STATE["sort"] = table.id + ":" + th.textContent.trim() + ":" + dir;
      saveHash();
      sortTable(table, i, dir);
    });
  }
  const input = document.querySelector("input.filter[data-table='" + table.id + "']");
  if (input) input.addEventListener("input", () => {
    STATE["filter"] = table.id + ":" + input.value;
    saveHash();
    filterTable(table, input.value);
  });
}
function puzzleText(p) {
  const answers = p.answers.map(a => a.backend + " " + a.time_text + " " + a.verdict);
  return [p.id, p.collection, p.consensus, p.state, ...answers].join(" ").toLowerCase();
}
function buildRows(needle) {
  const body = document.getElementById("puzzles").tBodies[0];
  body.replaceChildren();
  const only = STATE["problems"] === "1";
  let shown = 0, matching = 0;
  for (const p of DATA.puzzles) {
    if (only && p.state === "ok") continue;
    if (needle && !puzzleText(p).includes(needle)) continue;
    matching++;
    if (shown >= DATA.row_limit) continue;
    shown++;
    const tr = el("tr", null, p.state === "ok" ? "" : (p.state === "wrong" ? "bad" : "disagree"));
    tr.dataset.id = p.id;
    tr.appendChild(el("td", p.id));
    tr.appendChild(el("td", p.collection));
    tr.appendChild(el("td", p.consensus));
    tr.appendChild(el("td", p.state, p.state === "ok" ? "ok" : "bad"));
    const by = Object.fromEntries(p.answers.map(a => [a.backend, a]));
    for (const b of DATA.backends) {
      const a = by[b];
      const cell = el("td", a ? a.time_text + " " + a.verdict : "-");
      if (a && !a.valid) cell.className = "bad";
      tr.appendChild(cell);
    }
    tr.addEventListener("click", () => {
      STATE["puzzle"] = p.id;
      saveHash();
      showPuzzle(p.id, true);
    });
    body.appendChild(tr);
  }
  document.getElementById("puzzles-note").textContent = matching > shown
    ? " showing the first " + shown + " of " + matching + " puzzles: filter to see others"
    : " " + shown + " puzzles";
}
function buildPuzzles() {
  const head = document.getElementById("puzzles").tHead.rows[0];
  for (const b of DATA.backends) head.appendChild(el("th", b));
  document.getElementById("problems-only").checked = STATE["problems"] === "1";
  buildRows("");
}
function gridTable(p, cells, wrong, label) {
  const fig = el("figure");
  fig.appendChild(el("figcaption", label));
  const t = el("table", null, "sudoku");
  const n = p.n, wrongSet = new Set(wrong || []);
  for (let r = 0; r < n; r++) {
    const tr = el("tr");
    for (let c = 0; c < n; c++) {
      const k = r * n + c;
      const given = p.puzzle[k] !== ".";
      const value = cells === null ? "" : (cells[k] === "." ? "" : cells[k]);
      const classes = [];
      if (given) classes.push("given");
      if (wrongSet.has(k)) classes.push("wrong");
      if ((c + 1) % p.box_cols === 0 && c + 1 < n) classes.push("br");
      if ((r + 1) % p.box_rows === 0 && r + 1 < n) classes.push("bb");
      tr.appendChild(el("td", value, classes.join(" ")));
    }
    t.appendChild(tr);
  }
  fig.appendChild(t);
  return fig;
}
function showPuzzle(id, scroll) {
  const box = document.getElementById("detail");
  box.replaceChildren();
  const p = DATA.puzzles.find(q => q.id === id);
  if (!p) { box.hidden = true; return; }
  box.hidden = false;
  box.appendChild(el("h3", "Puzzle " + p.id + " (" + p.collection + ")"));
  box.appendChild(el("p", "consensus " + p.consensus + "; " + p.state,
    p.state === "ok" ? "ok" : "bad"));
  for (const m of p.problems) box.appendChild(el("p", m, "bad"));
  const t = el("table");
  const hr = el("tr");
  for (const h of ["backend", "status", "verdict", "time", "check", "message"]) {
    hr.appendChild(el("th", h));
  }
  t.appendChild(el("thead")).appendChild(hr);
  const tb = t.appendChild(el("tbody"));
  for (const a of p.answers) {
    const tr = el("tr", null, !a.valid ? "bad" : (a.blamed ? "disagree" : ""));
    const check = !a.valid ? a.problem : (a.blamed ? "disagrees with the others" : "ok");
    for (const v of [a.backend, a.status, a.verdict, a.time_text, check, a.message]) {
      tr.appendChild(el("td", v));
    }
    tb.appendChild(tr);
  }
  box.appendChild(t);
  const grids = el("div", null, "grids");
  grids.appendChild(gridTable(p, p.puzzle, [], "the puzzle (givens in bold)"));
  if (p.expected_solution) {
    grids.appendChild(gridTable(p, p.expected_solution, [], "the file's solution"));
  }
  for (const g of p.grids) {
    grids.appendChild(gridTable(p, g.solution, g.wrong, g.label));
  }
  box.appendChild(grids);
  if (scroll) box.scrollIntoView();
}
for (const table of document.querySelectorAll("table.sortable")) wireTable(table);
buildPuzzles();
wireTable(document.getElementById("puzzles"));
document.getElementById("problems-only").addEventListener("change", ev => {
  STATE["problems"] = ev.target.checked ? "1" : "";
  saveHash();
  location.reload();
});
for (const table of document.querySelectorAll("table.sortable, #puzzles")) applyTableState(table);
// not scrolled on load: headless Chromium's --screenshot then captures a blank page
if (STATE["puzzle"]) showPuzzle(STATE["puzzle"], false);
window.addEventListener("hashchange", () => {
  STATE = parseHash();
  if (STATE["puzzle"]) showPuzzle(STATE["puzzle"], true);
});
document.body.dataset.ready = "1";
"""

#: Puzzles the puzzles table shows at most (the rest through its filter / "problems only").
ROW_LIMIT = 2000


def _json_for_script(data: Any) -> str:
    """JSON safe inside a <script> element: no `</script>`, no markup, no entity."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _table(table_id: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    esc = html.escape
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
        items.append(f"<dt>{html.escape(name)}</dt><dd>{html.escape(text)}</dd>")
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


def _puzzle_data(
    p: PuzzleRow, rows: Sequence[TaskRow], report: RunReport, times: dict[tuple[str, str], float]
) -> dict[str, Any]:
    """One puzzle for the page: its grid, every backend's first measured answer, the grids to
    show side by side."""
    puzzle = Grid.parse(p.puzzle, Shape.parse(p.box) if p.box else None)
    shape = puzzle.shape
    verdict = report.verdicts.get(p.puzzle_id)
    first: dict[str, TaskRow] = {}
    for t in rows:
        if t.sample >= 0 and t.backend not in first:
            first[t.backend] = t
    reference = None
    if p.expected_solution:
        reference = Grid.parse(p.expected_solution, shape)
    else:  # a sound answer that proved the solution unique (even amid a dispute on counts)
        right = [
            t for t in first.values() if t.valid and t.count == 1 and t.exhaustive and t.solutions
        ]
        reference = Grid.parse(right[0].solutions[0], shape) if right else None
    answers, grids, shown = [], [], {}
    for backend in report.backends:
        t = first.get(backend)
        if t is None:
            continue
        time_s = times.get((backend, p.puzzle_id))
        answers.append(
            {
                "backend": backend,
                "status": str(t.status),
                "verdict": t.verdict,
                "time_text": format_seconds(time_s),
                "valid": t.valid,
                "blamed": verdict is not None and backend in verdict.blamed,
                "problem": t.problem or "",
                "message": t.message,
            }
        )
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
    state = "ok"
    if any(x.kind == "disagree" for x in problems):
        state = "disagree"
    if any(x.kind == "wrong" for x in problems) or not all(a["valid"] for a in answers):
        state = "wrong"
    return {
        "id": p.puzzle_id,
        "collection": p.collection,
        "puzzle": str(puzzle),
        "n": shape.n,
        "box_rows": shape.box_rows,
        "box_cols": shape.box_cols,
        "expected_solution": str(reference) if p.expected_solution and reference else None,
        "consensus": verdict.consensus if verdict else "?",
        "state": state,
        "problems": [x.message for x in problems],
        "answers": answers,
        "grids": grids,
    }


def _page_data(report: RunReport) -> dict[str, Any]:
    samples: dict[tuple[str, str], list[float]] = {}
    by_puzzle: dict[str, list[TaskRow]] = {}
    for t in report.tasks:
        by_puzzle.setdefault(t.puzzle_id, []).append(t)
        if t.sample >= 0 and t.status in FINISHED:
            samples.setdefault((t.backend, t.puzzle_id), []).append(t.wall_s)
    times = {key: statistics.median(values) for key, values in samples.items()}
    puzzles = [
        _puzzle_data(p, by_puzzle.get(p.puzzle_id, []), report, times) for p in report.puzzles
    ]
    return {"backends": list(report.backends), "puzzles": puzzles, "row_limit": ROW_LIMIT}


def _svg(figure: Any) -> str:
    """A matplotlib figure as inline SVG markup (its XML prolog dropped)."""
    from sudokubench.harness.report import plots

    text = plots.to_bytes(figure, "svg").decode("utf-8")
    return text[text.index("<svg") :]


def _plots(report: RunReport, vs: tuple[str, str] | None) -> list[tuple[str, str, str]]:
    """(anchor, title, inline SVG) of each plot."""
    from sudokubench.harness.report import plots

    figures = [("plot-cactus", "Cactus: puzzles finished within a time", plots.cactus(report))]
    if report.summary:
        figures.append(
            ("plot-distributions", "Time distributions per collection", plots.distributions(report))
        )
    pair = vs or plots.default_pair(report)
    if pair:
        figures.append(
            ("plot-scatter", f"{pair[1]} vs {pair[0]}, per puzzle", plots.scatter(report, *pair))
        )
    return [(anchor, title, _svg(figure)) for anchor, title, figure in figures]


def render_html(report: RunReport, *, vs: tuple[str, str] | None = None) -> str:
    """The self-contained page of the module docstring."""
    from sudokubench.harness.report.plots import puzzle_link

    esc = html.escape
    verdict = _verdict_line(report)
    plots = _plots(report, vs)
    summary_rows = _summary_rows(report, report.summary)
    columns = _columns(report)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>sudokubench run {report.run.id}</title><style>{_CSS}</style></head><body>",
        "<nav><a href='#top'>Summary</a>",
        "<a href='#collections'>Collections</a>" if report.collections else "",
        "<a href='#problems'>Problems</a>" if report.problems else "",
        "<a href='#puzzles-section'>Puzzles</a>",
        "".join(f"<a href='#{a}'>{esc(title.split(':')[0])}</a>" for a, title, _ in plots),
        "<a href='#legend'>Legend</a><a href='#machine'>Machine</a></nav>",
        "<div id='errors'></div>",
        f"<h1 id='top'>sudokubench run {report.run.id}</h1><p>{esc(_headline(report))}</p>",
        f"<p class='{'ok' if report.ok else 'bad'}'><b>{esc(verdict)}</b></p>",
        "<h2>Per backend</h2>",
        _table("summary", columns, summary_rows),
        "<p>Columns: see the <a href='#legend'>legend</a>.</p>",
    ]
    if report.collections:
        parts.append("<h2 id='collections'>Per collection</h2>")
        for i, (name, rows) in enumerate(report.collections.items(), 1):
            parts.append(f"<h3>{esc(name)}</h3>")
            parts.append(_table(f"collection-{i}", columns, _summary_rows(report, rows)))
    if report.problems:
        parts.append("<h2 id='problems'>Wrong answers and disagreements</h2><ul>")
        for (puzzle_id, _), line in zip(report.problems, _problem_lines(report), strict=True):
            link = esc(puzzle_link(puzzle_id))
            parts.append(
                f"<li class='bad'><a href='{link}' class='puzzle-link'>{esc(line)}</a></li>"
            )
        parts.append("</ul>")
    if errors := _error_lines(report):
        parts.append(
            f"<h2 id='task-errors'>Errors</h2><pre class='bad'>{esc(chr(10).join(errors))}</pre>"
        )
    if report.warnings:
        parts.append("<h2>Warnings</h2><ul>")
        parts.extend(f"<li class='warn'>{esc(line)}</li>" for line in report.warnings)
        parts.append("</ul>")
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
    for anchor, title, svg in plots:
        parts.append(f"<figure class='plot' id='{anchor}'><figcaption>{esc(title)}</figcaption>")
        parts.append(f"{svg}</figure>")
    parts += [
        "<h2 id='legend'>Legend</h2>",
        _legend([*columns, "puzzle", "collection", "consensus", "state"]),
        "<p>Times are wall-clock seconds around the backend's solve call in its worker; "
        "a pair's time is the median of its measured samples (warm-ups excluded).</p>",
        f"<h2 id='machine'>Machine</h2><pre>{esc(json.dumps(report.run.machine, indent=1))}</pre>",
        "<script type='application/json' id='data'>",
        _json_for_script(_page_data(report)),
        "</script>",
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "".join(parts)
