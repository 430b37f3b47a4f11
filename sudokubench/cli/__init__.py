"""The `sudokubench` command: one Typer app, its commands grouped by feature in this package.

- `app.py`: the app, `main()` (errors -> one line on stderr, exit 2), shared option helpers.
- `basic.py`: solve, count, check, show.
- `cnf.py`: cnf (DIMACS out).
- `compare.py`: compare.
- `generate.py`: generate, rate.
- `listing.py`: backends, collections.
- `report.py`: report, runs.

This package imports nothing until it is used: the `sudokubench` script (`from sudokubench.cli
import main`) is run again as the main module in every worker process that `multiprocessing`
starts for `compare` (fork server or spawn), and Typer and rich would add about 0.1 s to each
worker's start, and to each restart after a timeout.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "load_app", "main"]


#: The modules of commands, in the order `--help` lists their commands (importing one
#: registers its commands with the app).
_MODULES = ("basic", "cnf", "compare", "report", "generate", "listing")


def load_app(modules: tuple[str, ...] = _MODULES) -> Any:
    """The Typer app with every command registered (or those of `modules` alone)."""
    import importlib

    for module in modules:
        importlib.import_module(f"sudokubench.cli.{module}")
    from sudokubench.cli.app import app

    return app


def main(argv: list[str] | None = None) -> None:
    """Run the command line (see `sudokubench.cli.app.main`).

    A `compare` of registered backends on this machine starts its workers' fork server first
    (`pool.boot.boot_for_command`), so that the server's imports (numba, the native kernel's
    cached code) overlap this process's own start (Typer, the commands, the harness) rather
    than follow it; with `argv` None (the process's own command line, at its start) the server
    and `multiprocessing`'s resource tracker are forked from this process rather than started
    as new Pythons (`boot_fork_server`'s `fork`). The command line of the process (`argv`
    None) that names `compare` registers that command alone: the other commands' modules
    and Typer's reading of their options cost about 0.1 s of CPU, on every run; with `argv`
    None the process's end is shortened too (`_before_exit`).
    """
    import sys

    if argv is None:  # (the program's own command line: this process ends with the command)
        import atexit

        atexit.register(_before_exit)
    from sudokubench.harness.pool.boot import boot_for_command

    args = sys.argv[1:] if argv is None else argv
    boot_for_command(args, fork=argv is None)
    load_app(("compare",) if argv is None and args[:1] == ["compare"] else _MODULES)
    from sudokubench.cli.app import main as run

    run(argv)


def _before_exit() -> None:
    """The last of the command's exit handlers (registered first): the garbage collected
    once, then every object left frozen (`gc.freeze`), so that Python's own end, which collects
    again while it empties each module (three full collections over the 30,000-odd objects
    of Typer, the harness and the stdlib), finds nothing to look through: about 0.1 s of CPU
    at each command's end. Garbage made until then is collected here, finalizers run; only
    the cycles that emptying the modules leaves are not collected (the process is ending)."""
    import gc

    gc.collect()
    gc.freeze()


def __getattr__(name: str) -> Any:
    """`sudokubench.cli.app` as the Typer app, loaded on first use."""
    if name == "app":
        return load_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
