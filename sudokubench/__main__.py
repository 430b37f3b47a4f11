"""`python -m sudokubench`: the same as the `sudokubench` command."""

from sudokubench.cli import main

main()
