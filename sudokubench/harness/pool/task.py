"""The records an executor takes and gives back: `Task` in, `Outcome` out, and the `Executor`
protocol every pool (local processes, a dask cluster) implements."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple, Protocol

from sudokubench.backend import Status

__all__ = [
    "CPU_KEY",
    "WAIT_KEY",
    "Executor",
    "Outcome",
    "Task",
    "default_grace",
    "failed",
    "one_by_one",
]

#: The stats key of the worker's CPU time during the timed region (measured by the harness, so
#: the report can set it against the wall time: a worker starved of CPU shows a low ratio).
CPU_KEY = "cpu_s"

#: The stats key of the seconds the worker waited for a CPU during the timed call (the
#: run-queue delay, `noise.CpuWait`): time that other programs took from the task.
WAIT_KEY = "cpu_wait_s"


class Task(NamedTuple):
    """One backend run on one puzzle (a named tuple: the harness makes one per run and puzzle,
    and it travels to a worker as a plain tuple)."""

    task_id: int  # unique within a run and stable across --resume
    puzzle_id: str  # "file:line"
    puzzle: str  # the puzzle in line form (digits > 9 as letters); shape inferred
    box: str | None  # "RxC" when the shape must be forced, else None
    backend: str  # any name get_backend() resolves (registry, module:attr, exec:CMD)
    limit: int
    timeout: float  # seconds; the backend gets timeout=this, the worker dies at timeout + grace
    sample: int  # 0..repeat-1 for measured samples; negative for warm-up runs


class Outcome(NamedTuple):
    """What came back for one task: the backend's answer and, when `checked`, the harness's
    check of it (`verify.check_answer`, run in the worker right after the timed call)."""

    task: Task
    status: Status
    count: int
    exhaustive: bool
    solutions: tuple[str, ...]  # line strings: canonical when checked and sound, else as returned
    encode_s: float
    solve_s: float
    wall_s: float  # perf_counter in the worker around the timed region (`backend.timed_call`)
    stats: Mapping[str, int | float] = MappingProxyType({})
    message: str = ""  # why, for timeout/error
    checked: bool = False  # whether `verdict` and `problem` below are the harness's check
    verdict: str = "?"  # the answer's verdict: "0", "=n", ">=n" or "?"
    problem: str | None = None  # what is wrong with the answer on its own; None when sound
    host: str = ""  # the machine that ran it, when not this one (a cluster's worker)
    peak_memory_bytes: int | None = None  # the worker's peak resident set in the timed call
    #: (solutions, stats) as the JSON text the database stores (`store_write`), made by a
    #: worker of sudokubench's own when it sends the outcome (`wire.to_wire`), so that the
    #: parent stores them as they are; None where the parent makes them itself.
    texts: tuple[str, str] | None = None


class Executor(Protocol):
    """Runs tasks somewhere and streams their outcomes back in completion order."""

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Yield one Outcome per task, as each finishes (checked with `run_task`'s check, or
        unchecked, `checked=False`, for `compare` to check)."""
        ...

    def run_batches(self, tasks: Iterable[Task]) -> Iterator[list[Outcome]]:
        """`run`'s outcomes as lists, as they arrive together (a worker's message, a dask
        batch): what `compare` stores and tallies a list at a time. `one_by_one` makes it
        from `run` for an executor whose outcomes come singly."""
        ...

    def prepare(self, backends: Sequence[str]) -> list[dict[str, Any]]:
        """Before the first task: where the tasks will run, one dict per worker (`probe.py`'s
        `worker_info`: host, CPU count, Python, the backends' versions); raises an InputError
        naming the workers that cannot run one of `backends`."""
        ...

    def close(self) -> None:
        """Release the workers."""
        ...


def default_grace(timeout: float) -> float:
    """Seconds past its timeout a task may run before its worker is killed: 0.5 s + 10%."""
    return 0.5 + 0.1 * timeout


def failed(task: Task, status: Status, message: str, wall_s: float = 0.0) -> Outcome:
    """An outcome with no answer (timeout or error): nothing to check, verdict `?`."""
    return Outcome(task, status, 0, False, (), 0.0, 0.0, wall_s, {}, message, True, "?", None)


def one_by_one(outcomes: Iterable[Outcome]) -> Iterator[list[Outcome]]:
    """`Executor.run_batches` of an executor whose outcomes come singly: lists of one."""
    for outcome in outcomes:
        yield [outcome]
