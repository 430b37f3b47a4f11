"""A worker's outcomes as one columnar message (`to_columns`), and the parent's `Batch` of it:
the rows ready for one INSERT and the columns the tally adds at once.

A worker of sudokubench's own backends (its outcomes checked where they were made, their
solutions and stats sent as the JSON the database stores: `wire.to_wire`'s texts) sends what
it held as one message, ("rows", values, cpus, waits, kinds, efforts):

- `values`: every outcome's task row as the tasks table stores it, after the run id, the rows
  one after the other in one flat list (`WIDTH` values a row, `TaskRow`'s order, as
  `store_write.task_to_sql` makes them: the status as its text, the flags as 1/0, the
  solutions and stats as their JSON text), the host `track.to_row` gives a local worker's
  outcome (this machine's);
- `cpus`, `waits`: each row's `cpu_s` and `cpu_wait_s` from its stats (None where absent), as
  the tally reads them;
- `kinds`, `efforts`: each row's `stats.effort_of`, its kind as a byte (its place in
  `stats.EFFORT_KEYS`, `NO_EFFORT` for none) and its value (NaN for none).

So the parent makes no `Outcome`, `TaskRow` or SQL tuple of a task: it checks the message's
task ids against the tasks in flight, makes an answer that came after the limit a TIMEOUT
(`stats.limited_status`, with `to_row`'s message; looked for a batch at a time), hands the
flat list to the writer (`TaskWriter.add_values`: the run id is in the statement) and the
columns to the tally (`Tally.add_columns`). Whatever is not the usual
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
#: A row's effort kind when it reports none (as a byte: `Column.effort_kind` reads it as -1).
NO_EFFORT = 255
_NAN = float("nan")


def to_columns(outcomes: Sequence[Outcome]) -> tuple[Any, ...] | None:
    """The worker's message of its checked outcomes in columns (the module docstring); None
    when one of them cannot go so (unchecked, or stats with no JSON text): the caller then
    sends them as `wire.to_wire` outcomes."""
    values: list[Any] = []
    cpus: list[float | None] = []
    waits: list[float | None] = []
    kinds = bytearray()
    efforts: list[float] = []
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
                task[0], task[1], task[2], task[4], task[5], task[6], task[7], status.value,
                count, 1 if exhaustive else 0, texts[0], encode_s, solve_s, wall_s, texts[1],
                message, verdict, 1 if problem is None else 0, problem, host or HOST, peak,
            )
        )  # fmt: skip
        cpu = stats.get(_CPU_KEY)
        cpus.append(None if cpu is None else float(cpu))
        wait = stats.get(_WAIT_KEY)
        waits.append(None if wait is None else float(wait))
        for kind, key in enumerate(EFFORT_KEYS):  # (`stats.effort_of`)
            if key in stats:
                kinds.append(kind)
                efforts.append(float(stats[key]))
                break
        else:
            kinds.append(NO_EFFORT)
            efforts.append(_NAN)
    return (KIND, values, cpus, waits, bytes(kinds), efforts)


class Batch:
    """A columnar message taken against the tasks in flight (`take_batch`): `tasks` its
    tasks, `values` their rows flat (`WIDTH` a row, as `track.to_row` and `task_to_sql` make
    them), `cpus`, `waits`, `kinds` and `efforts` the tally's columns (an effort's kind as
    its place in `stats.EFFORT_KEYS`, `NO_EFFORT` and NaN where a row reports none), and per
    batch: `ids` (the task ids), `statuses` (their texts), `host` (the host of every row,
    None when they differ) and `usual` (every answer sound and timed: solved or
    unsatisfiable within the limit, no problem). Without `strict`, an answer after the limit
    keeps the worker's status (`outcomes`, as `wire.from_wire` gives it; its `rows` are then
    not `to_row`'s)."""

    __slots__ = (
        "cpus", "efforts", "host", "ids", "kinds", "statuses", "tasks", "usual", "values",
        "waits",
    )  # fmt: skip

    def __init__(
        self,
        tasks: list[Task],
        values: list[Any],
        cpus: list[float | None],
        waits: list[float | None],
        kinds: bytes,
        efforts: list[float],
        strict: bool = True,
    ) -> None:
        self.tasks = tasks
        self.values = values
        self.cpus = cpus
        self.waits = waits
        self.kinds = kinds
        self.efforts = efforts
        self.ids: list[int] = values[_ID::WIDTH]
        n = len(self.ids)
        hosts = values[_HOST::WIDTH]
        self.host: str | None = hosts[0] if hosts.count(hosts[0]) == n else None
        statuses = values[_STATUS::WIDTH]
        walls = values[_WALL::WIDTH]
        timeouts = values[_TIMEOUT::WIDTH]
        # an answer after the limit: a TIMEOUT, as `to_row` makes it
        if strict and max(walls) > min(timeouts):
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
    as `track.to_row` makes it (else left as the worker sent it: `Batch.outcomes`).

    The row's task fields are the worker's copy of the task's (its lane is trusted: the
    parent unpickles what it sends); the ids are checked against the tasks due, in order."""
    if len(message) != 6 or [type(x) for x in message[1:]] != _TYPES:
        raise ProtocolError("a malformed columnar message")
    _, values, cpus, waits, kinds, efforts = message
    n = len(cpus)
    if not n or len(values) != n * WIDTH or not len(waits) == len(kinds) == len(efforts) == n:
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
    return Batch(taken, values, cpus, waits, kinds, efforts, strict)


_popleft = deque.popleft
_TASK_ID = itemgetter(0)
_TYPES = [list, list, list, bytes, list]
