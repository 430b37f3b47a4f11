"""Where a run's idle time is: each worker's waits for its next batch and the parent's looks.

    python benchmarks/flow.py                                   # this tree, jobs 1 and 2, 3 rounds
    python benchmarks/flow.py --revisions main . --rounds 5     # two revisions alternately
    python benchmarks/flow.py --backend fast --count 5000
    python benchmarks/flow.py --revisions main . --output-buffer 106496   # the usual pipe

Each run is a whole `compare` of the first `--count` puzzles of 17clue (`--limit 2`) through its
Python API, with the pool `compare` makes (`jobs` workers from the fork server). The fork
server also imports this file, which wraps the worker's `receive`: before it reads a batch, a
worker whose pipe is empty notes when it started waiting and when a batch came (one `poll` a
batch, none a task). In the parent, the pool's `time.sleep` is wrapped to add up the seconds
its loop slept and how many times (its looks). Printed for each run:

- `run`: the run's own wall seconds (`machine.noise.wall_s`), when the first task reached a
  worker (seconds after the pool was handed the tasks) and `span`, from then to the last
  outcome the parent read; `pause`, the median of the sleeps the loop asked for (`handle.pause`);
- `idle`: each worker's seconds blocked in `receive` with nothing to do within the span (the
  wait after its last batch until the span's end included: the end's imbalance), and how many
  times it waited (waits under 0.1 ms not counted); then the waits' seconds and count by where
  each began in the span (`start`: its first tenth; `end`: its last tenth, or lasting to its
  end; `middle`), and each wait, when it began (ms into the span) and for how long;
- `cpu`: the workers' CPU seconds and the parent's (`machine.noise.parent_cpu_s`), per task;
- `looks`: the parent's looks at the pipes in the span after a sleep, and in all (those between
  the caller's steps too), the seconds it slept and the seconds it worked (the span less its
  sleep), per look after a sleep;
- `sending`: each worker's seconds in `send` of 0.1 ms or more (its outcomes' buffer full) and
  its seconds runnable but waiting for a core (Linux's schedstat, over its life), the parent's
  over `compare`; the caller's steps (its turns with what the pool handed it), those of 10 ms
  or more one by one.

With `--revisions`, each revision's `sudokubench` (`git archive`, `.` the working tree) runs in
its own process, the revisions' order reversed every other round, jobs 1 and 2 in each; the
medians of each revision follow the rounds, with the load average at each run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: The folder of the waits' logs (set by a measured run; the fork server and workers inherit it).
LOG = "FLOW_LOG"
#: Waits shorter than this are not counted as waits (their seconds still are).
SHORT = 1e-4
#: The share of the span counted as its start, and as its end, for the waits' histogram.
EDGE = 0.1
#: The caller's turns with an item the pool handed it shown one by one from this long.
LONG_STEP = 0.01


def _queued() -> float:
    """This process's seconds runnable but waiting for a core (Linux's schedstat), or NaN."""
    try:
        return int(Path("/proc/self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def _trace_worker() -> None:
    """Wrap `worker.receive` (in the fork server, so every worker has it): a worker's waits
    with an empty pipe, written to the log folder when the parent stops it."""
    from sudokubench.harness.pool import worker

    real = worker.receive
    waits: list[tuple[float, float]] = []
    first: list[float] = []

    def receive(conn: Any) -> Any:
        poll = getattr(conn, "poll", None)
        if poll is not None and not poll(0):
            began = time.perf_counter()
            poll(None)
            waits.append((began, time.perf_counter()))
        message = real(conn)
        if message is None:
            record = {
                "first": first[0] if first else None,
                "waits": waits,
                "sends": [(a, b) for a, b in sends if b - a >= SHORT],
                "queued": _queued(),
            }
            path = Path(os.environ[LOG]) / f"worker-{os.getpid()}.json"
            path.write_text(json.dumps(record))
        elif not first:
            first.append(time.perf_counter())
        return message

    real_send = worker.send

    def send(conn: Any, message: Any) -> None:
        began = time.perf_counter()
        real_send(conn, message)
        sends.append((began, time.perf_counter()))

    sends: list[tuple[float, float]] = []
    worker.receive = receive
    worker.send = send


if os.environ.get(LOG) and __name__ != "__main__":  # imported by the fork server
    _trace_worker()


class _Clock:
    """`time` as the pool's loop sees it, its `sleep` counted."""

    def __init__(self) -> None:
        self.sleeps: list[tuple[float, float]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    def sleep(self, seconds: float) -> None:
        began = time.perf_counter()
        time.sleep(seconds)
        self.sleeps.append((began, time.perf_counter()))


def measured_run(
    count: int, backend: str, jobs: int, output_buffer: int | None = None
) -> dict[str, Any]:
    """One `compare` run of 17clue's first `count` puzzles, measured (see the docstring);
    `output_buffer`: the send buffer asked for the workers' ends of their pipes
    (`handle.OUTPUT_BUFFER`, where the revision has it)."""
    here = str(Path(__file__).resolve().parent)
    sys.path.insert(0, here)
    from _common import process_cpu

    from sudokubench.formats import collection_path, read_puzzles
    from sudokubench.harness import CompareArgs, compare
    from sudokubench.harness.pool import boot, handle, local

    if output_buffer is not None and hasattr(handle, "OUTPUT_BUFFER"):
        handle.OUTPUT_BUFFER = output_buffer

    folder = Path(tempfile.mkdtemp(prefix="flow-"))
    os.environ[LOG] = str(folder)
    # (the fork server's `sys.path` is its own: this folder on its `PYTHONPATH`, last)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, (os.environ.get("PYTHONPATH"), here)))
    # This file first among the server's imports, so the worker's `receive` is wrapped.
    import multiprocessing
    from multiprocessing import forkserver

    modules = ["flow", *boot.WORKER_MODULES, *boot._modules([backend])]
    multiprocessing.get_context("forkserver").set_forkserver_preload(modules)
    forkserver.ensure_running()

    records = read_puzzles(collection_path("17clue"))
    path = folder / "17clue.txt"
    with open(path, "w", encoding="utf-8") as out:
        for n, record in enumerate(records):
            if n == count:
                break
            out.write(f"{record.puzzle}\n")
    clock = _Clock()
    local.time = clock  # type: ignore[assignment]
    real_pause, pauses = local.pause, []

    def pause(*args: Any) -> float:
        pauses.append(real_pause(*args))
        return pauses[-1]

    local.pause = pause
    pool = local.LocalPool(jobs=jobs, preload=(backend,))
    real_dispatch, dispatches = pool._dispatch, []

    def dispatch(*args: Any) -> None:  # (one a look, those between the caller's steps too)
        dispatches.append(time.perf_counter())
        real_dispatch(*args)

    pool._dispatch = dispatch  # type: ignore[method-assign]
    ends: list[float] = []
    began: list[float] = []
    steps: list[tuple[float, float]] = []  # the caller's turns with what the pool handed it

    class Measured:
        def prepare(self, backends: Any) -> Any:
            return pool.prepare(backends)

        def run_columns(self, tasks: Any) -> Any:
            began.append(time.perf_counter())
            for item in pool.run_columns(tasks):
                ends[:] = [time.perf_counter()]
                yield item
                steps.append((ends[0], time.perf_counter()))

    args = CompareArgs(files=(str(path),), backends=(backend,), limit=2, timeout=10.0, jobs=jobs)
    queued_before = _queued()
    report = compare(args, db=folder / "run.sqlite", executor=Measured())
    worker_cpu = sum(process_cpu(w.process.pid) for w in pool._workers)
    pool.close()
    local.time, local.pause = time, real_pause  # type: ignore[assignment]
    noise = report.run.machine["noise"]
    logs = [json.loads(p.read_text()) for p in folder.glob("worker-*.json")]
    end = ends[0]
    start = min(log["first"] for log in logs if log["first"] is not None)
    idle, waits, each, blocked, queued = [], [], [], [], []
    for log in logs:
        if log["first"] is None:
            continue
        sent = [(max(a, log["first"]), min(b, end)) for a, b in log["sends"]]
        blocked.append(sum(b - a for a, b in sent if b > a))
        queued.append(log["queued"])
        spans = [(max(a, log["first"]), min(b, end)) for a, b in log["waits"]]
        spans = [(a, b) for a, b in spans if b > a]
        idle.append(sum(b - a for a, b in spans))
        waits.append(sum(1 for a, b in spans if b - a >= SHORT))
        each.append([(a - start, b - a) for a, b in spans if b - a >= SHORT])
    sleeps = [(max(a, start), min(b, end)) for a, b in clock.sleeps]
    sleeps = [(a, b) for a, b in sleeps if b > a]
    looks = len(sleeps) + 1
    slept = sum(b - a for a, b in sleeps)
    span = end - start
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()
    return {
        "jobs": jobs,
        "tasks": len(report.tasks),
        "run": noise["wall_s"],
        "span": span,
        "before": start - began[0],
        "idle": idle,
        "waits": waits,
        "each": each,
        "blocked": blocked,
        "queued": queued,
        "parent_queued": _queued() - queued_before,
        "steps": len(steps),
        "dispatches": sum(1 for t in dispatches if start <= t <= end),
        "long_steps": [(a - start, b - a) for a, b in steps if b - a >= LONG_STEP],
        "edges": edges(each, end - start),
        "worker_cpu": worker_cpu,
        "parent_cpu": noise["parent_cpu_s"],
        "looks": looks,
        "slept": slept,
        "worked": span - slept,
        "pause": statistics.median(pauses) if pauses else 0.0,
        "load": os.getloadavg()[0],
    }


def edges(each: list[list[tuple[float, float]]], span: float) -> dict[str, list[float]]:
    """The waits' seconds and count by where they began in the span: `start` (its first
    `EDGE`), `end` (its last `EDGE`, or lasting to the span's end: a worker with nothing left
    while another finishes) and `middle`."""
    got = {"start": [0.0, 0], "middle": [0.0, 0], "end": [0.0, 0]}
    for waits in each:
        for at, length in waits:
            if at + length >= span - 1e-6 or at >= (1 - EDGE) * span:
                part = "end"
            elif at < EDGE * span:
                part = "start"
            else:
                part = "middle"
            got[part][0] += length
            got[part][1] += 1
    return got


def show(label: str, r: dict[str, Any]) -> str:
    """One run's line."""
    n = r["tasks"]
    idle = " + ".join(f"{s:.2f}" for s in r["idle"])
    waits = " + ".join(str(w) for w in r["waits"])
    return (
        f"{label} jobs {r['jobs']}: run {r['run']:.2f} s, first task at {r['before']:.2f}, "
        f"span {r['span']:.2f}; idle {idle} s "
        f"({waits} waits); cpu workers {r['worker_cpu']:.2f} parent {r['parent_cpu']:.2f} "
        f"({r['parent_cpu'] / n * 1e6:.1f} us a task); looks {r['looks']} after a sleep, "
        f"{r['dispatches']} in all; slept "
        f"{r['slept']:.2f} s, worked {r['worked']:.2f} s "
        f"({r['worked'] / r['looks'] * 1e3:.2f} ms a look, pause {r['pause'] * 1e3:.1f} ms); "
        f"load {r['load']:.1f}\n    sending (s): "
        + " + ".join(f"{b:.3f}" for b in r["blocked"])
        + "; waiting for a core (s): workers "
        + " + ".join(f"{q:.3f}" for q in r["queued"])
        + f", parent {r['parent_queued']:.3f}\n    waits (start/middle/end, s and count): "
        + ", ".join(f"{k} {v[0]:.3f} ({v[1]})" for k, v in r["edges"].items())
        + f"\n    the caller's {r['steps']} steps; over {LONG_STEP * 1e3:.0f} ms (at ms, for ms): "
        + " ".join(f"{a * 1e3:.0f}+{b * 1e3:.1f}" for a, b in r["long_steps"])
        + "\n    each (at ms, for ms): "
        + " | ".join(
            " ".join(f"{a * 1e3:.0f}+{b * 1e3:.1f}" for a, b in waits) for waits in r["each"]
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=20000, help="puzzles of 17clue")
    parser.add_argument("--backend", default="native")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", default="1,2", help="comma-separated")
    parser.add_argument("--revisions", nargs="+", default=["."], help="git revisions (`.`)")
    parser.add_argument(
        "--output-buffer",
        type=int,
        help="bytes asked for the workers' ends' send buffers (a buffer at most the system's "
        "own, e.g. 106496 of Linux's usual 212992, leaves that one)",
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a run, as JSON
    opts = parser.parse_args()
    if opts.one is not None:
        print(json.dumps(measured_run(opts.count, opts.backend, opts.one, opts.output_buffer)))
        return
    from command_start import export

    folders = {rev: export(rev) for rev in opts.revisions}
    jobs = [int(j) for j in opts.jobs.split(",")]
    got: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for folder in folders.values():  # numba's cache of each warm first (not timed)
        env = {**os.environ, "PYTHONPATH": str(folder)}
        warm = [sys.executable, "-m", "sudokubench", "backends", "--warm", "--json"]
        subprocess.run(warm, env=env, cwd=folder, capture_output=True, check=False)
    for r in range(opts.rounds):
        order = list(folders) if r % 2 == 0 else list(reversed(folders))
        for rev in order:
            for j in jobs:
                env = {**os.environ, "PYTHONPATH": str(folders[rev])}
                argv = [sys.executable, __file__, "--one", str(j), "--count", str(opts.count)]
                argv += ["--backend", opts.backend]
                if opts.output_buffer is not None:
                    argv += ["--output-buffer", str(opts.output_buffer)]
                done = subprocess.run(
                    argv, env=env, cwd=folders[rev], capture_output=True, text=True
                )
                if done.returncode:
                    sys.exit(f"{rev}: exit {done.returncode}\n{done.stderr[-3000:]}")
                result = json.loads(done.stdout.strip().splitlines()[-1])
                got.setdefault((rev, j), []).append(result)
                print(show(f"round {r + 1} {rev}", result), flush=True)
    print("\nmedians")
    for (rev, j), runs in got.items():
        med = {k: statistics.median(r[k] for r in runs) for k in ("run", "span", "parent_cpu")}
        idle = statistics.median(sum(r["idle"]) for r in runs)
        waits = statistics.median(sum(r["waits"]) for r in runs)
        looks = statistics.median(r["looks"] for r in runs)
        workers = statistics.median(r["worker_cpu"] for r in runs)
        n = runs[0]["tasks"]
        parts = {
            k: (
                statistics.median(r["edges"][k][0] for r in runs),
                statistics.median(r["edges"][k][1] for r in runs),
            )
            for k in ("start", "middle", "end")
        }
        print(
            f"  {rev:<10} jobs {j}: run {med['run']:.2f} s, span {med['span']:.2f} s, idle "
            f"{idle:.2f} s in all workers ({waits:.0f} waits), parent "
            f"{med['parent_cpu'] / n * 1e6:.1f} us a task, workers {workers / n * 1e6:.1f} us "
            f"a task, {looks:.0f} looks; waits "
            + ", ".join(f"{k} {s:.3f} s ({c:.0f})" for k, (s, c) in parts.items())
        )


if __name__ == "__main__":
    main()
