"""The HTML report, opened in a real headless Chromium: it loads without a console error, its
tables sort and filter (driven by the URL fragment), and the per-puzzle view shows a wrong
plug-in's answer with its wrong cells and the disagreement's sides.

The run: two honest backends and two wrong plug-ins (`tests/fake_backends.py`) on five
puzzles, one of them in a collection whose name is markup (it must stay text everywhere).
Chromium is Debian's `chromium` package (`.ci/run` installs it when missing).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote

import pytest
from support import TELEGRAM

from sudokubench.grid import Grid

TESTS = Path(__file__).resolve().parent
SCRIPT = Path(sys.executable).with_name("sudokubench")
BACKENDS = "fast,dlx,fake_backends:WrongSolution,fake_backends:WrongCount"
MARKUP = "<b>bold</b>&<script>alert(1)</script>"  # one word: a collection name
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), *sys.path]))
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300
    )


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """(the HTML file, the run's JSON report)."""
    where = tmp_path_factory.mktemp("html")
    (where / "odd.txt").write_text(f"# collection: {MARKUP}\n{TELEGRAM}\n")
    done = cli("compare", "top95:1-2", "hardest:1-2", "odd.txt", "-b", BACKENDS, cwd=where)
    assert done.returncode == 1, done.stderr  # the plug-ins are wrong
    report = cli("report", "-f", "json", cwd=where)
    html_out = cli("report", "-f", "html", "-o", "r.html", cwd=where)
    assert html_out.returncode == 1, html_out.stderr  # the run holds wrong answers
    return where / "r.html", json.loads(report.stdout)


def test_the_page_is_self_contained_and_escapes_its_data(page):
    path, _ = page
    text = path.read_text(encoding="utf-8")
    # every reference stays in the page: a fragment (#id) or inline data, nothing to fetch
    assert re.findall(r"(?:src|href)=[\"'](?!#|data:)[^\"']*", text) == []
    assert re.findall(r"url\((?!#)", text) == [] and "@import" not in text
    assert MARKUP not in text and "<b>bold</b>" not in text and "alert(1)</script>" not in text
    assert text.count("<svg") >= 3  # cactus, distributions, scatter, inline
    # each point of the scatter plot links to its puzzle's view
    for puzzle_id in ("top95:1", "top95:2", "hardest:1", "hardest:2"):
        assert f'xlink:href="#puzzle={quote(puzzle_id, safe="")}"' in text


class _Dom(HTMLParser):
    """What the tests read from Chromium's DOM: rows of each table by id, the error box, the
    per-puzzle view's text and its cells marked wrong."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.hidden_rows: dict[str, int] = {}
        self.text: dict[str, str] = {"errors": "", "detail": ""}
        self.wrong_cells = 0
        self.grids = 0
        self.ready = False
        self._stack: list[tuple[str, dict[str, str | None]]] = []
        self._table: str | None = None
        self._in_body = False

    def _inside(self, element_id: str) -> bool:
        return any(attrs.get("id") == element_id for _, attrs in self._stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "body":
            self.ready = a.get("data-ready") == "1"
        if tag in ("input", "meta", "br", "img", "link"):
            return
        self._stack.append((tag, a))
        if tag == "table" and a.get("id"):
            self._table = a["id"]
            self.tables[self._table] = []
        if tag == "tbody" and self._table:
            self._in_body = True
        if tag == "tr" and self._in_body and self._table:
            if "hidden" in a:
                self.hidden_rows[self._table] = self.hidden_rows.get(self._table, 0) + 1
            self.tables[self._table].append([])
        if tag == "td" and self._in_body and self._table:
            self.tables[self._table][-1].append("")
        if self._inside("detail") and tag == "td" and "wrong" in (a.get("class") or "").split():
            self.wrong_cells += 1
        if self._inside("detail") and tag == "table" and a.get("class") == "sudoku":
            self.grids += 1

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            name, attrs = self._stack.pop()
            if name == "table" and attrs.get("id") == self._table:
                self._table, self._in_body = None, False
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        for key in self.text:
            if self._inside(key):
                self.text[key] += data
        if self._table and self._in_body and self._stack[-1][0] == "td":
            self.tables[self._table][-1][-1] += data


def open_in_chromium(path: Path, fragment: str, tmp_path: Path) -> tuple[_Dom, str]:
    """Load the page in headless Chromium: (its DOM after the page's script ran, the console
    messages Chromium logged)."""
    done = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            f"{path.as_uri()}#{fragment}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = "\n".join(line for line in done.stderr.splitlines() if ":CONSOLE" in line)
    dom = _Dom()
    dom.feed(done.stdout)
    return dom, console


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (.ci/run installs it)")


def _medians(report: dict) -> dict[str, float]:
    return {name: s["median_s"] for name, s in report["summary"].items()}


@needs_chromium
@pytest.mark.slow
@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_sorting_in_the_browser_reorders_the_rows_by_the_value(page, tmp_path, direction):
    path, report = page
    dom, console = open_in_chromium(path, f"sort=summary:median:{direction}", tmp_path)
    assert dom.ready and dom.text["errors"] == "" and console == "", (dom.text, console)
    # the virtual best (the fastest backend per puzzle) is a row of the table, not a backend
    medians = _medians(report)  # None for a backend that timed nothing (all its answers wrong)
    shown = [row[0] for row in dom.tables["summary"] if medians.get(row[0]) is not None]
    timed = [b for b in medians if medians[b] is not None]
    expected = sorted(timed, key=lambda b: medians[b], reverse=direction == "desc")
    assert len(expected) >= 2 and shown == expected


@needs_chromium
@pytest.mark.slow
def test_filtering_hides_the_other_rows_and_markup_stays_text(page, tmp_path):
    path, _ = page
    dom, console = open_in_chromium(path, "filter=puzzles:hardest", tmp_path)
    assert dom.ready and console == ""
    assert [row[0] for row in dom.tables["puzzles"]] == ["hardest:1", "hardest:2"]
    dom, _ = open_in_chromium(path, "filter=summary:fake", tmp_path)
    # fast, dlx, the two fakes and the virtual best: the fakes' two rows stay shown
    assert len(dom.tables["summary"]) == 5 and dom.hidden_rows.get("summary") == 3
    dom, _ = open_in_chromium(path, "filter=puzzles:odd", tmp_path)
    assert [row[:2] for row in dom.tables["puzzles"]] == [["odd.txt:1", MARKUP]]  # markup as text


@needs_chromium
@pytest.mark.slow
def test_the_puzzle_view_shows_the_wrong_cells_and_the_disagreement(page, tmp_path):
    path, report = page
    by = {(r["puzzle_id"], r["backend"]): r for r in report["results"]}
    puzzle_id = "hardest:2"
    right = Grid.parse(by[puzzle_id, "fast"]["solutions"][0])
    wrong = Grid.parse(by[puzzle_id, "fake_backends:WrongSolution"]["solutions"][0])
    differing = sum(a != b for a, b in zip(right.cells, wrong.cells, strict=True))
    dom, console = open_in_chromium(path, f"puzzle={quote(puzzle_id, safe='')}", tmp_path)
    assert dom.ready and console == "" and dom.text["errors"] == ""
    detail = dom.text["detail"]
    assert f"Puzzle {puzzle_id}" in detail
    assert "0 (fake_backends:WrongCount) vs =1 (fast, dlx)" in detail
    assert "WRONG: >=1 fake_backends:WrongSolution" in detail
    assert "disagrees with the others" in detail
    # the puzzle, the agreed solution (fast, dlx), the wrong grid and WrongCount's empty one
    assert dom.grids == 4
    assert dom.wrong_cells == differing > 0
