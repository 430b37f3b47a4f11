"""The parent's CPU per task in `compare`, measured alone: every outcome replayed, no worker.

    python benchmarks/parent.py                      # 20,000 puzzles of 17clue, fast, 5 rounds
    python benchmarks/parent.py --count 49158 --rounds 3
    python benchmarks/parent.py --outcomes           # outcomes one by one, not in columns
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=sys_call_tracing \
        python benchmarks/parent.py --count 8000 --rounds 1 --callgrind   # compare's alone

With `--jobs 2` on a 2-core machine the two workers and the parent share the cores, so
`compare`'s `--jobs 2` throughput over `--jobs 1` is at most about 2w / (w + p), w a worker's
time per task and p the parent's: the parent's share is what bounds that ratio
(`benchmarks/harness.py` measures the ratio itself). In a real run p is hard to see apart from
the machine's noise, since the workers share the CPUs with it; here the backend is called once
per puzzle first, in this process, and each round runs a whole `compare` (reading and storing
the input, planning, storing each row with its check, cross-checking, tallying, the report)
with an executor that hands back those outcomes at once, as a worker's would arrive (the
answers were checked by the worker's own code, `run_task`, and carry the JSON texts of
their solutions and stats that a worker sends with them, `wire.to_wire`): by default as a
worker of sudokubench's own sends them, each 32 tasks one columnar message (`pool/batch.py`),
pickled beforehand and unpickled during the round; with `--outcomes`, as outcomes (the path
of an executor without columns). So the round's CPU seconds are the parent's alone, minus the
pool's share of reading the pipes (`benchmarks/pool.py` measures that part). The script
prints the median per task and the direct loop's time per puzzle beside it, which w is never
below.
"""

from __future__ import annotations

import itertools
import pickle
import statistics
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from _common import harness_setup

from sudokubench.formats import parse_grid
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import Outcome, Task, run_task, worker_info
from sudokubench.harness.pool.batch import Batch, take_batch, to_columns
from sudokubench.harness.pool.wire import stored_texts
from sudokubench.solvers import get_backend

#: Outcomes a replayed message holds (a worker's message holds about 30 on 17clue, `HOLD`).
BATCH = 32


class Replay:
    """An executor that hands back outcomes computed beforehand, one per task, at once: as
    outcomes (`run_batches`), or with `columns` as a worker of sudokubench's own sends them,
    each `BATCH` of tasks one columnar message (`pool/batch.py`), pickled beforehand and
    unpickled and taken here as `LocalPool` takes it from a worker's pipe (`run_columns`)."""

    def __init__(self, answers: dict[str, Outcome], columns: bool = False) -> None:
        self.answers = answers  # by puzzle line: the outcome of one run of the backend
        self.messages: dict[int, bytes] = {}  # a batch's message by its first task id
        if columns:
            self.run_columns = self._run_columns

    def pickle_messages(self, puzzles: list[str]) -> None:
        """The columnar messages of a run of one task a puzzle, `BATCH` tasks each, the
        task ids the puzzles' places (made before the run: a worker's work, not the
        parent's)."""
        for first in range(0, len(puzzles), BATCH):
            outcomes = [
                self.answers[line]._replace(task=self.answers[line].task._replace(task_id=k))
                for k, line in enumerate(puzzles[first : first + BATCH], first)
            ]
            message = to_columns(outcomes)
            assert message is not None
            self.messages[first] = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)

    def _run_columns(self, tasks: Iterable[Task]) -> Iterator[Batch]:
        """Each `BATCH` of tasks, its message unpickled and taken against them."""
        tasks = iter(tasks)
        while batch := deque(itertools.islice(tasks, BATCH)):
            yield take_batch(batch, pickle.loads(self.messages[batch[0].task_id]))

    def prepare(self, backends: Sequence[str]) -> list[dict[str, Any]]:
        """This machine, as `LocalPool.prepare` describes it."""
        return [{**worker_info(list(backends)), "processes": 1}]

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Each task's outcome, the stored one made the task's."""
        for task in tasks:
            yield self.answers[task.puzzle]._replace(task=task)

    def run_batches(self, tasks: Iterable[Task]) -> Iterator[list[Outcome]]:
        """`run`'s outcomes in lists of `BATCH`, as a worker's messages bring them."""
        outcomes = self.run(tasks)
        while batch := list(itertools.islice(outcomes, BATCH)):
            yield batch

    def close(self) -> None:
        """Nothing to release."""


def answers(
    backend_name: str, puzzles: list[str], limit: int, timeout: float
) -> tuple[float, dict[str, Outcome]]:
    """The direct loop's CPU seconds per puzzle (the solve alone), and each puzzle solved and
    checked once more here as a worker does it (`run_task`), by puzzle line."""
    backend = get_backend(backend_name)
    cpu = time.process_time()
    for line in puzzles:
        backend.solve(parse_grid(line), limit=limit, timeout=timeout)
    direct = (time.process_time() - cpu) / len(puzzles)
    outcomes = {
        line: run_task(backend, Task(0, "", line, None, backend_name, limit, timeout, 0))
        for line in puzzles
    }
    # with the texts a worker of sudokubench's own sends with them (`wire.to_wire`)
    return direct, {line: o._replace(texts=stored_texts(o)) for line, o in outcomes.items()}


def main() -> None:
    """Measure and print the parent's CPU per task."""
    opts, puzzles = harness_setup(__doc__, count=20000, rounds=5, outcomes=True)
    n = len(puzzles)
    direct, outcomes = answers(opts.backend, puzzles, opts.limit, opts.timeout)
    replay = Replay(outcomes, columns=not opts.outcomes)
    if not opts.outcomes:
        replay.pickle_messages(puzzles)
    cpu: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "17clue.txt"
        path.write_text("".join(f"{p}\n" for p in puzzles), encoding="utf-8")
        for r in range(opts.rounds):
            db = Path(tmp) / f"round{r}.sqlite"
            args = CompareArgs(
                files=(str(path),),
                backends=(opts.backend,),
                limit=opts.limit,
                timeout=opts.timeout,
                jobs=1,
            )
            start = time.process_time()
            if opts.callgrind:  # (the round alone in `sys.call_tracing`: callgrind's toggle)
                report = sys.call_tracing(partial(compare, args, db=db, executor=replay), ())
            else:
                report = compare(args, db=db, executor=replay)
            cpu.append(time.process_time() - start)
            assert report.ok and len(report.tasks) == n, "the replayed run is not whole and sound"
            print(f"round {r + 1}: {cpu[-1]:.2f} s CPU, {cpu[-1] / n * 1e6:.1f} us per task")
            db.unlink()
    p = statistics.median(cpu) / n * 1e6
    print(
        f"the parent's CPU per task: median {p:.1f} us (rounds {min(cpu) / n * 1e6:.1f}-"
        f"{max(cpu) / n * 1e6:.1f}); the direct loop's solve {direct * 1e6:.0f} us per puzzle"
    )
    print(
        f"with w = {direct * 1e6:.0f} us, 2w / (w + p) = {2 * direct / (direct + p / 1e6):.2f}x "
        "(a worker's w is larger: the bound is a little higher)"
    )


if __name__ == "__main__":
    main()
