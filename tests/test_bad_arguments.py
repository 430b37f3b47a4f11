"""Nonsense arguments and unreadable input: one line `sudokubench: error: ...`, exit 2, before
anything runs (never a traceback, never a run started, never a hang)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
from support import TELEGRAM, cli

TESTS = Path(__file__).resolve().parent


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a bad-input exit (asserts the exit code and the form)."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sudokubench: error: "), done.stderr
    return lines[0]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A folder of inputs no command can read, and one good puzzle file."""
    (tmp_path / "p.txt").write_text(f"{TELEGRAM}\n", encoding="utf-8")
    # 100,000 lists deep (a line past the line limit), and 40,000 inside an object (under it)
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    nested = '{"puzzle": ' + "[" * 40_000 + "]" * 40_000 + "}\n"
    (tmp_path / "nested.json").write_text(nested, encoding="utf-8")
    (tmp_path / "text.gz").write_text("not gzip at all\n", encoding="utf-8")
    damaged = gzip.compress(f"{TELEGRAM}\n".encode() * 50)
    (tmp_path / "damaged.gz").write_bytes(damaged[:12] + b"\xff" * 20 + damaged[32:])
    return tmp_path


CASES = {
    "a subset past any file": (["count", "top95:9999999999999999999"], "numbered up to"),
    "an infinite timeout": (["compare", "p.txt", "-b", "fast", "--timeout", "inf"], "timeout"),
    "a NaN timeout": (["compare", "p.txt", "-b", "fast", "--timeout", "nan"], "timeout"),
    "solve's infinite timeout": (["solve", TELEGRAM, "--timeout", "inf"], "--timeout"),
    "a limit past SQLite's integers": (
        ["compare", "p.txt", "-b", "fast", "--limit", str(10**20)],
        "limit must be 1 to 1,000,000",
    ),
    "a million generating workers": (["generate", "--jobs", str(10**6), "-n", "1"], "--jobs"),
    "99,999 local dask workers": (
        ["compare", "p.txt", "-b", "fast", "--cluster", "local:99999"],
        "at most 256 local workers",
    ),
    "JSON 100,000 deep": (["solve", "deep.json"], "deep.json:1: line longer than"),
    "JSON nested past the stack": (["compare", "nested.json", "-b", "fast"], "nested too deeply"),
    "a .gz that is text": (["solve", "text.gz"], "text.gz"),
    "a .gz that is damaged": (["compare", "damaged.gz", "-b", "fast"], "damaged.gz"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_arguments_are_one_line_and_exit_2(inputs: Path, case: str) -> None:
    args, said = CASES[case]
    done = cli(*args, "--db", "r.sqlite", cwd=inputs) if args[0] == "compare" else None
    done = done or cli(*args, cwd=inputs)
    assert said in one_error_line(done)
    assert not (inputs / "r.sqlite").exists()  # nothing ran, nothing was stored


@pytest.mark.parametrize("command", ["solve", "compare"])
def test_binary_on_stdin_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    env_args = [sys.executable, "-m", "sudokubench", command, "-"]
    if command == "compare":
        env_args += ["-b", "fast", "--db", str(tmp_path / "r.sqlite")]
    binary = Path(sys.executable).resolve().read_bytes()[:4096]
    done = subprocess.run(env_args, input=binary, capture_output=True, timeout=120, cwd=tmp_path)
    text = subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(errors="replace"),
        done.stderr.decode(errors="replace"),
    )  # fmt: skip
    assert "stdin" in one_error_line(text)
    assert not (tmp_path / "r.sqlite").exists()


def test_an_error_line_shows_control_characters_as_text(tmp_path: Path) -> None:
    done = cli("solve", "\x1b]0;owned\x07x.txt", cwd=tmp_path)
    line = one_error_line(done)
    assert "\\x1b]0;owned\\x07x.txt" in line and "\x1b" not in done.stderr
