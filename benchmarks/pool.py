"""Worker-pool throughput: a backend called directly in a loop vs `LocalPool` with 1 and 2 jobs.

    python benchmarks/pool.py                        # 2,000 puzzles of 17clue, fast, 3 rounds
    python benchmarks/pool.py --count 500 --backend backtracking --rounds 1
    python benchmarks/pool.py --startup              # worker start-up: fork server vs spawn
    python benchmarks/pool.py --paired --count 12000 # a worker's CPU per task / the direct loop's
    python benchmarks/pool.py --in-process --backend native --count 20000  # a worker's steps, here
    python benchmarks/pool.py --serve --backend native --count 2500  # a worker loop, callgrind

`--serve` runs a worker's own loop (`worker._serve`) in this process, fed the tasks in batches
of `--batch-size` as pickles and its messages pickled (no pipe, no parent), inside
`sys.call_tracing` so that callgrind counts it alone; `--serve --direct` runs the direct loop
of `backend.solve` there instead. The difference of two `--count`s over the tasks between is a
task's instructions (the fixed costs cancel):

    NUMBA_CPU_NAME=generic valgrind --tool=callgrind --collect-atstart=no \
        --toggle-collect=sys_call_tracing python benchmarks/pool.py --serve --backend native \
        --count 2500

This isolates the executor (worker start-up, batches over pipes, one message back per task,
deadline bookkeeping): no checking, no storage, no report. `benchmarks/harness.py` measures the
whole `compare`. Each round runs the three side by side on the same puzzles, so machine noise
hits all three; medians over the rounds and their ratios are printed. Pool times include
starting the workers (a fresh pool per run), as a `compare` run pays it; the direct loop
includes reading each puzzle's line, as a worker does.

Wall time on a shared machine moves with the other load, so it also prints CPU seconds (Linux:
the parent's plus every worker's, read from /proc before the pool closes): the pool's CPU
overhead over the direct loop does not depend on how busy the machine is.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import statistics
import time

from _common import Rounds, load_average, process_cpu

from sudokubench.formats import collection_path, parse_grid, read_puzzles
from sudokubench.harness.pool import DEFAULT_BATCH_SIZE, LocalPool, Task
from sudokubench.solvers import get_backend

#: CPU seconds of the parent (this process: dispatching, polling, receiving) by --jobs.
PARENT_CPU: dict[int, list[float]] = {}


def direct(
    backend_name: str, puzzles: list[str], limit: int, timeout: float
) -> tuple[float, float]:
    """Wall and CPU seconds to read and solve every puzzle in a loop in this process."""
    backend = get_backend(backend_name)
    cpu, start = time.process_time(), time.perf_counter()
    for line in puzzles:
        backend.solve(parse_grid(line), limit=limit, timeout=timeout)
    return time.perf_counter() - start, time.process_time() - cpu


def pooled(tasks: list[Task], jobs: int, batch_size: int) -> tuple[float, float]:
    """Wall and CPU seconds (parent + workers) for a fresh pool of `jobs` workers."""
    cpu, start = time.process_time(), time.perf_counter()
    with LocalPool(jobs=jobs, batch_size=batch_size) as pool:
        statuses = [o.status for o in pool.run(tasks)]
        elapsed = time.perf_counter() - start
        parent = time.process_time() - cpu
        workers = sum(process_cpu(w.process.pid) for w in pool._workers)
    # answers are checked elsewhere (compare); here only that every task ran to an answer
    assert len(statuses) == len(tasks) and not {"error", "timeout"} & set(statuses)
    PARENT_CPU.setdefault(jobs, []).append(parent)
    return elapsed, parent + workers


def startup(rounds: int) -> None:
    """Print the time to a first answer: first pool of the process, later pools, after a kill."""
    quick = Task(0, "startup", "1234341221434321", None, "backtracking", 1, 10.0, 0)
    for method in ("forkserver", "spawn"):
        first, restart = [], []
        for _ in range(rounds):
            start = time.perf_counter()
            with LocalPool(start_method=method) as pool:
                list(pool.run([quick]))
                first.append(time.perf_counter() - start)
                worker = pool._workers[0].process
                worker.kill()  # as a hard timeout does; the next task needs a fresh worker
                worker.join()
                start = time.perf_counter()
                list(pool.run([quick]))
                restart.append(time.perf_counter() - start)
        later = statistics.median(first[1:]) if len(first) > 1 else float("nan")
        print(
            f"{method:10}  first pool of the process {first[0]:.3f} s, later pools {later:.3f} s,"
            f" a worker restarted after a kill {statistics.median(restart):.3f} s"
        )


def paired(backend_name: str, tasks: list[Task], chunk: int) -> None:
    """Print a worker's CPU time per task over the direct loop's, paired chunk by chunk.

    One worker stays up (started and warmed up first); chunks of `chunk` puzzles go in turn
    through the direct loop here and through the worker (its CPU seconds read from /proc), so
    each ratio compares two runs a second apart, which the machine's slow and fast spells
    (common on shared machines, lasting seconds) affect alike. What the ratio counts is what a
    worker does besides the solve: reading the task, timing the call, checking the answer
    (`is_solution`), making the outcome safe to send, and sending it.
    """
    backend = get_backend(backend_name)
    backend.solve(parse_grid(tasks[0].puzzle), limit=tasks[0].limit)  # loaded, as the worker
    ratios = []
    worker_total = direct_total = 0.0
    with LocalPool(jobs=1, preload=(backend_name,)) as pool:
        list(pool.run(tasks[:1]))  # start and warm up
        (worker,) = pool._workers
        for start in range(1, len(tasks) - chunk + 1, chunk):
            part = tasks[start : start + chunk]
            cpu = time.process_time()
            for task in part:
                backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)
            direct_cpu = time.process_time() - cpu
            before = process_cpu(worker.process.pid)
            statuses = {o.status for o in pool.run(part)}
            assert statuses == {"solved"}, statuses
            worker_cpu = process_cpu(worker.process.pid) - before
            ratios.append(worker_cpu / direct_cpu)
            worker_total += worker_cpu
            direct_total += direct_cpu
    ratios.sort()
    n = len(ratios) * chunk
    print(
        f"{len(ratios)} chunks of {chunk}: worker CPU / direct CPU per chunk, median "
        f"{statistics.median(ratios):.3f} (middle half {ratios[len(ratios) // 4]:.3f}-"
        f"{ratios[(3 * len(ratios)) // 4]:.3f}); in all, the worker {worker_total / n * 1e6:.1f} "
        f"us of CPU a task, the direct loop {direct_total / n * 1e6:.1f}"
    )


def in_process(backend_name: str, tasks: list[Task], chunk: int, rounds: int) -> None:
    """Print the CPU per task of a worker's own steps run in this process (no pipes, no
    parent): `worker.solve` back to back on a held chunk, then `finish` and `to_wire` on each
    (with the texts of its solutions and stats), as `worker_main` does; against the direct
    loop of `backend.solve`, paired chunk by chunk (the two alternate, so that the machine's
    slow and fast spells hit both)."""
    from sudokubench.harness.pool import worker
    from sudokubench.harness.pool.wire import to_wire

    backend = get_backend(backend_name)
    backend.available()
    for task in tasks[:50]:  # warm up both paths
        backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)
        to_wire(worker.finish(worker.solve(backend, task)), True)
    fields = [tuple(t) for t in tasks]
    direct_s = steps_s = 0.0
    for _ in range(rounds):
        for start in range(0, len(tasks), chunk):
            cpu = time.process_time()
            for task in tasks[start : start + chunk]:
                backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)
            direct_s += time.process_time() - cpu
            cpu = time.process_time()
            held = [worker.solve(backend, Task(*f)) for f in fields[start : start + chunk]]
            sent = [to_wire(worker.finish(s), True) for s in held]  # (with its texts)
            steps_s += time.process_time() - cpu
            assert len(sent) == len(held)
    n = len(tasks) * rounds
    print(
        f"direct loop {direct_s / n * 1e6:.1f} us of CPU a task, the worker's steps "
        f"{steps_s / n * 1e6:.1f} us: {(steps_s - direct_s) / n * 1e6:.1f} us more a task "
        f"({steps_s / direct_s:.2f}x); load average {load_average()}"
    )


class _Fed:
    """A worker's connection fed from a list of pickled batches (None after them), its
    messages pickled and kept (`--serve`)."""

    def __init__(self, batches: list[bytes]) -> None:
        self.batches = iter(batches)
        self.sent: list[bytes] = []

    def recv(self) -> object:
        batch = next(self.batches, None)
        return None if batch is None else pickle.loads(batch)

    def send(self, message: object) -> None:
        self.sent.append(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))


def serve(
    backend_name: str, tasks: list[Task], batch_size: int, direct_loop: bool, steps: str | None
) -> None:
    """A worker's loop (or, with `direct_loop`, the direct loop) over the tasks, in
    `sys.call_tracing` (callgrind's toggle); the backend loaded and warmed first. The worker
    holds what it solved until its next batch (`worker.HOLD` made long: under valgrind 20 ms
    is a few tasks, where a `native` worker holds a whole batch). With `steps` ("finish" or
    "batch"), only the held batches' messages are made in it, the tasks solved before: by
    `to_columns` of `finish`ed outcomes, or by `batch.solved_columns`."""
    import sys

    from sudokubench.harness.pool import worker

    backend = get_backend(backend_name)
    backend.available()
    for task in tasks[:20]:
        backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)
        worker.finish(worker.solve(backend, task))
    if direct_loop:

        def loop() -> None:
            for task in tasks:
                backend.solve(parse_grid(task.puzzle), limit=task.limit, timeout=task.timeout)

        cpu = time.process_time()
        sys.call_tracing(loop, ())
        cpu = time.process_time() - cpu
        print(f"the direct loop over {len(tasks)} tasks: {cpu / len(tasks) * 1e6:.1f} us a task")
        return
    if steps is not None:  # the held batches' conversion to messages alone
        from sudokubench.harness.pool import batch

        held = [
            [worker.solve(backend, task) for task in tasks[k : k + batch_size]]
            for k in range(0, len(tasks), batch_size)
        ]
        if steps == "finish":

            def convert() -> list:
                return [batch.to_columns([worker.finish(s) for s in h]) for h in held]

        else:

            def convert() -> list:
                return [batch.solved_columns(h) for h in held]

        made = sys.call_tracing(convert, ())
        assert all(m is not None for m in made)
        print(f"{steps}: {len(tasks)} held answers made messages")
        return
    fields = [tuple(t) for t in tasks]
    batches = [
        pickle.dumps(fields[k : k + batch_size], pickle.HIGHEST_PROTOCOL)
        for k in range(0, len(fields), batch_size)
    ]
    conn = _Fed(batches)
    worker.HOLD = 1e9
    worker._collect_less_often()  # (as `worker_main`)
    cpu = time.process_time()
    sys.call_tracing(worker._serve, (conn, None, False, None))
    cpu = time.process_time() - cpu
    answers = [pickle.loads(m) for m in conn.sent]
    rows = sum(len(m[3]) for m in answers if m[0] == "rows")  # (a row's effort kind a byte)
    print(
        f"the worker's loop over {len(tasks)} tasks: {len(conn.sent)} messages, {rows} rows, "
        f"{cpu / len(tasks) * 1e6:.1f} us of CPU a task; load average {load_average()}"
    )


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="puzzles of 17clue")
    parser.add_argument("--backend", default="fast")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE)
    parser.add_argument("--startup", action="store_true", help="measure worker start-up only")
    parser.add_argument(
        "--paired", action="store_true", help="a worker's CPU per task / the direct loop's"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="a worker's own steps, here, vs the direct loop"
    )
    parser.add_argument(
        "--serve", action="store_true", help="a worker's loop in this process (for callgrind)"
    )
    parser.add_argument("--direct", action="store_true", help="with --serve: the direct loop")
    parser.add_argument(
        "--steps", choices=("finish", "batch"), help="with --serve: the messages alone, made so"
    )
    parser.add_argument(
        "--chunk", type=int, default=600, help="puzzles per chunk (--paired, --in-process)"
    )
    opts = parser.parse_args()
    if opts.startup:
        startup(max(opts.rounds, 5))
        return

    records = itertools.islice(read_puzzles(collection_path("17clue")), opts.count)
    puzzles = [str(r.puzzle) for r in records]
    tasks = [
        Task(k, f"17clue:{k + 1}", p, None, opts.backend, opts.limit, opts.timeout, 0)
        for k, p in enumerate(puzzles)
    ]
    n = len(puzzles)
    if opts.serve:
        serve(opts.backend, tasks, opts.batch_size, opts.direct, opts.steps)
        return
    if opts.in_process:
        print(f"{n} puzzles of 17clue, backend {opts.backend}, load average {load_average()}")
        in_process(opts.backend, tasks, opts.chunk, opts.rounds)
        return
    if opts.paired:
        print(f"{n} puzzles of 17clue, backend {opts.backend}, load average {load_average()}")
        paired(opts.backend, tasks, opts.chunk)
        return
    print(
        f"{n} puzzles of 17clue, backend {opts.backend}, limit {opts.limit}, "
        f"batch {opts.batch_size}, {opts.rounds} rounds, {os.cpu_count()} CPUs, "
        f"load average {load_average()}"
    )
    table = Rounds(
        {
            "direct": lambda: direct(opts.backend, puzzles, opts.limit, opts.timeout),
            "jobs 1": lambda: pooled(tasks, 1, opts.batch_size),
            "jobs 2": lambda: pooled(tasks, 2, opts.batch_size),
        }
    ).run(opts.rounds)
    table.print_table(n)
    jobs1 = table.median("direct") / table.median("jobs 1")
    jobs2 = table.median("jobs 1") / table.median("jobs 2")
    cpu_direct, cpu_jobs1 = table.median_cpu("direct"), table.median_cpu("jobs 1")
    print(f"jobs 1 throughput / direct: {jobs1:.2f} (target >= 0.70)")
    print(f"jobs 2 throughput / jobs 1: {jobs2:.2f} (target >= 1.70)")
    extra = (cpu_jobs1 - cpu_direct) / n * 1e6
    print(
        f"jobs 1 CPU / direct CPU: {cpu_jobs1 / cpu_direct:.2f} "
        f"({extra:.0f} us of CPU per task for the pool)"
    )
    parent = {j: statistics.median(v) / n * 1e6 for j, v in sorted(PARENT_CPU.items())}
    print(
        "of which the parent: "
        + ", ".join(f"jobs {j} {us:.1f} us per task" for j, us in parent.items())
    )


if __name__ == "__main__":
    main()
