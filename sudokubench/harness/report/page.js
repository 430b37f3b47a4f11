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
