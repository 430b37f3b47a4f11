"""A worker's `native` lane task alone: the worker's loop (`worker._serve`) run in this process
over the first N puzzles of 17clue for each N of `--counts`, one after another in the same
process, fed its batches as pickles and its messages pickled (`benchmarks/pool.py --serve`'s
feed: no pipe, no parent), each loop inside `sys.call_tracing` so that callgrind counts it
alone and dumps its counts after it:

    NUMBA_CPU_NAME=generic valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect=sys_call_tracing --dump-after=sys_call_tracing \
        python benchmarks/lane_task.py --counts 2000 8000

The two dumps' difference over the 6,000 tasks between is a lane task's instructions (the
fixed costs cancel; one process, so one start-up). Without valgrind it prints each loop's CPU
a task (`--rounds` times, the counts alternated) and the direct loop's (`parse_grid`,
`backend.solve`) for the same tasks.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import statistics
import sys
import time

from _common import load_average
from pool import _Fed

from sudokubench.formats import collection_path, parse_grid, read_puzzles
from sudokubench.harness.pool import DEFAULT_BATCH_SIZE, Task, worker
from sudokubench.solvers import get_backend


def main() -> None:
    """Run the loops and print their CPU a task."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--direct", action="store_true", help="also the direct loop, timed")
    opts = parser.parse_args()
    records = itertools.islice(read_puzzles(collection_path("17clue")), max(opts.counts))
    tasks = [
        Task(k, f"17clue:{k + 1}", str(r.puzzle), None, "native", opts.limit, opts.timeout, 0)
        for k, r in enumerate(records)
    ]
    backend = get_backend("native")
    backend.available()
    for task in tasks[:20]:
        backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)
        worker.finish(worker.solve(backend, task))
    worker.HOLD = 1e9  # (a message a batch: under valgrind 20 ms is a few tasks)
    worker._collect_less_often()  # (as `worker_main`)
    fields = [tuple(t) for t in tasks]
    cpus: dict[str, list[float]] = {}
    for _ in range(opts.rounds):
        for n in opts.counts:
            batches = [
                pickle.dumps(fields[k : min(k + opts.batch_size, n)], pickle.HIGHEST_PROTOCOL)
                for k in range(0, n, opts.batch_size)
            ]
            conn = _Fed(batches)
            cpu = time.process_time()
            sys.call_tracing(worker._serve, (conn, None, False, None))
            cpu = time.process_time() - cpu
            sent = [pickle.loads(m) for m in conn.sent]
            rows = sum(len(m[3]) for m in sent if m[0] == "rows")  # (a row's effort a byte)
            assert rows == n, (rows, n)
            cpus.setdefault(f"lane {n}", []).append(cpu / n * 1e6)
        if opts.direct:
            n = max(opts.counts)
            cpu = time.process_time()
            for task in tasks[:n]:
                backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)
            cpus.setdefault(f"direct {n}", []).append((time.process_time() - cpu) / n * 1e6)
    for name, values in cpus.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"{name}: {statistics.median(values):.1f} us of CPU a task (median; {shown})")
    print(f"load average {load_average()}; numpy imported: {'numpy' in sys.modules}")


if __name__ == "__main__":
    main()
