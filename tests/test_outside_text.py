"""Outside text (file and backend names, a plug-in's messages) is shown as text: control
characters escaped, never a terminal's escape sequence; Markdown code it cannot close; HTML
text (read back by an HTML parser), never markup or mathtext in its plots; CSV cells no
spreadsheet runs, the tool's own cells (`=1`) as they are."""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fake_backends import Hostile
from hostile_plugins import Formula
from support import TELEGRAM, cli

from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.report.lines import md
from sudokubench.harness.report.render import render_markdown
from sudokubench.output import escape_controls

#: ESC and BEL: a window title set, the screen cleared.
TITLE, CLEAR = "\x1b]0;owned\x07", "\x1b[2J"


def test_escape_controls_escapes_every_control_character_and_keeps_the_rest():
    assert escape_controls(f"a{TITLE}b{CLEAR}\r\n\t\x9b[x") == (
        "a\\x1b]0;owned\\x07b\\x1b[2J\\x0d\\x0a\\x09\\x9b[x"
    )
    assert (
        escape_controls("exec:cat [bold]x[/bold] :cat: é ü 数独")
        == "exec:cat [bold]x[/bold] :cat: é ü 数独"
    )


def test_an_error_line_shows_a_file_name_escape_controls(tmp_path):
    """A missing file named with escape sequences: one line, its name escaped (the ESC and
    BEL reached the terminal)."""
    name = f"p{TITLE}{CLEAR}[bold]x[/bold]:cat:.txt"
    done = cli("compare", name, "-b", "fast", "--db", str(tmp_path / "r.sqlite"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(
        "sudokubench: error: p\\x1b]0;owned\\x07\\x1b[2J[bold]x[/bold]:cat:.txt: "
    )
    assert done.stderr.count("\n") == 1 and not re.search(r"[\x00-\x09\x0b-\x1f]", done.stderr)


def test_a_markdown_report_keeps_a_plugin_message_inside_its_code_block(tmp_path):
    """A plug-in's error message with a Markdown fence, a heading and escape sequences stays
    one line of the Errors code block (it closed the fence and wrote a heading and raw ESC)."""
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(TELEGRAM + "\n")
    args = CompareArgs(files=(str(puzzles),), backends=("fast", Hostile.name))
    text = render_markdown(compare(args, db=tmp_path / "r.sqlite"))
    assert not re.search(r"[\x00-\x09\x0b-\x1f]", text)
    lines = text.splitlines()
    start = lines.index("## Errors") + 2
    fence = lines[start]
    end = lines.index(fence, start + 1)
    assert re.fullmatch("````+", fence)  # longer than the message's own ```
    assert lines[start + 1 : end] == [
        f"ERRORS {Hostile.name}: 1 task failed",
        f"  1x RuntimeError: {escape_controls(Hostile.message)}",
    ]
    assert not any(line.startswith("# owned") for line in lines)


def test_a_markdown_cell_escapes_control_characters():
    assert md(f"x{TITLE}|y") == "x\\\\x1b\\]0;owned\\\\x07\\|y"


def test_runs_lists_a_file_name_as_text(tmp_path):
    """`runs` shows a stored file name (a database field) with its escape sequences as text
    (they reached the terminal raw)."""
    puzzles = tmp_path / f"p{CLEAR}[bold]x.txt"
    puzzles.write_text(TELEGRAM + "\n")
    db = tmp_path / "r.sqlite"
    compare(CompareArgs(files=(str(puzzles),), backends=("fast",)), db=db)
    done = cli("runs", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("[p\\x1b[2J[bold]x.txt x 1 backends]")
    assert "\x1b" not in done.stdout


# -- the report files: HTML and CSV ------------------------------------------------------------

#: An `exec:` program's name (the command line) and what it says on stderr: markup, quotes,
#: mathtext, a window title, a formula.
SAID = '<script>alert("x")</script> $\\frac$ \x1b]0;t\x07 \x9b2J =cmd|'
PROGRAM = "exec:" + shlex.join(["sh", "-c", f"printf '%s\\n' {shlex.quote(SAID)} >&2; exit 1"])
FILE = '=HYPERLINK("x") <b>.txt'  # a puzzle file's name: its puzzles' ids
COLLECTION = "-2+3<img/src=x/onerror=alert(1)>"
BACKENDS = ("fast", PROGRAM, Formula.name)


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of `fast`, the program and `Formula` on one puzzle of FILE; its database."""
    where = tmp_path_factory.mktemp("outside")
    (where / FILE).write_text(f"# collection: {COLLECTION}\n{TELEGRAM}\n", encoding="utf-8")
    done = cli("compare", FILE, "-b", ",".join(BACKENDS), "--db", "r.sqlite", "-q", cwd=where)
    assert done.returncode == 3, done.stderr  # two backends failed, as they mean to
    return where / "r.sqlite"


class _Page(HTMLParser):
    """Every element and attribute of a page, the cells of its summary table, the text of its
    `<pre>` blocks and of its data script."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.summary: list[list[str]] = []
        self.pre = self.data = ""
        self._open: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if a.get("id") in ("summary", "data"):
            self._in = a["id"]
        if self._in == "summary" and tag == "tr":
            self.summary.append([])
        if self._in == "summary" and tag == "td":
            self.summary[-1].append("")
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("table", "script"):
            self._in = None
        while self._open and self._open.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self._in == "summary" and self._open[-1:] == ["td"]:
            self.summary[-1][-1] += data
        elif self._in == "data":
            self.data += data
        elif "pre" in self._open:
            self.pre += data


def test_the_html_report_shows_outside_text_as_text(hostile_run: Path):
    """Parsed as a browser would: the page's own two scripts and nothing else that runs; each
    name and message is text, with its control characters as `\\xNN`; the plots drew the
    program's `$\\frac$` as written (as mathtext it stopped the report, exit 2)."""
    out = hostile_run.with_name("r.html")
    done = cli("report", "--db", str(hostile_run), "-f", "html", "-o", str(out))
    assert done.returncode == 3, done.stderr
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    page = _Page()
    page.feed(text)
    scripts = [attrs for tag, attrs in page.tags if tag == "script"]
    assert scripts == [{"type": "application/json", "id": "data"}, {}]
    assert not [tag for tag, _ in page.tags if tag in ("img", "iframe", "object")]
    assert [tag for tag, _ in page.tags].count("b") == 1  # the page's own: its verdict
    assert not [(tag, k) for tag, attrs in page.tags for k in attrs if k.startswith("on")]
    names = [row[0] for row in page.summary if row]
    assert names == ["fast", escape_controls(PROGRAM), Formula.name, "virtual best"]
    assert escape_controls(Formula.message) in page.pre
    assert f"stderr: {escape_controls(repr(SAID))}" in page.pre
    assert json.loads(page.data)["backends"] == list(BACKENDS)  # the data: exactly as stored


def test_the_csv_exports_guard_outside_cells_only(hostile_run: Path):
    """Cells of outside text that would start a formula get a `'`, control characters are
    `\\xNN` (the CSV is printed on the terminal); the tool's own `=1` stays as it is."""
    done = cli("report", "--db", str(hostile_run), "--per-task", "--format", "csv")
    assert done.returncode == 3, done.stderr
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", done.stdout.replace("\n", ""))
    rows = {r["backend"]: r for r in csv.DictReader(io.StringIO(done.stdout))}
    assert list(rows) == ["fast", escape_controls(PROGRAM), Formula.name]
    assert {r["puzzle_id"] for r in rows.values()} == {f"'{FILE}:1"}
    assert {r["collection"] for r in rows.values()} == {f"'{COLLECTION}"}
    assert rows["fast"]["verdict"] == rows["fast"]["consensus"] == "=1"
    assert rows[Formula.name]["message"] == "'" + escape_controls(Formula.message)
    assert rows[escape_controls(PROGRAM)]["message"].endswith(escape_controls(repr(SAID)))
    summary = cli("report", "--db", str(hostile_run), "--format", "csv")
    assert "\x1b" not in summary.stdout
    names = [r["backend"] for r in csv.DictReader(io.StringIO(summary.stdout))]
    assert names == [*rows, "virtual best"]
