"""The command line's one vocabulary: the options every command spells the same way.

`VOCABULARY` is the table (long name, short name, meaning) that `docs/cli.md`
writes out and `tests/test_cli_vocabulary.py` enforces over every command of the app: an
option that has one of these names has both, and means this. The `Annotated` types below are
the options themselves; a command takes them rather than spelling its own.

- `-b/--backends NAMES` one backend or several (`a,b`, `all`); `--backend` stays an alias.
- `-n/--limit N` how many solutions to look for; `-a/--all` every solution.
- `-f/--format FORMAT` how data is printed, `--json` its shorthand for `--format json`.
- `-o/--output FILE` where data is written instead of stdout.
- `-q/--quiet` no progress bar (a bar is drawn only on a terminal, on stderr).
- `-j/--jobs N` worker processes.
- `-h/--help`, `-V/--version` (the app's own).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from sudokubench.backend import MAX_TIMEOUT
from sudokubench.processes import MAX_WORKERS

__all__ = [
    "TABLE_FORMATS",
    "TEXT_FORMATS",
    "VOCABULARY",
    "AllOpt",
    "BackendOpt",
    "BackendsOpt",
    "BoxOpt",
    "JobsOpt",
    "JsonOpt",
    "OutputOpt",
    "PuzzleArg",
    "QuietOpt",
    "TableFormatOpt",
    "Term",
    "TextFormatOpt",
    "TimeoutOpt",
    "examples",
    "format_option",
    "pick_format",
]


class Term(NamedTuple):
    """One word of the vocabulary: its long and short option names, and what it means."""

    long: str
    short: str | None
    meaning: str
    aliases: tuple[str, ...] = ()


#: Every shared option: a command that has any of an entry's names has all of them.
VOCABULARY = (
    Term("--help", "-h", "print the command's help, with examples, and exit"),
    Term("--version", "-V", "print the version and exit (the app's, before any command)"),
    Term("--backends", "-b", "one backend or several: `fast`, `fast,dlx`, `all`", ("--backend",)),
    Term("--limit", "-n", "look for at most N solutions"),
    Term("--all", "-a", "every solution (no limit)"),
    Term("--format", "-f", "how data is printed: FORMAT is one of the command's formats"),
    Term("--json", None, "shorthand for `--format json`: one JSON object a line, stable keys"),
    Term("--output", "-o", "write to FILE instead of stdout", ("--out",)),
    Term("--quiet", "-q", "no progress bar (one is drawn only when stderr is a terminal)"),
    Term("--jobs", "-j", "worker processes"),
    Term("--timeout", "-t", "seconds per puzzle and backend"),
)

PuzzleArg = Annotated[
    str,
    typer.Argument(
        metavar="PUZZLE|FILE|-",
        help="A puzzle (line, block or tokens), a puzzle file, a collection (top95, top95:7, "
        "top95:1-20, top95:..20), or - for stdin (stdin:3).",
        show_default=False,
    ),
]
BoxOpt = Annotated[
    str | None,
    typer.Option("--box", metavar="RxC", help="Box shape, e.g. 2x3; default: from the cell count."),
]
BackendOpt = Annotated[
    str,
    typer.Option(
        "--backends",
        "--backend",
        "-b",
        metavar="NAME",
        help="The backend (see `sudokubench backends`).",
    ),
]
BackendsOpt = Annotated[
    str,
    typer.Option(
        "--backends",
        "--backend",
        "-b",
        metavar="NAMES",
        help="One backend, several (a,b) or all (see `sudokubench backends`); a plug-in as "
        "module:attr, a program as exec:'CMD'.",
    ),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        "-t",
        metavar="SECONDS",
        min=0,
        max=MAX_TIMEOUT,
        help="Seconds per puzzle and backend; default: none.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Shorthand for --format json.")]
AllOpt = Annotated[bool, typer.Option("--all", "-a", help="Every solution.")]
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "--out", "-o", metavar="FILE", help="Write to FILE, not stdout."),
]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar (drawn only on a terminal).")
]
JobsOpt = Annotated[
    int,
    typer.Option("--jobs", "-j", metavar="N", min=1, max=MAX_WORKERS, help="Worker processes."),
]


def format_option(formats: tuple[str, ...]) -> Any:
    """The `-f/--format FORMAT` option of a command that prints `formats` (the first is its
    default, given where the option is used); its help lists them."""
    listed = ", ".join(formats[:-1]) + f" or {formats[-1]}"
    return Annotated[str, typer.Option("--format", "-f", metavar="FORMAT", help=f"{listed}.")]


#: The formats of a command that prints a line of text (or a table) a thing, or JSON lines.
TEXT_FORMATS = ("text", "json")
TABLE_FORMATS = ("table", "json")
TextFormatOpt = format_option(TEXT_FORMATS)
TableFormatOpt = format_option(TABLE_FORMATS)


def pick_format(fmt: str, as_json: bool, formats: tuple[str, ...]) -> str:
    """The format asked for: `--json` is `--format json`; one of `formats`, else a usage error
    (raised as the CLI's `UsageFailure`)."""
    from sudokubench.cli.app import UsageFailure

    if as_json:
        if fmt not in (formats[0], "json"):
            raise UsageFailure(f"--json and --format {fmt} exclude each other")
        fmt = "json"
    if fmt not in formats:
        raise UsageFailure(f"--format {fmt!r}: choose one of {', '.join(formats)}")
    return fmt


def examples(*lines: str) -> str:
    """A command's help epilog: `Examples:` and the command lines, kept as written (Click's
    `\\b` stops the rewrapping); `tests/test_cli_vocabulary.py` runs every one."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)
