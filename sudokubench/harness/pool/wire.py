"""What travels between `LocalPool` and its workers, and how.

Parent -> worker: a batch, a list of `Task`s as plain tuples (smaller and faster to pickle than
named ones), or None to stop, sent with `multiprocessing.connection.Connection.send` (one
pickle a message: the worker unpickles only what the parent chose). Worker -> parent:
("ready", task_id) once a task's backend is loaded (its clock starts then; ("load",
task_id) before a backend's load of a new shape, which `ready` ends), or a list of
outcomes in task order, each a plain tuple whose first field is the task id (`to_wire`) and
which `from_wire` names again (`take_outcomes` a message's at once). A worker of sudokubench's
own backends adds two fields after an outcome's own: its solutions and stats as the JSON text
the database stores, which the parent stores as they are (its own encoding of them was ~2.7 us
a task of the parent's CPU, which bounds a fast backend's run); a plug-in's lane sends none.
Such a worker sends what it held as one columnar message instead, ("rows", ...): the rows
ready for the INSERT and the tally's columns (`batch.py`), which `LocalPool.run_columns`
hands to `compare` as it came and `run_batches` as these outcomes.

The worker -> parent direction has two forms, chosen by the lane (`guard.trusted`):

- sudokubench's own backends: `Connection` pickles, the fastest form (their worker runs only
  sudokubench's code, so what it sends is what `to_wire` made);
- a plug-in's or program's lane (`PlainEnd` in the worker, `PlainReader` in the parent): one
  JSON line a message, at most `MESSAGE_BYTES`. Its worker runs the plug-in's code, which can
  write any bytes to the pipe; unpickling them could run code it chose in the parent (a
  `__reduce__` is a call), so the parent reads only data: JSON (strict: no NaN, bounded
  depth, every field of its type, `decode`), read without blocking (half a message never
  holds the parent) and at most `MESSAGE_BYTES` held (a huge one never takes its memory).
  Anything else is a `ProtocolError`, which costs the worker's lane its current task.

Roads not taken: `marshal` and a fixed `struct` carry only data too, but `marshal` is
documented as unsafe against crafted input, and a struct cannot hold the variable solutions
and stats without a format of our own; pickle with a restricted `Unpickler.find_class` still
runs the pickle machine on hostile bytes (and its memory is not bounded by the size).
"""

from __future__ import annotations

import json
import os
from collections import deque
from multiprocessing.connection import Connection
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.pool.task import Outcome, Task
from sudokubench.harness.store_write import solutions_json, stats_json

__all__ = [
    "MESSAGE_BYTES",
    "PlainEnd",
    "PlainReader",
    "ProtocolError",
    "Wire",
    "decode",
    "encode",
    "from_wire",
    "receive",
    "send",
    "stored_texts",
    "take_outcomes",
    "to_wire",
]

#: An outcome on the wire: (task_id, the outcome's fields after `task`, in their order).
Wire = tuple

#: Most bytes of one message from a plug-in's worker (an outcome bigger than this, e.g.
#: thousands of 25x25 solutions, is sent as an ERROR saying so).
MESSAGE_BYTES = 16 * 2**20
#: Bytes read from the pipe at a time.
_CHUNK = 2**20

_STATUSES = {s.value: s for s in Status}
#: `tuple.__new__`: an `Outcome` from its fields without the named tuple's `__new__` (a Python
#: function: a microsecond an outcome), its length checked first.
_new_tuple = tuple.__new__
_NUMBER = (int, float)
#: The type of each field of a wire outcome, in order (`Outcome`'s fields, the task as its id).
_FIELDS: tuple[Any, ...] = (
    int,  # task id
    str,  # status
    int,  # count
    bool,  # exhaustive
    list,  # solutions
    _NUMBER,  # encode_s
    _NUMBER,  # solve_s
    _NUMBER,  # wall_s
    dict,  # stats
    str,  # message
    bool,  # checked
    str,  # verdict
    (str, type(None)),  # problem
    str,  # host
    (int, type(None)),  # peak_memory_bytes
)
assert len(_FIELDS) == len(Outcome._fields) - 1  # (`texts` travels after them, or not)
_WIDTH = len(_FIELDS)


class ProtocolError(Exception):
    """What a worker sent is not a message of this protocol (says what it was)."""


def to_wire(outcome: Outcome, texts: bool = False) -> Wire:
    """The outcome as the worker sends it: the task as its id, the status as its value; with
    `texts` (a worker that runs only sudokubench's code, whose parent trusts what it sends),
    its solutions and stats after them as the JSON text the database stores (`stored_texts`),
    so that the parent stores them without encoding them (its CPU is a fast run's bound)."""
    wire = (outcome.task.task_id, outcome.status.value, *outcome[2:_WIDTH])
    if not texts:
        return wire
    made = outcome.texts or stored_texts(outcome)
    return wire if made is None else (*wire, *made)


def stored_texts(outcome: Outcome) -> tuple[str, str] | None:
    """(solutions, stats) of the outcome as `store_write.task_to_sql` stores them; None when
    its stats have no JSON text (a number that is not finite: the parent's own encoding then
    says so)."""
    try:
        return (
            solutions_json(outcome.solutions, outcome.problem is None),
            stats_json(outcome.stats),
        )
    except (TypeError, ValueError):
        return None


def from_wire(task: Task, wire: Wire) -> Outcome:
    """The outcome of `task` from what the worker sent (with or without its texts,
    `to_wire`); ProtocolError when it has another number of fields, names another task or a
    status that does not exist."""
    width = len(wire)
    if width == _WIDTH:
        texts = None
    elif width == _WIDTH + 2 and type(wire[_WIDTH]) is str and type(wire[_WIDTH + 1]) is str:
        texts = (wire[_WIDTH], wire[_WIDTH + 1])
    else:
        raise ProtocolError(f"an outcome of {width} fields, not {_WIDTH} (or {_WIDTH} and 2 texts)")
    if wire[0] != task.task_id:
        raise ProtocolError(f"an outcome for task {wire[0]!r} when task {task.task_id} was due")
    status = _STATUSES.get(wire[1])
    if status is None:
        raise ProtocolError(f"an outcome with status {str(wire[1])[:40]!r}")
    return _new_tuple(Outcome, (task, status, *wire[2:_WIDTH], texts))


def take_outcomes(tasks: deque[Task], message: list[Wire], into: list[Outcome]) -> None:
    """`from_wire` of each outcome of a worker's message against the tasks in flight, in
    order: each appended to `into` and its task taken off the front of `tasks`, in one loop
    (the usual outcome, with its texts or without them, made here without a call).
    ProtocolError at the first that is not an outcome of the task due, or when none is in
    flight: it and those after it stay in flight."""
    width = _WIDTH
    statuses = _STATUSES
    for wire in message:
        if not tasks:
            raise ProtocolError("an outcome when no task was in flight")
        task = tasks[0]
        size = len(wire)
        if (
            size == width + 2
            and wire[0] == task.task_id
            and type(text := wire[width]) is str
            and type(stats := wire[width + 1]) is str
            and (status := statuses.get(wire[1])) is not None
        ):
            into.append(_new_tuple(Outcome, (task, status, *wire[2:width], (text, stats))))
        elif (  # (a plug-in's lane: no texts)
            size == width
            and wire[0] == task.task_id
            and (status := statuses.get(wire[1])) is not None
        ):
            into.append(_new_tuple(Outcome, (task, status, *wire[2:], None)))
        else:  # (the other form, and every error, said as `from_wire` says it)
            into.append(from_wire(task, wire))
        tasks.popleft()


def send(conn: Connection | PlainEnd, message: Any) -> None:
    """Send one message (see the module docstring for the kinds)."""
    conn.send(message)


def receive(conn: Connection | PlainEnd) -> Any:
    """The next message; EOFError once the other end is closed."""
    return conn.recv()


def encode(message: Any) -> bytes:
    """A message as one JSON line (the worker's side of a plug-in's lane)."""
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode() + b"\n"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number here")


def decode(line: bytes) -> Any:
    """The message of one JSON line from a plug-in's worker: ("ready", task_id) or a list of
    wire outcomes with every field of its type; ProtocolError for anything else."""
    try:
        message = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # (UnicodeDecodeError is a ValueError)
        raise ProtocolError(f"bytes that are not a message ({type(exc).__name__})") from None
    if type(message) is not list or not message:
        raise ProtocolError(f"a message that is not a list ({type(message).__name__})")
    if message[0] in ("ready", "load"):
        if len(message) != 2 or type(message[1]) is not int:
            raise ProtocolError(f"a malformed {message[0]} message")
        return (message[0], message[1])
    for k, wire in enumerate(message):
        why = _malformed(wire)
        if why is not None:
            raise ProtocolError(f"a malformed outcome: {why}")
        message[k] = (*wire[:4], tuple(wire[4]), *wire[5:])
    return message


#: The types of a usual wire outcome's fields, as `json.loads` gives them (`_malformed`'s
#: quick path: one comparison instead of a check per field).
_USUAL = (
    int,
    str,
    int,
    bool,
    list,
    float,
    float,
    float,
    dict,
    str,
    bool,
    str,
    type(None),
    str,
    int,
)


def _malformed(wire: object) -> str | None:
    if type(wire) is list and tuple(map(type, wire)) == _USUAL:
        return None if all(type(s) is str for s in wire[4]) else "a solution that is not text"
    if type(wire) is not list or len(wire) != len(_FIELDS):
        return "not a list of the outcome's fields"
    for value, kind, name in zip(wire, _FIELDS, ("task", *Outcome._fields[1:_WIDTH]), strict=True):
        if not isinstance(value, kind) or (kind is int and type(value) is bool):
            return f"{name} is a {type(value).__name__}"
    if not all(type(s) is str for s in wire[4]):
        return "a solution that is not text"
    return None


def _too_large(wire: list[Any], size: int) -> list[Any]:
    """The ERROR sent instead of an outcome whose message would be `size` bytes."""
    message = f"the answer is too large to send ({size:,} bytes, at most {MESSAGE_BYTES:,})"
    error = Status.ERROR.value
    return [
        *(wire[0], error, 0, False, [], 0.0, 0.0, wire[7], {}, message, True, "?", None),
        *wire[13:],  # host, peak memory
    ]


class PlainEnd:
    """The worker's end of a plug-in's lane: `recv` the parent's pickles, `send` JSON lines."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._fd = conn.fileno()

    def recv(self) -> Any:
        """The parent's next message (EOFError once it closed its end)."""
        return self.conn.recv()

    def send(self, message: Any) -> None:
        """Send a message as one JSON line; outcomes that together would exceed
        `MESSAGE_BYTES` go one by one, and one too large alone as an ERROR saying so."""
        data = encode(message)
        if len(data) > MESSAGE_BYTES and type(message) is list:
            if len(message) > 1:
                for wire in message:
                    self.send([wire])
                return
            data = encode([_too_large(list(message[0]), len(data))])
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]


class PlainReader:
    """The parent's end of a plug-in's lane: reads JSON lines without blocking."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        #: Bytes read from the pipe so far (`WorkerHandle.fills`: the bytes a task's line).
        self.read = 0

    def messages(self, readable: Any) -> Any:
        """Yield the whole messages waiting (`readable()` says whether the pipe has bytes, so
        a read never blocks); ProtocolError for bytes that are not one, or a message over
        `MESSAGE_BYTES`; EOFError once the worker closed the pipe and all was yielded."""
        buffer, closed, got = self._buffer, False, 0
        while got <= MESSAGE_BYTES and readable():
            chunk = os.read(self._fd, _CHUNK)
            if not chunk:
                closed = True
                break
            got += len(chunk)
            self.read += len(chunk)
            buffer += chunk
            if len(buffer) > MESSAGE_BYTES and buffer.find(b"\n") < 0:
                break
        start = 0
        while (end := buffer.find(b"\n", start)) >= 0:
            if end - start > MESSAGE_BYTES:
                break
            message = decode(bytes(buffer[start:end]))
            start = end + 1
            yield message
        del buffer[:start]
        if len(buffer) > MESSAGE_BYTES:
            self._buffer = bytearray()
            raise ProtocolError(f"a message of more than {MESSAGE_BYTES:,} bytes")
        if closed:
            raise EOFError
