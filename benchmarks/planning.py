"""The parent's CPU a puzzle for planning a run's tasks alone (`Tracker.todo`), no worker.

    python benchmarks/planning.py                    # 16,384 puzzles handed over as read
    python benchmarks/planning.py --count 20000 --stored    # read back from the database

Without `--stored` the puzzles come as `compare`'s start-up hands over the first `PREFIX`
(16,384) of a new run, a list at a time as the input was read; with it, from a stored run,
as `compare` reads back those past `PREFIX` (`Store.ordered_puzzles`, 2,000 a read). Each
round makes every task of a one-backend run (the tally's registration and the open puzzles
with them) and drops it; the collector runs as rarely as in `compare` (`run._rare_collections`).
Prints the median CPU microseconds a puzzle over the rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import statistics
import tempfile
import time
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path

from sudokubench.harness import CompareArgs
from sudokubench.harness.plan import load_puzzle_lists, resolve_args
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.store import Store
from sudokubench.harness.track import Progress, Tracker


class _Handed:
    """A start-up that has read its puzzles (`Startup.first` and its lists), then stops."""

    def __init__(self, lists: list[Sequence[PuzzleRow]]) -> None:
        self.lists = lists

    def first(self) -> Iterator[PuzzleRow]:
        for rows in self.lists:
            yield from rows

    def first_lists(self) -> Iterator[Sequence[PuzzleRow]]:
        yield from self.lists

    def finish(self) -> tuple[int, int]:
        raise _Done


class _Done(Exception):
    pass


def main() -> None:
    """Measure and print the planning's CPU a puzzle."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=16384, help="puzzles of 17clue")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--stored", action="store_true", help="read back from the database")
    opts = parser.parse_args()
    n = opts.count
    args = resolve_args(CompareArgs(files=(f"17clue:..{n}",), backends=("fast",)))
    gc.set_threshold(1000 * 700, *gc.get_threshold()[1:])
    cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "r.sqlite"
        lists = list(load_puzzle_lists(args))
        with Store(db, create=True) as store:
            run_id = store.new_run(args.to_json(), {}, lists=lists)
        with Store(db, create=False) as reader:
            for _ in range(opts.rounds):
                tracker = Tracker(reader, run_id, args, Tally(args.backends, n), Progress(0, 0))
                start = time.process_time()
                # (a start-up's `finish` ends the handed-over puzzles' plan: `_Done`)
                with contextlib.suppress(_Done, RuntimeError):
                    deque(tracker.todo(None if opts.stored else _Handed(lists)), 0)  # type: ignore[arg-type]
                cpu.append(time.process_time() - start)
                assert len(tracker.open) == n, "not every puzzle was planned"
    per = sorted(c / n * 1e6 for c in cpu)
    where = "read back from the database" if opts.stored else "handed over as read"
    print(
        f"planning {n} puzzles {where}: median {statistics.median(per):.2f} us a puzzle "
        f"(rounds {per[0]:.2f}-{per[-1]:.2f})"
    )


if __name__ == "__main__":
    main()
