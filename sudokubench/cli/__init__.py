"""The `sudokubench` command: one Typer app, its commands grouped by feature in this package.

- `app.py`: the app, `main()` (errors -> one line on stderr, exit 2), shared option helpers.
- `basic.py`: solve, count, check, show, backends.
- `cnf.py`: cnf (DIMACS out).
- `compare.py`: compare, report, runs.
- `generate.py`: generate, rate.
"""

from sudokubench.cli import basic, cnf, compare, generate  # noqa: F401  (registers commands)
from sudokubench.cli.app import app, main

__all__ = ["app", "main"]
