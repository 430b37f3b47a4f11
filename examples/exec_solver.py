#!/usr/bin/env python3
"""A Sudoku solver for sudokubench's exec: protocol, as a standalone Python script.

It imports nothing from sudokubench, like a program in any other language would. Use:

    sudokubench compare puzzles/easy50.txt --backends fast,exec:'python3 examples/exec_solver.py'

Protocol: one puzzle a line on stdin (`1`-`9`, then `A`-`Z` above 9; `.` or `0` for blanks;
N*N characters, boxes as wide as possible: 6x6 -> 2x3); one line on stdout per puzzle: the
solution in the same form, or `0` when there is none. stdout is flushed after every line.

Algorithm: depth-first search, always filling the empty cell with the fewest candidates.
"""

import math
import sys

SYMBOLS = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def solve(line: str) -> str | None:
    """The solution of the puzzle in `line`, or None if it has none (or cannot be read)."""
    n = math.isqrt(len(line))
    if n < 1 or n * n != len(line) or n > len(SYMBOLS):
        return None
    box_rows = max(r for r in range(1, math.isqrt(n) + 1) if n % r == 0)
    box_cols = n // box_rows
    grid = [0 if ch in ".0" else SYMBOLS.find(ch.upper()) + 1 for ch in line]
    if any(d < 0 or d > n for d in grid):
        return None
    units = [[set() for _ in range(n)] for _ in range(3)]  # rows, columns, boxes

    def where(k: int) -> tuple[int, int, int]:
        r, c = divmod(k, n)
        return r, c, (r // box_rows) * box_rows + c // box_cols

    for k, d in enumerate(grid):
        if d:
            for used, u in zip(units, where(k), strict=True):
                if d in used[u]:
                    return None  # conflicting givens
                used[u].add(d)
    empty = [k for k, d in enumerate(grid) if not d]
    digits = set(range(1, n + 1))

    def search() -> bool:
        best, best_free = -1, None
        for k in empty:
            if grid[k]:
                continue
            r, c, b = where(k)
            free = digits - units[0][r] - units[1][c] - units[2][b]
            if best_free is None or len(free) < len(best_free):
                best, best_free = k, free
                if len(free) <= 1:
                    break
        if best < 0:
            return True
        r, c, b = where(best)
        for d in sorted(best_free):
            grid[best] = d
            units[0][r].add(d), units[1][c].add(d), units[2][b].add(d)
            if search():
                return True
            units[0][r].discard(d), units[1][c].discard(d), units[2][b].discard(d)
        grid[best] = 0
        return False

    return "".join(SYMBOLS[d - 1] for d in grid) if search() else None


def main() -> None:
    """Answer each line of stdin with one line on stdout."""
    for line in sys.stdin:
        answer = solve(line.strip())
        sys.stdout.write((answer or "0") + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
