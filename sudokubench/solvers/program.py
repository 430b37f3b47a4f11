"""`ExecBackend`: the `exec:COMMAND` backend, a user's program in any language.

`ExecBackend(command)` runs the program once and keeps it running:
each `solve` writes the puzzle in line form (`.` for blanks, `A`-`Z` above 9) plus a newline to
its stdin and reads one line from its stdout: the solution in line form or numeric tokens, or
`0` / `none` for "no solution" (UNSATISFIABLE). The program must flush stdout after each line.

- Timeout: the parent waits on the pipe with a deadline; when it passes, the program (its whole
  process group) is killed and TIMEOUT returned; the next `solve` starts it again. Without a
  timeout it waits for the answer (the harness's own kill is then the limit).
- Errors: a program that exits, writes a line that is not a grid of the puzzle's size, writes
  an empty line, or writes more lines than it was asked for gives an ERROR result whose message
  quotes the output (and the end of its stderr when it exited); the program is restarted.
- Timing: `solve_s` runs from writing the puzzle to reading the answer; the program's start-up
  is outside it, but its first answer includes whatever the program does lazily (use warm-ups).
- Stats: none (the program's effort is not visible); a program finds one solution, so it can
  solve and say "none" but cannot count (`limit` above 1 still returns at most one solution).
- Size: its stderr (a file, so it never blocks) stops growing at `STDERR_BYTES` (16 MiB): the
  program's writes past it fail. An answer line may be at most `MAX_LINE` (64 KiB) long; a
  program that writes more without a newline is killed and the task is an ERROR (memory
  stays bounded).
- Memory: while it waits for an answer, the backend looks at the program's resident set (its
  process and every descendant) every `LOOK_S` seconds; `peak_bytes()` after a task is the
  most it saw, or the program's own high-water mark (VmHWM) when that rose during the task (a
  brief peak between two looks). With `memory_limit` (set by the harness from
  `--memory-limit`) a program over it is killed at the look that sees it and the task is an
  ERROR "memory limit: the program resided in ..."; the next task starts it again.
- Puzzles with conflicting givens are sent too: what a program says about them is checked.
- On Linux the program gets its own session (its process group is what a kill stops) and dies
  with the process that started it (`PR_SET_PDEATHSIG`), so a killed worker leaves no orphan.
  A harness worker is also a subreaper (`PR_SET_CHILD_SUBREAPER`): what a program detaches
  from its group (a double fork, `setsid`) becomes the worker's child, killed when the program
  is killed or restarted and when the worker ends.

Python objects named by `module:attr` or an entry point are `external.py`'s (`adapt`).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from typing import Any, ClassVar

from sudokubench.backend import BaseBackend, Deadline, SolveResult, Status, make_result
from sudokubench.formats import parse_grid
from sudokubench.grid import Grid
from sudokubench.processes import (
    die_with_parent,
    high_water_bytes,
    reap_orphans,
    tree_resident_bytes,
)

try:
    import resource
except ImportError:  # pragma: no cover - Windows (where no program gets `_child_setup`)
    resource = None  # type: ignore[assignment]

__all__ = ["MAX_LINE", "ExecBackend"]

#: Answer lines that mean "this puzzle has no solution".
NO_SOLUTION = frozenset({"0", "none"})
#: How much of a bad line or of stderr goes into a message.
QUOTE = 60
#: Most bytes of one answer line (a 25x25 grid in numeric tokens is under 2,000): a program
#: that writes more without a newline is killed and the task is an ERROR.
MAX_LINE = 65536
#: Most bytes of a program's stderr kept on disk (the limit of any file it writes: `ulimit -f`).
STDERR_BYTES = 16 * 2**20
#: Seconds between two looks at a working program's memory.
LOOK_S = 0.01


class _LineTooLong(Exception):
    """The program wrote more than `MAX_LINE` bytes without ending the line."""


class _OverMemory(Exception):
    """The program's process tree resided in more than the memory limit."""

    def __init__(self, resided: int) -> None:
        super().__init__(resided)
        self.resided = resided


def _child_setup() -> None:  # pragma: no cover - runs in the child between fork and exec
    """A session of its own (so its process group can be killed), death with its parent, and
    files (its stderr's among them) of at most `STDERR_BYTES`: past it a write fails (EFBIG,
    SIGXFSZ ignored) instead of filling the disk."""
    os.setsid()
    die_with_parent()
    if resource is None:
        return
    resource.setrlimit(resource.RLIMIT_FSIZE, (STDERR_BYTES, STDERR_BYTES))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


class ExecBackend(BaseBackend):
    """A user's program, one puzzle a line on stdin, one answer a line on stdout."""

    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True
    #: Every instance alive in this process (whose programs `_kill` spares).
    _instances: ClassVar[weakref.WeakSet[ExecBackend]] = weakref.WeakSet()

    def __init__(self, command: str) -> None:
        if not command.strip():
            raise ValueError("exec: needs a command, e.g. exec:'./solver'")
        self.command = command
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:  # e.g. an unbalanced quote
            raise ValueError(f"exec: cannot split {command!r} as a shell would: {exc}") from None
        if not self.argv or not self.argv[0]:
            raise ValueError("exec: needs a command, e.g. exec:'./solver'")
        self.name = f"exec:{command}"
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: Any = None
        self._pending = b""  # bytes read past the last answer line
        self._answers = 0  # lines read from the running program
        self._lock = threading.Lock()
        #: How many times the program was started (restarts after kills or crashes count).
        self.starts = 0
        #: Bytes the program's process tree may reside in (None: no limit).
        self.memory_limit: int | None = None
        self._peak = 0  # the most seen since `reset_peak`
        self._marked: tuple[int, int] = (0, 0)  # (pid, its VmHWM) at `reset_peak`
        ExecBackend._instances.add(self)

    def available(self) -> bool:
        """Whether the program exists and is an executable file."""
        return not self.unavailable_reason()

    def unavailable_reason(self) -> str:
        """Why `available()` is false: no such program, a folder, a file that is not
        executable; "" when it is available."""
        program = self.argv[0]
        if os.path.sep not in program:  # looked up on PATH, as a shell does
            return "" if shutil.which(program) else f"cannot find the program {program!r}"
        if os.path.isdir(program):
            return f"the program {program!r} is a folder"
        if not os.path.isfile(program):
            return f"cannot find the program {program!r}"
        if not os.access(program, os.X_OK):
            return f"the program {program!r} is not executable (chmod +x it)"
        return ""

    def version(self) -> str | None:
        """Unknown for a program."""
        return None

    # -- the child process ----------------------------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self.close()
            # A file, not a pipe: a chatty program cannot block on a full stderr pipe.
            self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close)
            linux = sys.platform.startswith("linux")
            self._process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
                preexec_fn=_child_setup if linux else None,
                start_new_session=not linux,
            )
            os.set_blocking(self._process.stdout.fileno(), False)  # type: ignore[union-attr]
            self._pending = b""
            self._answers = 0
            self.starts += 1
        return self._process

    def close(self) -> None:
        """Stop the program: close its stdin, then kill its process group if it lingers."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            process.stdin.close()  # type: ignore[union-attr]
        try:
            process.wait(0.5)
        except subprocess.TimeoutExpired:
            self._kill(process)
        self._close_streams(process)

    def _close_streams(self, process: subprocess.Popen[bytes]) -> None:
        for stream in (process.stdin, process.stdout, self._stderr):
            with contextlib.suppress(OSError, AttributeError):
                stream.close()  # type: ignore[union-attr]

    def __del__(self) -> None:
        # Not contextlib.suppress: at interpreter exit the module's globals may already be None.
        try:  # noqa: SIM105
            self.close()
        except Exception:
            pass

    @staticmethod
    def _kill(process: subprocess.Popen[bytes]) -> None:
        """Kill the program's process group, then (in a harness worker, a subreaper) whatever
        it detached from the group, sparing the other programs still running here."""
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            process.kill()
        process.wait()
        live = (b._process for b in list(ExecBackend._instances))
        reap_orphans(keep={p.pid for p in live if p is not None and p is not process})

    def _stderr_tail(self) -> str:
        try:
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - 4096))
            data = self._stderr.read()
        except (OSError, AttributeError):
            data = b""
        text = data.decode(errors="replace").strip().splitlines()
        return f"; stderr: {text[-1][:QUOTE]!r}" if text else ""

    def _read_line(self, process: subprocess.Popen[bytes], deadline: Deadline) -> bytes | None:
        """One line from the program, None when the deadline passed; EOFError if it exited."""
        stdout = process.stdout
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
            while b"\n" not in self._pending:
                remaining = deadline.remaining()
                if remaining == 0.0:
                    return None
                if not selector.select(LOOK_S if remaining is None else min(remaining, LOOK_S)):
                    self._look(process)
                    continue
                chunk = os.read(stdout.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    raise EOFError
                self._pending += chunk
                if b"\n" not in self._pending and len(self._pending) > MAX_LINE:
                    raise _LineTooLong
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    # -- solving ------------------------------------------------------------------------------

    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """Ask the program for the puzzle's solution; see the module docstring."""
        if not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive integer, got {limit!r}")
        with self._lock:
            return self._ask(puzzle, timeout)

    def _error(self, message: str) -> SolveResult:
        return SolveResult(self.name, Status.ERROR, message=message)

    def _ask(self, puzzle: Grid, timeout: float | None) -> SolveResult:
        try:
            process = self._start()
        except OSError as exc:
            return self._error(f"cannot start {self.command!r}: {exc}")
        extra = self._pending.strip() or self._drain(process)
        if extra:
            when = "more lines than it was asked for" if self._answers else "before any puzzle"
            self._restart()
            quoted = extra.decode(errors="replace").splitlines()[0][:QUOTE]
            return self._error(f"program wrote {when}: {quoted!r}")
        deadline = Deadline(timeout)
        start = time.perf_counter()
        try:
            process.stdin.write(f"{puzzle}\n".encode())  # type: ignore[union-attr]
            line = self._read_line(process, deadline)
        except _OverMemory as over:
            self._restart()
            return self._error(
                f"memory limit: the program resided in {_size(over.resided)}, over "
                f"{_size(self.memory_limit or 0)}; killed"
            )
        except _LineTooLong:
            quoted = self._pending[:QUOTE].decode(errors="replace")
            self._restart()
            return self._error(
                f"program wrote a line longer than {MAX_LINE} bytes ({quoted!r}...); killed"
            )
        except (EOFError, BrokenPipeError):
            try:
                process.wait(1.0)
                how = f"program exited ({process.returncode}) without answering"
            except subprocess.TimeoutExpired:  # alive, but it closed its stdout or stdin
                how = "program closed its input or output without answering; killed"
            tail = self._stderr_tail()
            self._restart()
            return self._error(f"{how}{tail}")
        solve_s = time.perf_counter() - start
        self._answers += line is not None
        if line is None:
            self._restart()
            message = f"no answer within {timeout:g} s; program killed (does it flush stdout?)"
            return make_result(self.name, [], finished=False, timed_out=True, message=message)
        text = line.decode(errors="replace").strip()
        if text.lower() in NO_SOLUTION:
            return make_result(self.name, [], finished=True, solve_s=solve_s)
        try:
            if not text:
                raise ValueError("an empty line")
            solution = parse_grid(text, puzzle.shape)
        except ValueError as exc:
            self._restart()
            return self._error(f"program answered {text[:QUOTE]!r}: {exc}")
        return make_result(self.name, [solution], finished=False, solve_s=solve_s)

    # -- memory -------------------------------------------------------------------------------

    def _look(self, process: subprocess.Popen[bytes]) -> None:
        """Note the program's resident set now; `_OverMemory` when it is over the limit."""
        resided = tree_resident_bytes(process.pid) or 0
        self._peak = max(self._peak, resided)
        if self.memory_limit is not None and resided > self.memory_limit:
            raise _OverMemory(resided)

    def reset_peak(self) -> None:
        """Start measuring the program's memory for one task (the harness calls it outside
        the timed region, before the call)."""
        self._peak = 0
        process = self._process
        pid = process.pid if process is not None and process.poll() is None else 0
        self._marked = (pid, (high_water_bytes(pid) or 0) if pid else 0)

    def peak_bytes(self) -> int | None:
        """The most the program's process tree resided in since `reset_peak` (module
        docstring); None when nothing was measured (no program ran, or no /proc)."""
        peak = self._peak
        process = self._process
        if process is not None and process.poll() is None:
            marked_pid, marked = self._marked
            mark = high_water_bytes(process.pid) or 0
            if mark > (marked if marked_pid == process.pid else 0):  # a peak of this task
                peak = max(peak, mark)
            peak = max(peak, tree_resident_bytes(process.pid) or 0)
        return peak or None

    def _drain(self, process: subprocess.Popen[bytes]) -> bytes:
        """Output the program wrote since its last answer (should be none)."""
        try:
            chunk = os.read(process.stdout.fileno(), 65536)  # type: ignore[union-attr]
        except BlockingIOError:
            return b""
        except OSError:
            return b""
        self._pending += chunk
        return self._pending.strip()

    def _restart(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            self._kill(process)
            self._close_streams(process)
        self._pending = b""


def _size(value: int) -> str:
    """Bytes to three figures: `612M`, `1.5G` (as `--memory-limit` takes them)."""
    from sudokubench.harness.pool.memory import format_size  # (the harness's own form)

    return format_size(value)
