"""Outside text (file and backend names, a plug-in's messages) is shown as text: control
characters escaped, never a terminal's escape sequence; Markdown code it cannot close."""

from __future__ import annotations

import re

from fake_backends import Hostile
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
