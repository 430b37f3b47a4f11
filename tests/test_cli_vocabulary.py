"""The command line's one vocabulary (`sudokubench/cli/options.py`, `docs/cli.md`),
enforced over every command the app has: the commands are read from the app itself, so a new
command is checked without anyone adding it here.

Each command: `-h` and `--help` print its help with examples and no Typer placeholder; an
option with a name of the vocabulary has all of that word's names and no other; `--format`
and `--json` come together; a command that draws a progress bar takes `-q`; every example
runs and exits 0. The app: `-V`, full summaries in the top-level help, "did you mean" for a
command, a backend and a collection.
"""

from __future__ import annotations

import inspect
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.testing
from support import cli

from sudokubench.cli import load_app, main
from sudokubench.cli.options import VOCABULARY

the_app = load_app()
GROUP = typer.main.get_command(the_app)
COMMANDS = sorted(GROUP.commands)  # type: ignore[attr-defined]
#: Typer's placeholders for an option or argument without a metavar.
PLACEHOLDER = re.compile(r"<[a-z][\w\[\], |]*>|\[\[")


def help_of(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv])
    out, err = capsys.readouterr()
    assert stop.value.code == 0 and err == "", err
    return out


def command(name: str) -> Any:
    return GROUP.commands[name]  # type: ignore[attr-defined]


def option_names(name: str) -> list[set[str]]:
    return [
        set(p.opts) | set(p.secondary_opts)
        for p in command(name).params
        if p.param_type_name == "option" and not p.hidden  # (hidden: generate -n refuses)
    ]


def examples(text: str) -> list[str]:
    """The command lines under `Examples:` in a help text."""
    _, found, rest = text.partition("Examples:\n")
    assert found, "no Examples: section"
    return [line.strip() for line in rest.splitlines() if line.strip().startswith("sudokubench ")]


def test_the_app_lists_its_commands():
    assert {"solve", "count", "compare", "report", "generate"} <= set(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_has_examples_and_no_placeholders(name, flag, capsys):
    text = help_of(name, flag, capsys=capsys)
    assert text.startswith(f"Usage: sudokubench {name} ")
    assert not PLACEHOLDER.search(text), PLACEHOLDER.search(text)
    assert examples(text) and all(e.startswith(f"sudokubench {name}") for e in examples(text))


@pytest.mark.parametrize("name", COMMANDS)
def test_options_speak_the_vocabulary(name):
    for names in option_names(name):
        for term in VOCABULARY:
            word = {term.long, *term.aliases} | ({term.short} if term.short else set())
            if names & word:
                required = {term.long} | ({term.short} if term.short else set())
                assert required <= names <= word, (name, sorted(names), term)
    flat = set().union(*option_names(name))
    assert ("--format" in flat) == ("--json" in flat), name


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_that_draws_progress_takes_quiet(name):
    source = inspect.getsource(command(name).callback)  # type: ignore[arg-type]
    draws = "progress=" in source or "Ticker(" in source or "_Reporter(" in source
    assert not draws or "-q" in set().union(*option_names(name)), name


def test_top_level_help_gives_whole_summaries_and_examples(capsys):
    text = help_of("-h", capsys=capsys)
    flat = " ".join(text.split())
    assert "..." not in text.partition("Commands:")[2]
    for name in COMMANDS:
        summary = command(name).get_short_help_str(limit=10_000)
        assert f"{name} {' '.join(summary.split())}" in flat
    assert examples(text)


def test_version_short_and_long(capsys):
    from sudokubench import __version__

    for flag in ("-V", "--version"):
        assert help_of(flag, capsys=capsys) == f"sudokubench {__version__}\n"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["slove", "top95:1"], "Did you mean 'solve'?"),
        (["count", "top95:1", "-b", "fats"], "did you mean fast?"),
        (["count", "top95:1", "--backends", "fast,dlxx"], "did you mean dlx?"),
        (["count", "top9:1"], "did you mean top95?"),
        (["generate", "-n", "3"], "-n means --limit in every command; write -c 3"),
        (["solve", "top95:1", "-b", "fast,dlx"], "this command runs one backend"),
        (["solve", "top95:1", "--json", "-f", "line"], "--json and --format line exclude"),
    ],
)
def test_a_typo_gets_one_line_with_a_suggestion(argv, fragment, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err.startswith("sudokubench: error: ") and err.count("\n") == 1 and fragment in err


def _all_examples() -> list[tuple[str, str]]:
    runner = typer.testing.CliRunner()
    found = [("", line) for line in examples(runner.invoke(the_app, ["-h"]).output)]
    for name in COMMANDS:
        found += [(name, line) for line in examples(runner.invoke(the_app, [name, "-h"]).output)]
    return found


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a stored run in `sudokubench.sqlite`, for `report` and `runs`."""
    folder = tmp_path_factory.mktemp("examples")
    done = cli("compare", "-b", "fast,dlx", "top95:..3", "-q", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder


@pytest.mark.slow
@pytest.mark.parametrize(("name", "line"), _all_examples())
def test_every_example_runs(name, line, workdir):
    done = cli(*shlex.split(line)[1:], cwd=workdir, timeout=600)
    assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-2000:])
    assert done.stdout or (workdir / "three.txt").exists() or "-o" in line, line
