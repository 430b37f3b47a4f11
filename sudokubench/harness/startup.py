"""A new run's start: its row and its puzzles stored in one transaction on a thread of their own,
while the first puzzles read are already planned and solved (`run.py` drives it).

Reading and storing a large input takes a while (17clue's 49,158 puzzles: their lines read in
chunks, `formats.read_texts`, then SQLite's inserts, about 3 us a puzzle); the workers need not
wait for it. `Startup` reads
and stores on its thread and hands the first `PREFIX` puzzles to the planner as they are read;
the planner takes the rest from the database once the transaction is committed (`finish`).
What the rule was stays the rule: the run is stored with all its puzzles or not at all, so bad
input anywhere (or Ctrl-C while starting) stores nothing and the tasks already run are dropped
with it (`abandon`), and no task row is written before the commit (`run.py` holds them).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.store import Store

__all__ = ["PREFIX", "Startup"]

#: Puzzles handed to the planner while the input is still read (the rest is read back from
#: the database): the executor's window (`pool.local.WINDOW`, 4,096 tasks) and a few seconds
#: of work past it for a fast backend on 2 cores; a few MB held at most.
PREFIX = 16384

_END = object()  # the queue's last item: the thread is done, committed or failed


class _Abandoned(BaseException):
    """Raised inside the storing thread to roll its transaction back."""


class Startup:
    """Stores a new run with its puzzles on a thread (the module docstring).

    `puzzles` come in lists, as the input is read (`plan.load_puzzle_lists`: a large chunk
    of a file at a time). `first()` yields the first `PREFIX` puzzles as they are read (a
    list at a time through the queue); `finish()` waits for the
    commit and gives the run's id and puzzle count, or raises what stopped the reading (an
    `InputError` for bad input, with nothing stored); `failure` shows it without waiting.
    """

    def __init__(
        self,
        store: Store,
        args: dict[str, Any],
        machine: dict[str, Any],
        puzzles: Iterable[Sequence[PuzzleRow]],
        prefix: int = PREFIX,
    ) -> None:
        self.store = store
        self.prefix = prefix
        self.count = 0  # puzzles read so far
        self.run_id: int | None = None  # set once the run and its puzzles are committed
        self.failure: BaseException | None = None
        self._first: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._store, args=(args, machine, puzzles), name="startup", daemon=True
        )
        self._thread.start()

    def _lists(self, puzzles: Iterable[Sequence[PuzzleRow]]) -> Iterator[Sequence[PuzzleRow]]:
        for rows in puzzles:
            if self._stop.is_set():
                raise _Abandoned
            count = self.count
            if count < self.prefix:
                self._first.put(
                    rows if count + len(rows) <= self.prefix else rows[: self.prefix - count]
                )
            self.count = count + len(rows)
            yield rows

    def _store(self, args: dict[str, Any], machine: dict[str, Any], puzzles: Any) -> None:
        try:
            self.run_id = self.store.new_run(args, machine, lists=self._lists(puzzles))
        except BaseException as exc:  # handed to the main thread, which raises it
            self.failure = exc
        finally:
            self._first.put(_END)

    @property
    def committed(self) -> bool:
        """Whether the run and all its puzzles are stored."""
        return self.run_id is not None

    def first(self) -> Iterator[PuzzleRow]:
        """The first `PREFIX` puzzles, each as soon as it is read (waits for the next)."""
        for rows in self.first_lists():
            yield from rows

    def first_lists(self) -> Iterator[Sequence[PuzzleRow]]:
        """`first`'s puzzles a list at a time, as they were read (none empty)."""
        while (rows := self._first.get()) is not _END:
            if rows:
                yield rows

    def finish(self) -> tuple[int, int]:
        """(run id, puzzle count) once committed; raises what stopped the reading."""
        self._thread.join()
        if self.failure is not None:
            raise self.failure
        assert self.run_id is not None
        return self.run_id, self.count

    def abandon(self, wait: float = 5.0) -> bool:
        """Stop reading and wait for the thread: the transaction is rolled back unless it was
        committed already. False when the thread still runs after `wait` seconds (blocked on
        an input that sends nothing, e.g. a terminal): the store must then be left alone."""
        self._stop.set()
        self._thread.join(wait)
        return not self._thread.is_alive()
