"""A task's peak memory, measured in its worker, and the parent's cap on a worker's memory.

Peak: the high-water mark of the worker's resident set (VmHWM) is reset just before a task's
timed call (Linux: "5" written to /proc/self/clear_refs) and read just after it, so the value
is the most the worker held during that task: the interpreter and loaded solvers plus what
the task itself touched. It is read with `getrusage` (its `ru_maxrss` follows the same mark in
a forked worker: ~1 us) instead of parsing /proc/self/status (~50 us on a loaded 2-core VM),
and the reset is one write to a file kept open (~1 us); both run outside the timed region.
Where the mark cannot be reset (not Linux, or /proc not writable) nothing is measured: the
value is None, never a number that means something else. A program run by an `exec:` backend
is a child process: its task's value is the program's process tree's, measured by the
backend (`ExecBackend.peak_bytes`), which the worker also holds to the limit.

Cap: `resident_bytes(pid)` is what the parent reads (every few milliseconds) to kill a worker
whose resident set is over `--memory-limit`; `parse_size` reads the option's `1G`/`512M`.
"""

from __future__ import annotations

import contextlib
import os
import re

from sudokubench.processes import high_water_bytes, resident_bytes

try:
    import resource
except ImportError:  # pragma: no cover - not a Unix: nothing is measured
    resource = None  # type: ignore[assignment]

__all__ = ["PeakMemory", "default_memory_limit", "format_size", "parse_size", "resident_bytes"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?", re.IGNORECASE)
#: The smallest limit accepted: a worker (Python, sudokubench) resides in ~40 MB before it
#: loads a solver.
SMALLEST = 64 * 2**20


class PeakMemory:
    """The worker's resident-set high-water mark, reset before a task and read after it."""

    def __init__(self) -> None:
        self._fd: int | None = None
        self._status = False  # read VmHWM from /proc/self/status instead of getrusage
        if resource is None:
            return
        with contextlib.suppress(OSError):
            self._fd = os.open("/proc/self/clear_refs", os.O_WRONLY)
        self.reset()
        # `ru_maxrss` also keeps the peak of the process's exited threads' and of an exec;
        # where it did not follow the reset, the slower VmHWM is read.
        now = resident_bytes(os.getpid())
        seen = self.peak()
        self._status = now is None or seen is None or seen > now + 16 * 2**20

    def reset(self) -> None:
        """Start a new high-water mark at the resident set now."""
        if self._fd is not None:
            try:
                os.write(self._fd, b"5")
            except OSError:
                self.forget()

    def forget(self) -> None:
        """The mark can no longer be reset (a write failed): nothing is measured from now on."""
        self._fd = None

    def peak(self) -> int | None:
        """Bytes: the most the process resided in since `reset`; None where not measured."""
        if self._fd is None:
            return None
        if not self._status:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return high_water_bytes("self")

    def peak_switches(self) -> tuple[int | None, int | None]:
        """`peak` and, from the same `getrusage`, the context switches of the process's
        threads so far (`ru_nvcsw` + `ru_nivcsw`: never fewer from one read to the next);
        the switches None where the peak is not read by `getrusage`."""
        if self._fd is None:
            return None, None
        if not self._status:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            return usage.ru_maxrss * 1024, usage.ru_nvcsw + usage.ru_nivcsw
        return high_water_bytes("self"), None


def parse_size(text: str) -> int:
    """Bytes of a size such as `1G`, `512M`, `1.5g`, `800MB` or `1048576`; ValueError saying
    what is accepted for anything else, or a size under `SMALLEST`."""
    found = _SIZE.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"{text!r} is not a size: write e.g. 1G, 512M or 800000000 (bytes)")
    value = int(float(found[1]) * _UNITS[found[2].upper()])
    if value < SMALLEST:
        raise ValueError(f"{text!r} is too small: a worker needs at least 64M")
    return value


def format_size(value: int) -> str:
    """Bytes as `parse_size` reads them, to three figures: `612M`, `1.5G`, `900K`."""
    for unit in "TGMK":
        if value >= _UNITS[unit]:
            return f"{value / _UNITS[unit]:.3g}{unit}"
    return f"{value}B"


def default_memory_limit(jobs: int) -> int | None:
    """Three quarters of this machine's memory shared among `jobs` workers; None where the
    machine's memory cannot be read."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * _PAGE
    except (AttributeError, ValueError, OSError):
        return None
    return max(SMALLEST, total * 3 // 4 // max(1, jobs))
