"""The Typer app and `main()`: bad input or usage -> one line on stderr and exit code 2."""

from __future__ import annotations

import sys

import click
import typer

from sudokubench.grid import GridFormatError, InvalidPuzzleError
from sudokubench.solvers import UnknownBackendError

app = typer.Typer(
    name="sudokubench",
    help="Compare Sudoku solvers: cross-checked answers and counts, fair timings.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

#: Errors that mean "bad input": one line, exit code 2.
INPUT_ERRORS = (
    GridFormatError,
    InvalidPuzzleError,
    UnknownBackendError,
    OSError,
    UnicodeDecodeError,
)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print `sudokubench: error: MESSAGE` on stderr; return the Exit to raise."""
    print(f"sudokubench: error: {message}", file=sys.stderr)
    return typer.Exit(code)


def main(argv: list[str] | None = None) -> None:
    """Run the command line; never a traceback for bad input."""
    try:
        code = app(args=argv, standalone_mode=False)
    except click.UsageError as exc:
        print(f"sudokubench: error: {exc.format_message()}", file=sys.stderr)
        code = 2
    except click.Abort:
        code = 130
    except KeyboardInterrupt:
        code = 130
    except INPUT_ERRORS as exc:
        print(f"sudokubench: error: {exc}", file=sys.stderr)
        code = 2
    except click.ClickException as exc:
        print(f"sudokubench: error: {exc.format_message()}", file=sys.stderr)
        code = exc.exit_code
    sys.exit(code if isinstance(code, int) else 0)
