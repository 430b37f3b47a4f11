"""What a `native` lane task's probes cost, and the two facts its wait clock relies on.

    python benchmarks/lane_probes.py                      # all three parts
    python benchmarks/lane_probes.py --rounds 2000000     # more rounds for the switch check

1. Each probe timed alone: `CpuWait.seconds`, the peak's reset and read, `process_time`,
   `thread_time`, `perf_counter`; microseconds a call (CPU time around a loop, best of three).
   Then a lane task's probes in sequence (reset, two `perf_counter`s, wait, `process_time`,
   two `perf_counter`s, `process_time`, then the wait clock and `peak` as before the
   fifteenth round, or `peak_switches` and the wait clock only after a switch, as since),
   the two alternated in one process; microseconds a task.
2. The switch check (Linux): rounds of a schedstat read, a little work, a schedstat read and
   a `getrusage`; in a round with the process's context switches (`ru_nvcsw` +
   `ru_nivcsw`) the same as at the previous round's `getrusage`, the run-queue delay must not
   have moved between the two reads (the lane takes its wait as 0 there). Run it beside busy
   programs to see switches. Prints the counts; exit code 1 if the delay ever moved.
3. Schedstat's first field (the thread's CPU ns) against `thread_time` over about 1 ms of
   work a round: it moves by the scheduler's tick, not by the work, so it cannot time a task.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

from _common import load_average

from sudokubench.harness.noise import CpuWait
from sudokubench.harness.pool.memory import PeakMemory


def probe_costs(calls: int) -> None:
    """Print each probe's microseconds a call."""
    waited, memory = CpuWait(), PeakMemory()
    probes = {
        "CpuWait.seconds": waited.seconds,
        "PeakMemory.reset": memory.reset,
        "PeakMemory.peak": memory.peak,
        "PeakMemory.peak_switches": memory.peak_switches,
        "time.process_time": time.process_time,
        "time.thread_time": time.thread_time,
        "time.perf_counter": time.perf_counter,
    }
    for name, probe in probes.items():
        best = float("inf")
        for _ in range(3):
            cpu = time.process_time()
            for _ in range(calls):
                probe()
            best = min(best, time.process_time() - cpu)
        print(f"{name:26s} {best / calls * 1e6:6.3f} us a call")


def probe_sequences(tasks: int, rounds: int) -> None:
    """Print a lane task's probes, before and since the fifteenth round, alternated."""
    waited, memory = CpuWait(), PeakMemory()
    wait, peak, peak_switches, reset = (
        waited.seconds,
        memory.peak,
        memory.peak_switches,
        memory.reset,
    )
    perf_counter, process_time = time.perf_counter, time.process_time

    def before() -> None:
        for _ in range(tasks):
            reset()
            perf_counter(), perf_counter()
            wait(), process_time()
            perf_counter(), perf_counter()
            process_time(), wait(), peak()

    def since() -> None:
        switched = None
        for _ in range(tasks):
            reset()
            perf_counter(), perf_counter()
            wait_start, _ = wait(), process_time()
            perf_counter(), perf_counter()
            process_time()
            _, switches = peak_switches()
            if wait_start is None or switches is None or switches != switched:
                wait()
            switched = switches

    spent: dict[str, list[float]] = {"before": [], "since": []}
    for k in range(rounds):
        order = (("before", before), ("since", since))
        for name, sequence in order if k % 2 == 0 else order[::-1]:
            cpu = time.process_time()
            sequence()
            spent[name].append((time.process_time() - cpu) / tasks * 1e6)
    ratios = sorted(b / a for a, b in zip(spent["before"], spent["since"], strict=True))
    print(
        f"a lane task's probes: before {statistics.median(spent['before']):.2f} us, since "
        f"{statistics.median(spent['since']):.2f} us (medians of {rounds} rounds of {tasks}; "
        f"the pairs' ratio {statistics.median(ratios):.3f})"
    )


def _switches() -> int:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw + usage.ru_nivcsw


def switch_check(rounds: int) -> bool:
    """Print the rounds with and without a switch; False if the delay moved without one."""
    fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)

    def delay() -> int:
        return int(os.pread(fd, 128, 0).split()[1])

    still = moved_still = switched = moved_switched = 0
    last = _switches()
    for _ in range(rounds):
        start = delay()
        x = 0
        for j in range(150):  # (a little work, as a task's)
            x += j
        end = delay()
        now = _switches()
        if now == last:
            still += 1
            moved_still += start != end
        else:
            switched += 1
            moved_switched += start != end
        last = now
    os.close(fd)
    print(
        f"{rounds} rounds: {still} without a switch (the delay moved in {moved_still}), "
        f"{switched} with one (the delay moved in {moved_switched})"
    )
    return moved_still == 0


def schedstat_cpu(rounds: int) -> None:
    """Print schedstat's CPU field's steps against `thread_time`'s over ~1 ms of work."""
    fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    seen = int(os.pread(fd, 128, 0).split()[0])
    clock = time.thread_time_ns()
    for _ in range(rounds):
        x = 0
        for j in range(20000):
            x += j
        now, now_clock = int(os.pread(fd, 128, 0).split()[0]), time.thread_time_ns()
        step, clock_step = (now - seen) / 1e6, (now_clock - clock) / 1e6
        print(f"schedstat {step:6.3f} ms, thread_time {clock_step:6.3f} ms")
        seen, clock = now, now_clock
    os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200_000, help="calls a probe")
    parser.add_argument("--rounds", type=int, default=500_000, help="rounds of the switch check")
    opts = parser.parse_args()
    print(f"load average {load_average()}")
    probe_costs(opts.calls)
    probe_sequences(20_000, 20)
    ok = switch_check(opts.rounds)
    schedstat_cpu(10)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
