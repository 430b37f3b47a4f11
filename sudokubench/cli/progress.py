"""What the terminal shows besides the results: its width, and progress with an ETA.

- `terminal_width()`: `COLUMNS` if set, else the terminal's width, else 160 (a pipe or a file
  gets the full table; set `COLUMNS` to choose).
- `Ticker`: a progress bar with done/total, the rate so far and the time left, on stderr, only
  when stderr is a terminal; in a pipe, a file or a CI log it writes nothing at all, so the
  output of a long command can be parsed. It is transient: the bar is gone once the command
  ends, the results stay.
- `counted(records, label)`: puzzles of a file streamed with a `Ticker`; the total comes from
  a first pass over the file (reading costs microseconds a puzzle, solving or rating far more),
  made only on a terminal.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["NARROW", "Ticker", "counted", "terminal_width"]

T = TypeVar("T")

#: Below this many columns the reports stack each backend's numbers instead of a wide table.
NARROW = 100
#: The width when neither COLUMNS nor a terminal says one.
DEFAULT_WIDTH = 160


def terminal_width() -> int:
    """The columns to fit: COLUMNS, else the terminal's width, else DEFAULT_WIDTH."""
    return max(20, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)


class Ticker:
    """A transient progress bar with an ETA on stderr, shown only when stderr is a terminal.

    `note` is a short text shown after the counts (e.g. timeouts and errors so far). Use as a
    context manager, or call `close()`. `quiet` (a command's `-q`) has no default: every
    command that draws a bar takes `-q` (`cli/options.py`).
    """

    def __init__(self, label: str, total: int | None, *, quiet: bool) -> None:
        self.shown = not quiet and Ticker.wanted()
        self._bar: Any = None
        self._task: Any = None
        if not self.shown:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._bar = Progress(
            TextColumn(label),
            BarColumn(bar_width=None if terminal_width() >= NARROW else 12),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=Console(file=sys.stderr, width=terminal_width()),
            transient=True,
            redirect_stdout=sys.stdout is not None and sys.stdout.isatty(),
            redirect_stderr=False,
        )
        self._bar.start()
        self._task = self._bar.add_task(label, total=total, note="")

    @staticmethod
    def wanted() -> bool:
        """Whether a bar would be shown: stderr is a terminal."""
        return sys.stderr is not None and sys.stderr.isatty()

    def update(self, done: int, total: int | None = None, note: str = "") -> None:
        """Show `done` of `total` (unchanged when None) and the note."""
        if self._bar is not None:
            kwargs: dict[str, Any] = {"completed": done, "note": note}
            if total is not None:
                kwargs["total"] = total
            self._bar.update(self._task, **kwargs)

    def advance(self, steps: int = 1) -> None:
        """One more (or `steps` more) done."""
        if self._bar is not None:
            self._bar.advance(self._task, steps)

    def close(self) -> None:
        """Remove the bar (idempotent)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Ticker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def counted(
    items: Iterable[T], label: str, total: Callable[[], int | None] | None = None
) -> Iterator[T]:
    """Yield `items`, ticking one off each time the next is asked for (when the previous one is
    done); `total()` is called only when the bar is shown."""
    size = total() if total is not None and Ticker.wanted() else None
    with Ticker(label, size, quiet=False) as ticker:  # (`read_input` asks only when not -q)
        first = True
        for item in items:
            if not first:
                ticker.advance()
            first = False
            yield item
        if not first:
            ticker.advance()
