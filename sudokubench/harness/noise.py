"""How quiet the machine was: load average and CPU frequency at the start and end of a run, the
CPU time the run got for its wall time, and the warning when other programs compete with it.

pyperf's lesson: a timing means little without the state of the machine it was taken on, so
it is recorded with the run (`machine["noise"]`) and the report says when it makes the numbers
unreliable. Everything here reads what the system offers (`os.getloadavg`, `/proc/cpuinfo`,
`/sys/devices/system/cpu/*/cpufreq`) and gives None where it cannot.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

__all__ = ["CpuWait", "cpu_mhz", "load_average", "load_warning", "snapshot"]


class CpuWait:
    """Seconds the calling thread has spent runnable but waiting for a CPU (the run-queue
    delay of /proc/thread-self/schedstat): time other programs took from it. Unlike wall
    time less CPU time, it does not count sleeping or waiting for a child or for I/O, so a
    backend that waits is not mistaken for a busy machine. About 2 us a read (a file kept
    open); `seconds` is None where the system does not keep it."""

    def __init__(self) -> None:
        self._fd: int | None = None
        with contextlib.suppress(OSError):
            self._fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)

    def seconds(self) -> float | None:
        """The thread's run-queue delay so far, or None."""
        if self._fd is None:
            return None
        try:
            return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            return None


def load_average() -> float | None:
    """The 1-minute load average, None where the platform has none."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def cpu_mhz() -> float | None:
    """The mean current frequency of the CPUs in MHz (/proc/cpuinfo, else cpufreq), or None."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        found = [float(line.split(":")[1]) for line in text.splitlines() if "cpu MHz" in line]
    except (OSError, ValueError, IndexError):
        found = []
    if not found:
        for path in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_cur_freq"):
            try:
                found.append(int(path.read_text()) / 1000)  # kHz
            except (OSError, ValueError):
                continue
    import statistics  # (here: the pool's fork server imports this module for `CpuWait`)

    return round(statistics.fmean(found), 1) if found else None


def snapshot() -> dict[str, Any]:
    """The machine now: 1-minute load, CPU MHz, and the process's CPU and wall clocks."""
    return {
        "load": load_average(),
        "cpu_mhz": cpu_mhz(),
        "cpu_s": time.process_time(),
        "clock_s": time.perf_counter(),
    }


def load_warning(load: float | None, cores: int | None, jobs: int) -> str | None:
    """The warning when the load of other programs exceeds the cores the workers leave free."""
    if load is None or not cores:
        return None
    free = max(cores - jobs, 0)
    if load <= free:
        return None
    return (
        f"timings unreliable: load {load:.1f} with {cores} cores and --jobs {jobs}: other "
        "programs compete with the workers for the CPU; compare timings only from a quiet "
        "machine, or measured side by side in one run"
    )
