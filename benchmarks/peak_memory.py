"""What measuring each task's peak memory costs a worker: `PeakMemory.reset` then `.peak`
(one write to /proc/self/clear_refs, one `getrusage`), against the same reset with the mark
read from /proc/self/status (the other way to read it), per task, in a forked process as a
worker is. Both run outside the timed call; this is the worker's CPU they add per task.
Then what an `exec:` program's memory costs its worker: one look at its process tree's
resident set (every 10 ms while it works) and its high-water mark (read before and after
each task, with one more look).

    python benchmarks/peak_memory.py                 # 20,000 calls each, 5 rounds
    python benchmarks/peak_memory.py --calls 100000

Each round times both ways back to back (in turn forwards and backwards), so the load of
the machine hits both; the table shows the median microseconds per task over the rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from sudokubench.harness.pool.memory import PeakMemory
from sudokubench.processes import high_water_bytes, tree_resident_bytes


def _from_status() -> int:
    with open("/proc/self/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _per_call(calls: int, read: object) -> float:
    memory = PeakMemory()
    start = time.process_time()
    for _ in range(calls):
        memory.reset()
        read()  # type: ignore[operator]
    return (time.process_time() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    read, write = os.pipe()
    if os.fork() == 0:  # a worker is a forked process: measure in one
        os.close(read)
        memory = PeakMemory()
        found: dict[str, list[float]] = {"getrusage": [], "/proc/self/status": []}
        ways = [("getrusage", memory.peak), ("/proc/self/status", _from_status)]
        for k in range(opts.rounds):
            for name, way in ways if k % 2 == 0 else ways[::-1]:
                found[name].append(_per_call(opts.calls, way))
        lines = [f"{name:18} {statistics.median(v):6.2f} us/task" for name, v in found.items()]
        os.write(write, ("\n".join(lines) + "\n").encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        sys.stdout.write(f.read())
    os.wait()
    program = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        time.sleep(0.5)  # (started)
        for name, way in (
            ("program tree look", tree_resident_bytes),
            ("program VmHWM", high_water_bytes),
        ):
            rounds = [_per_look(opts.calls // 10, way, program.pid) for _ in range(opts.rounds)]
            print(f"{name:18} {statistics.median(rounds):6.2f} us/call")
    finally:
        program.kill()
        program.wait()
    print(f"(load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")


def _per_look(calls: int, look: object, pid: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        look(pid)  # type: ignore[operator]
    return (time.process_time() - start) / calls * 1e6


if __name__ == "__main__":
    main()
