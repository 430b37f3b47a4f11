"""A worker's outcomes as one columnar message (`to_columns`), and the parent's `Batch` of it:
the rows ready for one INSERT and the columns the tally adds at once.

A worker of sudokubench's own backends (its outcomes checked where they were made, their
solutions and stats sent as the JSON the database stores: `wire.to_wire`'s texts) sends what
it held as one message, ("rows", values, cpus, waits, efforts):

- `values`: every outcome's task row as the tasks table stores it, after the run id, the rows
  one after the other in one flat list (`WIDTH` values a row, `TaskRow`'s order, as
  `store_write.task_to_sql` makes them: the status as its text, the flags as 1/0, the
  solutions and stats as their JSON text), the task's own fields but its id left None (the
  parent sets them from its tasks, a column at a time);
- `cpus`, `waits`: each row's `cpu_s` and `cpu_wait_s` from its stats (None where absent), as
  the tally reads them;
- `efforts`: each row's `stats.effort_of`.

So the parent makes no `Outcome`, `TaskRow` or SQL tuple of a task: it checks the message
against the tasks in flight, sets the two values only it knows (the host, which a local
worker leaves empty, and whether an answer came after the limit, `stats.limited_status`) a
batch at a time, hands the flat list to the writer (`TaskWriter.add_values`: the run id is in
the statement) and the columns to the tally (`Tally.add_columns`). Whatever is not the usual
case (a run of several tasks a puzzle, an answer not sound, an error, a timeout, an answer of
the input's to meet) makes its `TaskRow`s (`Batch.rows`) and goes the rows' way; an executor's
caller that wants outcomes gets them back (`Batch.outcomes`), equal to what `wire.from_wire`
made of the same outcomes sent one by one.

Only a worker whose parent trusts its pickles sends this form (a plug-in's lane sends JSON
lines, `wire.PlainEnd`, never this).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.pool.probe import HOST
from sudokubench.harness.pool.task import Outcome, Task
from sudokubench.harness.pool.wire import ProtocolError, stored_texts
from sudokubench.harness.records import TaskRow
from sudokubench.harness.stats import EFFORT_KEYS, FINISHED

__all__ = ["KIND", "WIDTH", "Batch", "take_batch", "to_columns"]

#: The first field of a columnar message.
KIND = "rows"
#: Values of a row in `Batch.values`: `TaskRow`'s fields (the tasks table's columns after
#: the run id).
WIDTH = len(TaskRow._fields)
# The places of the fields the parent reads in a row.
_ID, _TIMEOUT, _STATUS, _MESSAGE, _WALL, _VALID, _HOST = (
    TaskRow._fields.index(name)
    for name in ("task_id", "timeout", "status", "message", "wall_s", "valid", "host")
)
_STATUSES = {s.value: s for s in Status}
_FINISHED_TEXTS = frozenset(s.value for s in FINISHED)
_new_tuple = tuple.__new__

#: The stats keys of the worker's CPU time and CPU wait (`worker.CPU_KEY`, `WAIT_KEY`).
_CPU_KEY, _WAIT_KEY = "cpu_s", "cpu_wait_s"


def to_columns(outcomes: Sequence[Outcome]) -> tuple[Any, ...] | None:
    """The worker's message of its checked outcomes in columns (the module docstring); None
    when one of them cannot go so (unchecked, or stats with no JSON text): the caller then
    sends them as `wire.to_wire` outcomes."""
    values: list[Any] = []
    cpus: list[float | None] = []
    waits: list[float | None] = []
    efforts: list[tuple[str, float] | None] = []
    add = values.extend
    for outcome in outcomes:
        if not outcome.checked:
            return None
        texts = outcome.texts or stored_texts(outcome)
        if texts is None:
            return None
        (
            task, status, count, exhaustive, _solutions, encode_s, solve_s, wall_s, stats,
            message, _checked, verdict, problem, host, peak, _texts,
        ) = outcome  # fmt: skip
        add(
            (
                task[0], None, None, None, None, None, None, status.value,
                count, 1 if exhaustive else 0, texts[0], encode_s, solve_s, wall_s, texts[1],
                message, verdict, 1 if problem is None else 0, problem, host, peak,
            )
        )  # fmt: skip
        cpu = stats.get(_CPU_KEY)
        cpus.append(None if cpu is None else float(cpu))
        wait = stats.get(_WAIT_KEY)
        waits.append(None if wait is None else float(wait))
        effort = None
        for key in EFFORT_KEYS:  # (`stats.effort_of`)
            if key in stats:
                effort = (key, float(stats[key]))
                break
        efforts.append(effort)
    return (KIND, values, cpus, waits, efforts)


class Batch:
    """A columnar message taken against the tasks in flight (`take_batch`): `tasks` its
    tasks, `values` their rows flat (`WIDTH` a row, the host and the limit already set as
    `track.to_row` sets them), `cpus`, `waits`, `efforts` the tally's columns, and per batch:
    `ids` (the task ids), `statuses` (their texts) and `usual` (every answer sound and
    timed: solved or unsatisfiable within the limit, no problem). Without `strict`, an answer
    after the limit keeps the worker's status (`outcomes`, as `wire.from_wire` gives it; its
    `rows` are then not `to_row`'s)."""

    __slots__ = ("cpus", "efforts", "ids", "statuses", "tasks", "usual", "values", "waits")

    def __init__(
        self,
        tasks: list[Task],
        values: list[Any],
        cpus: list[float | None],
        waits: list[float | None],
        efforts: list[tuple[str, float] | None],
        strict: bool = True,
    ) -> None:
        self.tasks = tasks
        self.values = values
        self.cpus = cpus
        self.waits = waits
        self.efforts = efforts
        self.ids: list[int] = values[_ID::WIDTH]
        n = len(self.ids)
        hosts = values[_HOST::WIDTH]
        if any(hosts):  # (a local worker's rows name no host: this machine's, as `to_row`)
            values[_HOST::WIDTH] = [h or HOST for h in hosts]
        else:
            values[_HOST::WIDTH] = [HOST] * n
        statuses = values[_STATUS::WIDTH]
        walls = values[_WALL::WIDTH]
        timeouts = values[_TIMEOUT::WIDTH]
        # an answer after the limit: a TIMEOUT, as `to_row` makes it
        if strict and n and max(walls) > min(timeouts):
            for k, (status, wall, timeout) in enumerate(
                zip(statuses, walls, timeouts, strict=True)
            ):
                if status in _FINISHED_TEXTS and wall > timeout:
                    statuses[k] = values[k * WIDTH + _STATUS] = Status.TIMEOUT.value
                    message = f"answered after {wall:.3g} s, over the {timeout:g} s limit"
                    values[k * WIDTH + _MESSAGE] = message
        self.statuses: list[str] = statuses
        self.usual = _FINISHED_TEXTS.issuperset(statuses) and all(values[_VALID::WIDTH])

    def __len__(self) -> int:
        return len(self.ids)

    def rows(self) -> list[TaskRow]:
        """The batch's `TaskRow`s, as `track.to_row` makes them of the same outcomes."""
        values = self.values
        statuses = _STATUSES
        loads = json.loads
        made = []
        for k in range(0, len(values), WIDTH):
            row = values[k : k + WIDTH]
            row[7] = statuses[row[7]]
            row[9] = row[9] == 1
            row[10] = tuple(loads(row[10]))
            row[14] = loads(row[14])
            row[17] = row[17] == 1
            made.append(_new_tuple(TaskRow, row))
        return made

    def texts(self) -> list[tuple[str, str]]:
        """Each row's solutions and stats as the JSON text stored."""
        values = self.values
        return list(zip(values[10::WIDTH], values[14::WIDTH], strict=True))

    def outcomes(self) -> list[Outcome]:
        """The batch's outcomes, as `wire.from_wire` makes them of the same outcomes sent one
        by one with their texts (the host as the worker sent it: empty for this machine)."""
        made = []
        for task, row, texts in zip(self.tasks, self.rows(), self.texts(), strict=True):
            host = "" if row[_HOST] == HOST else row[_HOST]
            # (`Outcome`'s fields: the row's status to message, the check, its host, peak)
            fields = (task, *row[7:16], True, row[16], row[18], host, row[20], texts)
            made.append(_new_tuple(Outcome, fields))
        return made


def take_batch(tasks: Any, message: tuple[Any, ...], strict: bool = True) -> Batch:
    """The `Batch` of a columnar message against the tasks in flight (a deque, in order),
    its tasks taken off their front; ProtocolError (nothing taken) when it is not one of
    their outcomes in order. `strict`: an answer after the limit made a TIMEOUT in its row,
    as `track.to_row` makes it (else left as the worker sent it: `Batch.outcomes`)."""
    if len(message) != 5 or not all(type(x) is list for x in message[1:]):
        raise ProtocolError("a malformed columnar message")
    _, values, cpus, waits, efforts = message
    n = len(cpus)
    if not n or len(values) != n * WIDTH or len(waits) != n or len(efforts) != n:
        raise ProtocolError("a columnar message whose columns differ in length")
    if n > len(tasks):
        raise ProtocolError(f"{n} outcomes when {len(tasks)} tasks were in flight")
    taken = list(map(_popleft, repeat(tasks, n)))  # (taken off in one call, put back below)
    if values[_ID::WIDTH] != list(map(_TASK_ID, taken)):
        tasks.extendleft(reversed(taken))
        raise ProtocolError("a columnar message whose tasks are not those due")
    if not _STATUSES.keys() >= set(values[_STATUS::WIDTH]):
        tasks.extendleft(reversed(taken))
        raise ProtocolError("a columnar message with a status that does not exist")
    # the task's own fields, as `to_row` takes them: from the parent's task (the worker
    # sends None in their places), a column at a time
    for field in range(1, 7):
        values[field::WIDTH] = list(map(_FIELDS[field], taken))
    return Batch(taken, values, cpus, waits, efforts, strict)


_popleft = deque.popleft
_TASK_ID = itemgetter(0)
#: A row's fields 1-6 (puzzle id, puzzle, backend, limit, timeout, sample) from its `Task`.
_FIELDS = {k: itemgetter(place) for k, place in zip(range(1, 7), (1, 2, 4, 5, 6, 7), strict=True)}
