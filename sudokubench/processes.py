"""Process helpers shared by the layers that start processes (the harness's workers, `exec:`
backends, forked children): a neutral low module, so no layer imports another's for them."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterable

__all__ = [
    "MAX_WORKERS",
    "become_subreaper",
    "children",
    "die_with_parent",
    "high_water_bytes",
    "kill_children",
    "kill_tree",
    "reap_orphans",
    "resident_bytes",
    "tree_resident_bytes",
]

#: Most worker processes a command starts (`compare --jobs`, `--cluster local:N`, `generate
#: --jobs`): each is a Python process (tens of MB, a few pipes), so thousands exhaust a
#: machine's memory or file descriptors before they measure anything.
MAX_WORKERS = 256


def die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this process when the process that started it dies.

    Used by the harness's workers and by `exec:` programs, so a `kill -9` of a run leaves no
    solver running on. Elsewhere (no prctl) it does nothing.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - an unusual libc
        pass


def become_subreaper() -> bool:
    """Linux: make this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER),
    so a program's child that detaches (double fork, `setsid`) stays within reach of
    `kill_children`. Whether it worked."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ok = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):  # pragma: no cover - an unusual libc
        return False
    global _REAPER
    _REAPER = _REAPER or ok
    return ok


#: Whether this process made itself a subreaper (only such a process reaps in `reap_orphans`).
_REAPER = False


def reap_orphans(keep: Iterable[int] = ()) -> int:
    """`kill_children(keep)` in a process that called `become_subreaper` (a harness worker),
    else nothing: in a user's own process, its other children are none of our business."""
    return kill_children(keep) if _REAPER else 0


def children(pid: int | str = "self") -> list[int]:
    """Linux: the pids of a process's children (its adopted orphans included); this process's
    by default. Empty where /proc cannot tell (another system, or the process is gone)."""
    pids: list[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for tid in threads:  # a thread that ends meanwhile takes only its own list away
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as file:
                pids.extend(int(child) for child in file.read().split())
        except (OSError, ValueError):
            continue
    return pids


def kill_tree(pid: int) -> int:
    """Linux: SIGKILL every descendant of process `pid` (not `pid` itself), with the process
    groups they lead; how many were found.

    For a process that reaps its orphans (`become_subreaper`, as the harness's workers do), a
    descendant whose parent dies is adopted by it, so scanning again until none is left also
    finds what double-forked or called `setsid` meanwhile. Call it just before killing the
    process itself: once that is gone, its descendants would be adopted by init, out of reach.
    The killed processes are reaped by their parent (or, once it is gone, by init).
    """
    killed: set[int] = set()
    for _ in range(100):
        found = _descendants(pid) - killed
        if not found:
            break
        for child in found:
            _kill(child)
        killed |= found
    # A SIGKILL takes effect when its process next runs: on a busy machine that can be later
    # than our return. Wait (briefly) until each is dead, so the caller can count on it.
    deadline = time.monotonic() + 2.0
    while any(not _zombie(child) for child in killed) and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(killed)


def _descendants(pid: int) -> set[int]:
    """The living descendants of `pid` that /proc shows (zombies left out: they are dead)."""
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children(stack.pop()):
            if child not in found and not _zombie(child):
                found.add(child)
                stack.append(child)
    return found


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes(pid: int) -> int | None:
    """Linux: the resident set of process `pid` now (/proc/PID/statm), bytes; None where it
    cannot be read (no /proc, or the process ended)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as file:
            return int(file.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def tree_resident_bytes(pid: int) -> int | None:
    """Linux: the resident set of process `pid` and its living descendants now, bytes (pages
    shared between them counted in each); None where /proc cannot tell."""
    sizes = [resident_bytes(member) for member in (pid, *_descendants(pid))]
    found = [size for size in sizes if size is not None]  # (a member may have ended meanwhile)
    return sum(found) if found else None


def high_water_bytes(pid: int | str) -> int | None:
    """Linux: the most process `pid` (or "self") has resided in since it started or since its
    peak was reset (VmHWM), bytes; None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/status", "rb") as file:
            for line in file:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rpartition(b")")[2].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # gone


def kill_children(keep: Iterable[int] = ()) -> int:
    """SIGKILL every child of this process but `keep` (with its process group when it leads
    one) and reap it; how many. With `become_subreaper`, detached descendants are children."""
    spared = set(keep)
    killed = 0
    for _ in range(100):  # a killed child's own children are ours next: again until none
        found = [pid for pid in children() if pid not in spared]
        if not found:
            break
        killed += _kill_all(found)
    return killed


def _kill(pid: int) -> None:
    """SIGKILL a process, and its process group when it leads one."""
    with contextlib.suppress(OSError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def _kill_all(pids: list[int]) -> int:
    killed = 0
    for pid in pids:
        _kill(pid)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
        killed += 1
    return killed
