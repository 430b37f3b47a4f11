"""What travels between `LocalPool` and its workers, and how.

Both directions use `multiprocessing.connection.Connection.send`/`recv` (public API: one
pickle a message). Parent -> worker: a batch, a list of `Task`s as plain tuples (smaller and
faster to pickle than named ones), or None to stop. Worker -> parent: ("ready", task_id) once a
task's backend is loaded (its clock starts then), or a list of outcomes in task order, each a
plain tuple whose first field is the task id (`to_wire`) and which `from_wire` names again.
"""

from __future__ import annotations

from multiprocessing.connection import Connection
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.pool.task import Outcome, Task

__all__ = ["Wire", "from_wire", "receive", "send", "to_wire"]

#: An outcome on the wire: (task_id, the outcome's fields after `task`, in their order).
Wire = tuple

_STATUSES = {s.value: s for s in Status}


def to_wire(outcome: Outcome) -> Wire:
    """The outcome as the worker sends it: the task as its id, the status as its value."""
    return (outcome.task.task_id, outcome.status.value, *outcome[2:])


def from_wire(task: Task, wire: Wire) -> Outcome:
    """The outcome of `task` from what the worker sent (`wire[0]` must be its id)."""
    if wire[0] != task.task_id:  # pragma: no cover - a protocol bug
        raise RuntimeError(f"worker answered task {wire[0]}, expected {task}")
    return Outcome(task, _STATUSES[wire[1]], *wire[2:])


def send(conn: Connection, message: Any) -> None:
    """Send one message (see the module docstring for the kinds)."""
    conn.send(message)


def receive(conn: Connection) -> Any:
    """The next message; EOFError once the other end is closed."""
    return conn.recv()
