"""What the terminal shows: the report fits its width, and long commands show progress with an
ETA on a terminal (a real pseudo-terminal here) and nothing at all in a pipe; a pipe whose
reader goes away (`| head -1`) ends a command quietly, with exit 0."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sudokubench.formats import collection_path

SCRIPT = Path(sys.executable).with_name("sudokubench")
ETA = re.compile(r"eta\s+\d+:\d\d:\d\d")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SHOWCASE = ["compare", "-b", "fast,dlx", "--db", "r.sqlite"]


def run(*args: str, columns: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS=str(columns))
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


def test_a_60_column_terminal_gets_each_backend_stacked_within_60_columns(tmp_path):
    done = run(*SHOWCASE, columns=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines), [x for x in lines if len(x) > 60]
    # the same numbers as the JSON report, one backend under its name
    data = json.loads(
        run("report", "--format", "json", "--db", "r.sqlite", columns=60, cwd=tmp_path).stdout
    )
    fast = data["summary"]["fast"]
    at = lines.index("fast (baseline)")
    assert lines[at + 1].split()[:10] == [
        "solved", str(fast["solved"]), "unsat", str(fast["unsatisfiable"]), "timeout",
        str(fast["timeout"]), "error", str(fast["error"]), "wrong", str(fast["wrong"]),
    ]  # fmt: skip
    assert "dlx" in lines and any("time ratio" in x for x in lines[lines.index("dlx") :])
    assert any(x.startswith("baseline fast (the default baseline)") for x in lines)
    assert lines[-2] == "all answers check out and agree on 20 puzzles"
    # a pipe: no progress at all (a warning about the machine's load may stand there)
    assert [x for x in done.stderr.splitlines() if not x.startswith("warning: ")] == []


def test_a_wide_terminal_gets_the_table_and_report_follows_columns(tmp_path):
    done = run(*SHOWCASE, columns=200, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header = next(x for x in done.stdout.splitlines() if "backend" in x and "solved" in x)
    assert [cell.strip() for cell in header.split("┃")[1:4]] == ["backend", "solved", "unsat"]
    narrow = run("report", "--db", "r.sqlite", columns=60, cwd=tmp_path).stdout
    assert "fast (baseline)" in narrow and max(map(len, narrow.splitlines())) <= 60


def on_a_terminal(args: list[str], cwd: Path, seconds: float = 240) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal and stdout a pipe: (exit code, stdout, what the
    terminal received)."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="120", TERM="xterm")
    proc = subprocess.Popen(
        [str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=slave, cwd=cwd, env=env
    )
    os.close(slave)
    screen = bytearray()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            screen += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    out = proc.stdout.read().decode()  # type: ignore[union-attr]
    return proc.wait(timeout=30), out, ANSI.sub("", screen.decode(errors="replace"))


@pytest.mark.parametrize(
    ("args", "label", "total", "out_lines"),
    [
        (["count", "top95:1-40", "-b", "dlx"], "count", 40, 40),
        (["rate", "easy50:1-20"], "rate", 20, 20),
        (["generate", "--count", "6", "--seed", "1"], "generate", 6, 6),
        (["compare", "top95:1-20", "-b", "fast,dlx", "--db", "r.sqlite"], "run 1", 40, None),
    ],
)
def test_long_commands_show_progress_with_an_eta_on_a_terminal_only(
    tmp_path, args, label, total, out_lines
):
    code, out, screen = on_a_terminal(args, tmp_path)
    assert code == 0, (out, screen)
    assert label in screen and f"/{total}" in screen, screen
    assert ETA.search(screen), screen
    assert "\x1b" not in out  # the results on stdout carry no terminal codes
    if out_lines is not None:
        assert len(out.splitlines()) == out_lines
    else:
        assert "all answers check out and agree on 20 puzzles" in out
    # the same command in a pipe writes no progress (generate's closing summary aside)
    done = subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, cwd=tmp_path, timeout=240
    )
    assert done.returncode == 0
    assert "eta" not in done.stderr and f"/{total}" not in done.stderr, done.stderr


def test_the_progress_total_of_a_file_is_its_puzzle_count(tmp_path):
    puzzles = tmp_path / "some.txt"
    lines = collection_path("top95").read_text().splitlines()[:7]
    puzzles.write_text("# seven puzzles\n" + "\n".join(lines) + "\n")
    code, out, screen = on_a_terminal(["count", str(puzzles)], tmp_path)
    assert code == 0 and len(out.splitlines()) == 7
    assert "7/7" in screen and "/95" not in screen


@pytest.mark.parametrize(
    "args",
    [
        "show 17clue:1-2000",  # about 500 kB, printed at once
        "solve 17clue:1-2000 -f line",  # about 160 kB, a line a puzzle as each is solved
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(args, tmp_path):
    """`sudokubench ARGS | head -1` in bash: far more than a pipe holds, so the command writes
    into a pipe with no reader; it stops with exit 0 and nothing on stderr (it exited 1)."""
    line = f'"{SCRIPT}" {args} | head -1; echo "exit ${{PIPESTATUS[0]}}" >&2'
    done = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert done.stdout.count("\n") == 1 and done.stdout.strip()
    assert done.stderr == "exit 0\n"


def test_a_reader_gone_before_the_first_line_is_exit_0(tmp_path):
    """A pipe whose reader is closed before the command starts: even the flush at exit finds
    it broken (`backends` writes a few lines); exit 0, nothing on stderr."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [str(SCRIPT), "backends"], stdout=write, stderr=subprocess.PIPE, timeout=300
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (0, b"")


#: `sudokubench show top95:1` with another pipe than stdout broken while reading the input.
_OTHER_PIPE = """
import sudokubench.cli.app as cli_app
from sudokubench.cli import main

def broken(*args, **kwargs):
    raise BrokenPipeError(32, "Broken pipe")

cli_app.resolve_input = broken
main(["show", "top95:1"])
"""


def test_another_broken_pipe_is_not_a_reader_gone(tmp_path):
    """A broken pipe that is not stdout's (here raised while reading the input) is a fault:
    its traceback, an internal-error line and exit 3, never a quiet exit 0."""
    done = subprocess.run(
        [sys.executable, "-c", _OTHER_PIPE], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1].startswith("sudokubench: error: internal error: ")
    assert "BrokenPipeError" in done.stderr
