"""`sudokubench cnf`: one puzzle as DIMACS CNF on stdout, for any SAT solver.

The `c` header names the puzzle and the encoding and says how variables map to cell-digits;
the optimized encoding renumbers its variables, and its `c vars` lines list each one's
cell-digit number (see `encodings.cnf`). Givens that leave no way to fill the grid (a
conflict, or an empty cell with no candidate under the optimized encoding) give the one-clause
formula `p cnf 0 1` / `0`, with the reason in a comment.
"""

from __future__ import annotations

import itertools
from typing import Annotated

import typer

from sudokubench.cli.app import UsageFailure, app, read_input
from sudokubench.cli.options import BoxOpt, PuzzleArg, examples
from sudokubench.encodings.cnf import Cnf, Encoding, encode, to_dimacs

__all__ = ["cnf"]


@app.command(
    epilog=examples(
        "sudokubench cnf top95:7",
        "sudokubench cnf top95:7 -e minimal",
    )
)
def cnf(
    puzzle: PuzzleArg,
    encoding: Annotated[
        Encoding,
        typer.Option(
            "--encoding",
            "-e",
            metavar="ENCODING",
            help=f"The CNF encoding: {', '.join(e.value for e in Encoding)}.",
        ),
    ] = Encoding.OPTIMIZED,
    box: BoxOpt = None,
) -> None:
    """Print the CNF of one puzzle in DIMACS format.

    The output is DIMACS, the one format every SAT solver reads: so no --format or --json.
    """
    records = list(itertools.islice(read_input(puzzle, box), 2))
    if not records:
        raise UsageFailure(f"{puzzle}: no puzzle in it")
    if len(records) > 1:
        raise UsageFailure(f"{puzzle}: holds several puzzles; cnf writes one formula")
    record = records[0]
    formula = encode(record.puzzle, encoding)
    header = (f"source {record.id}", *formula.comments)
    typer.echo(to_dimacs(Cnf(formula.num_vars, formula.clauses, formula.names, header)), nl=False)
