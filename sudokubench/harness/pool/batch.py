"""A worker's outcomes as one columnar message (`to_columns`), and the parent's `Batch` of it:
the rows ready for one INSERT and the columns the tally adds at once.

A worker of sudokubench's own backends (its outcomes checked where they were made, their
solutions and stats sent as the JSON the database stores: `wire.to_wire`'s texts) sends what
it held as one message, ("rows", ids, columns, kinds, solutions, stats):

- `ids`: the rows' task ids as bytes (`array("q")`), in order: the parent checks them against
  the tasks it has in flight and takes every task field of a row (its id, puzzle's id and
  line, backend, limit, timeout, sample) from its own task, so the worker sends none of them;
- `columns`: a tuple of the row's other fields as the tasks table stores them (`COLUMNS`:
  the status as its text, count, the exhaustive flag as 1/0, the three times, message,
  verdict, the valid flag as 1/0, problem, host, peak), then the tally's three: each row's
  `cpu_s` and `cpu_wait_s` from its stats (None where absent) and its `stats.effort_of`
  value (NaN for none). Each is one of four forms (`_column`): bytes, the rows' values when
  all are floats, as `array("d")` (every float's bits); one value that is not a list, bytes
  nor an array, when every row has it (the same type and equal: the status, count, flags,
  message, verdict, problem, host and often the peak of a usual batch); an `array("q")`,
  the rows' values when all are ints within 64 bits (not all one); else a list of them;
- `kinds`: each row's effort kind as a byte (its place in `stats.EFFORT_KEYS`, `NO_EFFORT`
  for none);
- `solutions`, `stats`: lists of each row's solutions and stats as their JSON text (made
  for the batch at once, split from one text: the parent unpickles them as they are, which
  costs it less than splitting one text itself).

So a batch's message is a handful of objects and the two texts a row: the parent fills the
flat rows by slices. It makes no
`Outcome`, `TaskRow` or SQL tuple of a task: it checks the message's task ids against the
tasks in flight, makes an answer that came after the limit a TIMEOUT
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
import math
import struct
from array import array
from collections import deque
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, compress, repeat
from json.encoder import encode_basestring_ascii
from operator import is_, itemgetter, le, mul, not_, truediv, truth
from types import MappingProxyType
from typing import Any

from sudokubench.backend import SolveResult, Status
from sudokubench.grid import _LINE_BYTES, Grid, valid_lines
from sudokubench.harness.pool.guard import MESSAGE_CHARS, STAT_KEY_CHARS, STATS_ENTRIES, trusted
from sudokubench.harness.pool.probe import HOST
from sudokubench.harness.pool.task import Outcome, Task
from sudokubench.harness.pool.wire import ProtocolError, stored_texts
from sudokubench.harness.records import TaskRow
from sudokubench.harness.stats import EFFORT_KEYS, FINISHED
from sudokubench.harness.verify import verdict_of

__all__ = [
    "COLUMNS",
    "KIND",
    "LANE_KEYS",
    "WIDTH",
    "Batch",
    "lane_columns",
    "solved_columns",
    "take_batch",
    "to_columns",
]

#: The first field of a columnar message.
KIND = "rows"
#: Values of a row in `Batch.values`: `TaskRow`'s fields (the tasks table's columns after
#: the run id).
WIDTH = len(TaskRow._fields)
#: The row's fields a message sends as its columns, in order (the rest are the task's, which
#: the parent has, and the two texts), then the tally's three (`cpu_s`, `cpu_wait_s`, effort).
COLUMNS = (
    "status", "count", "exhaustive", "encode_s", "solve_s", "wall_s", "message", "verdict",
    "valid", "problem", "host", "peak_memory_bytes",
)  # fmt: skip
# The places of the fields the parent reads in a row.
_ID, _TIMEOUT, _STATUS, _MESSAGE, _WALL, _VALID, _HOST = (
    TaskRow._fields.index(name)
    for name in ("task_id", "timeout", "status", "message", "wall_s", "valid", "host")
)
_STATUSES = {s.value: s for s in Status}
#: The places in a row of the fields a message sends as its columns (`COLUMNS`, in order).
_SENT = tuple(map(TaskRow._fields.index, COLUMNS))
_FINISHED_TEXTS = frozenset(s.value for s in FINISHED)
_new_tuple = tuple.__new__

#: The stats keys of the worker's CPU time and CPU wait (`worker.CPU_KEY`, `WAIT_KEY`).
_CPU_KEY, _WAIT_KEY = "cpu_s", "cpu_wait_s"
#: A row's effort kind when it reports none (as a byte: `Column.effort_kind` reads it as -1).
NO_EFFORT = 255
_NAN = float("nan")


def to_columns(outcomes: Sequence[Outcome]) -> tuple[Any, ...] | None:
    """The worker's message of its checked outcomes in columns (the module docstring); None
    when one of them cannot go so (unchecked, stats with no JSON text, a task id past 64 bits):
    the caller then sends them as `wire.to_wire` outcomes."""
    rows: list[tuple[Any, ...]] = []
    ids: list[int] = []
    solutions: list[str] = []
    stats_texts: list[str] = []
    cpus: list[float | None] = []
    waits: list[float | None] = []
    kinds = bytearray()
    efforts: list[float] = []
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
        ids.append(task[0])
        solutions.append(texts[0])
        stats_texts.append(texts[1])
        rows.append(
            (
                status.value, count, 1 if exhaustive else 0, encode_s, solve_s, wall_s, message,
                verdict, 1 if problem is None else 0, problem, host or HOST, peak,
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
    if not rows:
        return None
    try:
        id_bytes = _ints_bytes(ids)
    except struct.error:  # (an id past 64 bits, or not an int)
        return None
    columns = (
        *map(_column, map(list, zip(*rows, strict=True))),
        *map(_column, (cpus, waits, efforts)),
    )
    return (KIND, id_bytes, columns, bytes(kinds), solutions, stats_texts)


def _column(values: list[Any]) -> Any:
    """A column of the message in its form (the module docstring): the floats' bytes, the
    one value of every row, or the list."""
    types = set(map(type, values))
    if types == _FLOAT:
        return _floats(values)
    first = values[0]
    if len(types) == 1 and values.count(first) == len(values) and type(first) not in _FORMS:
        return first
    if types == _INT:
        try:
            return array("q", _ints_bytes(values))
        except struct.error:  # (past 64 bits)
            pass
    return values


#: What `guard.sanitize` lets through as it is: counts and int stats within +-`_MAX_COUNT`.
_MAX_COUNT = 2**62
_SOLVED, _UNSATISFIABLE = Status.SOLVED, Status.UNSATISFIABLE
_FLOAT, _INT, _NONE = {float}, {int}, {type(None)}
_NUMBERS = frozenset((int, float))
#: A verdict's text by count (`Verdict.text`): exact (exhaustive) and at least.
_EXACT = ("0", *(f"={n}" for n in range(1, 64)))
_AT_LEAST = ("?", *(f">={n}" for n in range(1, 64)))


@lru_cache(maxsize=64)
def _stats_form(keys: tuple[Any, ...], wait: bool) -> tuple[Any, ...] | None:
    """How a task's stats of these keys (a backend's, then `cpu_s`, and `cpu_wait_s` when
    `wait`) go into the columns: (the stats' JSON text as its literal pieces, one before
    each value's text and one after the last, the last ending the task's line: a value's
    text is its `repr`, which for an int and a finite float is the JSON encoder's text; the
    values a task, the place of `cpu_s`, of `cpu_wait_s` or None, the effort's kind and
    place). None when the keys are not what `guard.sanitize` keeps as they are (a plain `str`
    of at most `STAT_KEY_CHARS`, at most `STATS_ENTRIES` with the two added) or already name
    the worker's two (which `_checked` would then set in their place)."""
    if not all(type(key) is str and len(key) <= STAT_KEY_CHARS for key in keys):
        return None
    names = (*keys, _CPU_KEY, _WAIT_KEY) if wait else (*keys, _CPU_KEY)
    if len(set(names)) != len(names) or len(names) > STATS_ENTRIES:
        return None
    # (an escaped key holds no newline: the tasks' texts are split at the pieces' last one)
    keyed = [encode_basestring_ascii(key) + ": " for key in names]
    pieces = ("{" + keyed[0], *(", " + key for key in keyed[1:]), "}\n")
    kind, place = next(
        ((k, names.index(key)) for k, key in enumerate(EFFORT_KEYS) if key in names),
        (NO_EFFORT, None),
    )
    return pieces, len(names), len(keys), len(keys) + 1 if wait else None, kind, place


def solved_columns(done: Sequence[Any]) -> tuple[Any, ...] | None:
    """The columnar message of a worker's held `worker.Solved` tasks, made straight from them:
    what `to_columns([worker.finish(s) for s in done])` makes, value for value, for the usual
    batch; None for any other (the caller then goes `finish`'s way, which says what is wrong
    with each answer exactly as before).

    The usual batch: every task's call gave a plain `SolveResult` (no times of its own), one
    shape, SOLVED with its solutions (Grids, at most its count, its count at most the limit)
    or UNSATISFIABLE (no solution, count 0, exhaustive), a plain message, its stats of one set
    of keys for the batch. Every answer is still checked here, the batch at once
    (`grid.valid_lines`: each solution's units, its digits, its puzzle's givens; the
    solutions of one answer different); what `guard.sanitize` tests of an outcome is tested
    on the batch's columns (the types and bounds of the times, counts, stats and peaks); the
    texts are made for the batch (the solutions' lines in one `bytes.translate`, the stats'
    JSON joined at once from its keys' literal pieces and the values' texts, each value's
    `repr` kept by value: `_texts`). Each test and value is a C call over a column of the
    batch (`map`, `zip`, `set`, slices); Python steps a task remain only for the unusual
    answers (unsatisfiable, several solutions, a count of 64 or more) and a value whose text
    was not met before."""
    try:
        return _solved_columns(done)
    except Exception:  # (anything unusual: an odd value's `round`, `bytes` of a cell > 255)
        return None


def _solved_columns(done: Sequence[Any]) -> tuple[Any, ...] | None:
    # A column at a time: each test and value a C call over the batch (`map`, `zip`, `set`,
    # `count`, slices), no Python step a task but where an answer is unusual (unsatisfiable,
    # several solutions, a count of 64 or more, a value whose text is not yet known).
    n = len(done)
    tasks, puzzles, timeds, failures, peaks, waits_s = zip(*done, strict=True)
    if failures.count(None) != n:
        return None
    answers, encodes, solves, cpus_s, _ = zip(*timeds, strict=True)
    if set(map(type, answers)) != _RESULT:
        return None
    # (a SolveResult's fields are its dict's: read there, not through its class)
    statuses, solutions, counts, exhaustives, stats, messages, own_encode, own_solve = zip(
        *map(_ANSWER, map(vars, answers)), strict=True
    )
    if any(own_encode) or any(own_solve):
        return None  # (a result with times of its own, which `stamp` would copy)
    shape = puzzles[0].shape
    size = shape.cells
    if not (
        all(map(is_, map(_SHAPE, map(vars, puzzles)), repeat(shape)))
        and set(map(type, counts)) == _INT
        and set(map(type, exhaustives)) == _BOOL
        and set(map(type, solutions)) == _TUPLE
        and set(map(type, messages)) == _STR
        and max(map(len, messages)) <= MESSAGE_CHARS
        and set(map(type, stats)) == _PROXY
        and waits_s.count(None) in (0, n)
    ):
        return None
    # The claims: SOLVED with 1 <= solutions <= count <= limit, or UNSATISFIABLE with none,
    # a count of 0, exhaustive.
    limits = list(map(_LIMIT, tasks))
    found = list(map(len, solutions))
    solved = list(map(is_, statuses, repeat(_SOLVED)))
    n_solved = solved.count(True)
    if not (
        all(map(le, counts, limits)) and all(map(le, found, counts)) and max(counts) <= _MAX_COUNT
    ):
        return None
    if n_solved == n:
        if 0 in found:
            return None
    else:
        for k in compress(range(n), map(not_, solved)):
            if not (
                statuses[k] is _UNSATISFIABLE
                and found[k] == 0
                and counts[k] == 0
                and exhaustives[k] is True
            ):
                return None
        if found.count(0) != n - n_solved:
            return None  # (a SOLVED answer with no solution)
    grids = list(chain.from_iterable(solutions))
    if grids:
        if set(map(type, grids)) != _GRID:
            return None
        dicts = list(map(vars, grids))
        shapes, cells = zip(*map(_SHAPE_CELLS, dicts), strict=True)
        if not (all(map(is_, shapes, repeat(shape))) and set(map(len, cells)) == {size}):
            return None
    keys = tuple(stats[0])
    if list(map(tuple, stats)).count(keys) != n:
        return None  # (one set of keys a batch: one set of pieces)
    n_wait = waits_s[0] is None
    form = _stats_form(keys, not n_wait)
    if form is None:
        return None
    # What `guard.sanitize` tests of each outcome, on the batch's columns: the times, the
    # peaks, the stats' values (the backend's, then `cpu_s` and `cpu_wait_s` as
    # `worker._checked` rounds them: `round` of a NaN or an infinity raises).
    times = list(chain.from_iterable(zip(encodes, solves, strict=True)))
    if not (set(map(type, times)) == _FLOAT and min(times) >= 0.0 and sum(times) < math.inf):
        return None  # (a NaN makes the sum NaN; an infinity, it)
    kinds = set(map(type, peaks))
    if kinds == _INT:
        if not (min(peaks) >= 0 and max(peaks) <= _MAX_COUNT):
            return None
    elif kinds != _NONE:
        return None
    own = list(chain.from_iterable(map(tuple, map(_VALUES, stats))))  # (the keys' a task)
    own_kinds = set(map(type, own))
    if own:
        if own_kinds == _INT:
            if not (min(own) >= -_MAX_COUNT and max(own) <= _MAX_COUNT):
                return None
        else:
            total = sum(own)
            if not (
                _NUMBERS.issuperset(own_kinds)
                and total == total
                and min(own) >= -_MAX_COUNT
                and max(own) <= _MAX_COUNT
            ):
                return None
    cpu_us = list(map(round, map(mul, cpus_s, repeat(1e6))))
    cpus = list(map(truediv, cpu_us, repeat(1e6)))
    if not (min(cpus) >= -_MAX_COUNT and max(cpus) <= _MAX_COUNT):
        return None
    if n_wait:
        waits: list[Any] = [None] * n
    else:
        wait_us = list(map(round, map(mul, waits_s, repeat(1e6))))
        waits = list(map(truediv, wait_us, repeat(1e6)))
        if not (min(waits) >= -_MAX_COUNT and max(waits) <= _MAX_COUNT):
            return None
    # Every answer checked, the batch at once.
    lines = _solution_bytes(tasks, dicts, cells, size) if grids else b""
    try:  # (the bytes the worker's puzzles keep, `Grid._from_bytes`; else made)
        digits = list(map(_KEPT_BYTES, map(vars, puzzles)))
    except KeyError:
        digits = list(map(_DIGIT_BYTES, puzzles))
    # (a puzzle's bytes once a solution of it: once in all when one solution an answer)
    givens = b"".join(digits if found.count(1) == n else map(mul, digits, found))
    if grids and not valid_lines(lines, givens, shape):
        return None
    return _assemble(
        tasks, size, lines, found, solved, counts, exhaustives, encodes, solves,
        _same(messages, n), _ints(peaks, n), form, own, own_kinds == _INT, cpu_us, cpus,
        None if n_wait else wait_us, waits,
    )  # fmt: skip


#: `native`'s stats, in the order of its kernel's counters NODES to LOCKED (`native.Lane`).
LANE_KEYS = ("nodes", "guesses", "backtracks", "max_depth", "hidden_singles", "locked_eliminations")
#: A lane's counters a task: `LANE_KEYS`' and SAVED's.
_LANE_WORDS = len(LANE_KEYS) + 1


def lane_columns(
    shape: Any,
    tasks: Sequence[Any],
    givens: Sequence[bytes],
    encodes: Sequence[float],
    solves: Sequence[float],
    cpus_s: Sequence[float],
    waits_s: Sequence[float],
    peaks: Sequence[Any],
    codes: bytes | bytearray,
    counters: bytes | bytearray,
    lines: bytes | bytearray,
) -> tuple[Any, ...] | None:
    """The columnar message of a worker's `native` lane (`worker._NativeLane`), made from the
    arrays it copied a task (no Grid, result or outcome made): what `solved_columns` makes of
    the same answers, value for value; None for anything it cannot vouch for (the caller then
    makes each task's answer, `native.lane_answer`, and goes `finish`'s way, which says what
    is wrong with it exactly as the per-task path would).

    A task's answer: `givens` its puzzle's bytes, its times (`encodes`, `solves`, and the
    worker's `cpus_s`, `waits_s`, both measured), its `peaks`, its kernel's code (`codes`:
    FINISHED 0, exhaustive, or LIMIT 1), its `counters` (the state's words NODES to SAVED, 56
    bytes) and the rows the kernel wrote (`lines`: SAVED rows of `shape.cells` bytes). SOLVED
    with its rows or UNSATISFIABLE without (exhaustive), the count its rows', at most its
    limit. Every solution is checked here as `solved_columns` checks them
    (`grid.valid_lines`: every cell a digit, every given kept, every unit complete; an
    answer's solutions different), and what `guard.sanitize` tests (the times, the peaks,
    the stats within its bounds)."""
    try:
        return _lane_columns(
            shape, tasks, givens, encodes, solves, cpus_s, waits_s, peaks, codes, counters, lines
        )
    except Exception:  # (anything unusual: a NaN's `round`, a value of another type)
        return None


def _lane_columns(shape: Any, tasks: Sequence[Any], *held: Any) -> tuple[Any, ...] | None:
    """`lane_columns`, which may raise: `held` is its arguments after `tasks`, in order."""
    givens, encodes, solves, cpus_s, waits_s, peaks, codes, counters, lines = held
    n = len(tasks)
    size = shape.cells
    own = array("q", counters).tolist()
    if not n or len(own) != _LANE_WORDS * n or len(codes) != n:
        return None
    found = own[_LANE_WORDS - 1 :: _LANE_WORDS]  # (SAVED: the rows the kernel wrote)
    del own[_LANE_WORDS - 1 :: _LANE_WORDS]
    lines = bytes(lines)
    # The claims: SOLVED with 1 <= solutions <= limit, or UNSATISFIABLE with none, exhaustive.
    if not (
        min(found) >= 0
        and all(map(le, found, map(_LIMIT, tasks)))
        and len(lines) == size * sum(found)
        and max(codes) <= 1
    ):
        return None
    exhaustives = list(map(not_, codes))  # (FINISHED, 0: exhaustive; LIMIT, 1: not)
    solved = list(map(truth, found))
    if not all(solved) and not all(compress(exhaustives, map(not_, found))):
        return None  # (an unsatisfiable answer from a search that was not exhaustive)
    # What `guard.sanitize` tests of each outcome (`solved_columns`' tests).
    if not (
        set(map(type, encodes)) == _FLOAT
        and set(map(type, solves)) == _FLOAT
        and min(encodes) >= 0.0
        and min(solves) >= 0.0
        and sum(encodes) + sum(solves) < math.inf
        and set(map(type, peaks)) == _INT
        and min(peaks) >= 0
        and max(peaks) <= _MAX_COUNT
        and min(own) >= -_MAX_COUNT
        and max(own) <= _MAX_COUNT
    ):
        return None
    cpu_us = list(map(round, map(mul, cpus_s, repeat(1e6))))
    cpus = list(map(truediv, cpu_us, repeat(1e6)))
    wait_us = list(map(round, map(mul, waits_s, repeat(1e6))))
    waits = list(map(truediv, wait_us, repeat(1e6)))
    if not (
        min(cpus) >= -_MAX_COUNT
        and max(cpus) <= _MAX_COUNT
        and min(waits) >= -_MAX_COUNT
        and max(waits) <= _MAX_COUNT
    ):
        return None
    # Every answer checked, the batch at once (a puzzle's bytes once a solution of it).
    if lines:
        joined = b"".join(givens if found.count(1) == n else map(mul, givens, found))
        if not valid_lines(lines, joined, shape):
            return None
    return _assemble(
        tasks, size, lines, found, solved, found, exhaustives, encodes, solves, "",
        _ints(peaks, n), _stats_form(LANE_KEYS, True), own, True, cpu_us, cpus, wait_us, waits,
    )  # fmt: skip


def _assemble(
    tasks: Sequence[Any],
    size: int,
    lines: bytes,
    found: list[int],
    solved: list[bool],
    counts: Sequence[int],
    exhaustives: Sequence[bool],
    encodes: Sequence[float],
    solves: Sequence[float],
    message_column: Any,
    peak_column: Any,
    form: tuple[Any, ...],
    own: list[Any],
    own_int: bool,
    cpu_us: list[int],
    cpus: list[float],
    wait_us: list[int] | None,
    waits: list[Any],
) -> tuple[Any, ...] | None:
    """The message of a batch whose answers are checked (`solved_columns`, `lane_columns`):
    `lines` the solutions' bytes, `found` each answer's number of them, `solved` whether it
    is SOLVED (else UNSATISFIABLE); `form` the stats' (`_stats_form`), `own` the backend's
    stats' values a task after another; `cpu_us` and `wait_us` (None: no wait measured) the
    rounded times' microseconds and `cpus`, `waits` their seconds; the message's and the
    peak's columns made. None when an answer repeats a solution (`check_answer`)."""
    n = len(tasks)
    n_solved = solved.count(True)
    pieces, width, cpu_at, wait_at, kind, place = form
    k_own = width - (1 if wait_at is None else 2)  # (the backend's own stats a task)
    several = len(lines) != n_solved * size
    if several:  # (an answer's solutions different: `check_answer`)
        first = 0
        for count in found:
            if count > 1:
                start = first * size
                end = start + count * size
                if len({lines[k : k + size] for k in range(start, end, size)}) != count:
                    return None
            first += count
    # The texts: the solutions' canonical lines (`grid.solution_line`) as `solutions_json`
    # makes them of checked ones, the stats' JSON (`stats_json`) from the values' texts.
    text_all = lines.translate(_LINE_BYTES).decode("latin-1")
    if not several and n_solved == n:  # (one solution an answer)
        joined = '"]\n["'.join([text_all[k : k + size] for k in range(0, len(text_all), size)])
        solutions_texts = ('["' + joined + '"]').split("\n")
    else:
        solutions_texts = []
        k = 0
        for count in found:
            if count:
                end = k + count * size
                lines_of = [text_all[j : j + size] for j in range(k, end, size)]
                solutions_texts.append('["' + '", "'.join(lines_of) + '"]')
                k = end
            else:
                solutions_texts.append("[]")
    # (each task's pieces and values' texts in turn, joined at once, each ending a line)
    step = 2 * width + 1
    parts: list[Any] = [None] * (n * step)
    for j, piece in enumerate(pieces):
        parts[2 * j :: step] = [piece] * n
    own_texts = _texts(own, _INT_TEXTS) if own_int else list(map(repr, own))
    for j in range(k_own):
        parts[2 * j + 1 :: step] = own_texts[j::k_own]
    parts[2 * cpu_at + 1 :: step] = _texts(cpu_us, _MICRO_TEXTS, cpus)
    if wait_at is not None:
        parts[2 * wait_at + 1 :: step] = _texts(wait_us, _MICRO_TEXTS, waits)
    stats_texts = "".join(parts).split("\n")
    stats_texts.pop()  # (the empty text after the last end)
    # The verdicts (`Verdict.text`) and the flags.
    if max(counts) < 64:
        if exhaustives.count(True) == n:
            verdicts = list(map(_EXACT.__getitem__, counts))
        elif exhaustives.count(False) == n:
            verdicts = list(map(_AT_LEAST.__getitem__, counts))
        else:
            verdicts = [
                (_EXACT if e else _AT_LEAST)[c] for c, e in zip(counts, exhaustives, strict=True)
            ]
    else:
        verdicts = [
            (_EXACT if exhaustive else _AT_LEAST)[count]
            if count < 64
            else verdict_of(_SOLVED if solved_k else _UNSATISFIABLE, count, exhaustive).text
            for solved_k, count, exhaustive in zip(solved, counts, exhaustives, strict=True)
        ]
    # The columns (`COLUMNS`, each in `_column`'s form: what `to_columns` makes of the same
    # rows), one value where every row has it.
    if n_solved == n:
        status_column: Any = _SOLVED_TEXT
    elif not n_solved:
        status_column = _UNSATISFIABLE_TEXT
    else:
        status_column = [_SOLVED_TEXT if s else _UNSATISFIABLE_TEXT for s in solved]
    if exhaustives.count(True) == n:
        exhaustive_column: Any = 1
    elif exhaustives.count(False) == n:
        exhaustive_column = 0
    else:
        exhaustive_column = array("q", _ints_bytes(list(map(int, exhaustives))))
    solve_column = _floats(solves)  # (wall_s: the timed region, as `Backend.solve` reports it)
    columns = (
        status_column,
        _ints(counts, n),
        exhaustive_column,
        _floats(encodes),
        solve_column,
        solve_column,
        message_column,
        _same(verdicts, n),
        1,  # valid (no problem; `problem` stays None)
        None,
        HOST,
        peak_column,
        _floats(cpus),
        None if wait_us is None else _floats(waits),
        _NAN_BYTES * n if place is None else _floats(own[place::k_own]),  # (ints as floats)
    )
    ids = _ints_bytes(list(map(_TASK_ID, tasks)))
    return (KIND, ids, columns, bytes([kind]) * n, solutions_texts, stats_texts)


def _same(values: Sequence[Any], n: int) -> Any:
    """A column of `n` values of one type, neither a float nor an int (nor a list, bytes or
    array) in `_column`'s form."""
    first = values[0]
    return first if values.count(first) == n else list(values)


def _ints(values: Sequence[Any], n: int) -> Any:
    """A column of `n` ints within 64 bits, or of `n` Nones, in `_column`'s form."""
    first = values[0]
    return first if values.count(first) == n else array("q", _ints_bytes(values))


def _floats(values: Sequence[float]) -> bytes:
    """A column of floats in `_column`'s form: `array("d", values).tobytes()`, made by a
    `struct` of the column's length (which reads each float in C; `array` parses each one)."""
    return _packer(len(values), "d")(*values)


def _ints_bytes(values: Sequence[int]) -> bytes:
    """Ints as `array("q", values).tobytes()` (`_floats`' way); `struct.error` past 64 bits."""
    return _packer(len(values), "q")(*values)


@lru_cache(maxsize=256)
def _packer(n: int, code: str) -> Any:
    """The `pack` of `n` values of the `struct` (and `array`) type `code`, in this machine's
    order (a batch's lengths are few: its planned size, and what a flush cut short)."""
    return struct.Struct(f"{n}{code}").pack


def _solution_bytes(
    tasks: Sequence[Any], dicts: list[Any], cells: Sequence[Any], size: int
) -> bytes:
    """The batch's solutions' cells as bytes, one a cell, in order: the bytes each grid kept
    beside its cells (`Grid._from_bytes`, which makes both from the same bytes: `native`'s
    grids) when every task is of one of sudokubench's own backends (`guard.trusted`: a
    registered name, whose code makes its grids) and every grid kept bytes of its length;
    else made from the cells, as the checker reads them everywhere else (a cell over 255
    raises). A plug-in's or a program's grids are never read by their kept bytes: bytes a
    plug-in put beside other cells are not what it answered."""
    backend = tasks[0][4]
    if _trusted(backend) and list(map(_BACKEND_OF, tasks)).count(backend) == len(tasks):
        try:
            kept = list(map(_KEPT_BYTES, dicts))
        except KeyError:  # (a grid made from its cells: `Grid._unchecked`, `Grid(...)`)
            pass
        else:
            if set(map(type, kept)) == _BYTES and set(map(len, kept)) == {size}:
                return b"".join(kept)
    return b"".join(map(bytes, cells))


#: The texts (`repr`) of the ints the stats hold, and of the worker's `cpu_s` and
#: `cpu_wait_s` by their microseconds, as `_texts` has met them (a few thousand at most).
_INT_TEXTS: dict[int, str] = {}
_MICRO_TEXTS: dict[int, str] = {}
_TEXTS_KEPT = 1 << 14


def _texts(keys: list[int], known: dict[int, str], values: list[Any] | None = None) -> list[str]:
    """Each value's `repr` (`values`, else the keys themselves), looked up by its key in
    `known` (one C call for the batch), the values not met before made and kept there."""
    texts = list(map(known.get, keys))
    if None in texts:
        if len(known) > _TEXTS_KEPT:
            known.clear()
        made = keys if values is None else values
        for k in compress(range(len(texts)), map(is_, texts, repeat(None))):
            texts[k] = known[keys[k]] = repr(made[k])
    return texts


_RESULT, _GRID, _TUPLE, _STR, _BOOL = {SolveResult}, {Grid}, {tuple}, {str}, {bool}
_PROXY = {MappingProxyType}
#: A result's fields `solved_columns` reads (`Timed`'s own times are the rule's).
_ANSWER = itemgetter(
    "status", "solutions", "count", "exhaustive", "stats", "message", "encode_s", "solve_s"
)
_SHAPE, _SHAPE_CELLS = itemgetter("shape"), itemgetter("shape", "cells")
_LIMIT = itemgetter(5)
_TASK_ID, _BACKEND_OF = itemgetter(0), itemgetter(4)
_BYTES, _FORMS = {bytes}, (list, bytes, array)
#: A column of NaNs' row (`_column`'s form of `float("nan")`, every row's bits the same).
_NAN_BYTES = array("d", [_NAN]).tobytes()
#: `guard.trusted`, kept by name (a registry's look-up a batch).
_trusted = lru_cache(maxsize=64)(trusted)
_VALUES = MappingProxyType.values
_DIGIT_BYTES, _KEPT_BYTES = Grid.digit_bytes, itemgetter("_digit_bytes")
_SOLVED_TEXT, _UNSATISFIABLE_TEXT = Status.SOLVED.value, Status.UNSATISFIABLE.value


class Batch:
    """A columnar message taken against the tasks in flight (`take_batch`): `tasks` its
    tasks, `values` their rows flat (`WIDTH` a row, as `track.to_row` and `task_to_sql` make
    them), `cpus`, `waits`, `kinds` and `efforts` the tally's columns (an effort's kind as
    its place in `stats.EFFORT_KEYS`, `NO_EFFORT` and NaN where a row reports none), and per
    batch: `ids` (the task ids), `statuses` (their texts), `host` (the host of every row,
    None when they differ), `times` and `effort_times` (the wall times and efforts as the
    `array("d")` the message's bytes made, None where it sent them otherwise: the tally
    copies them as they are), `timed` (every row's cpu and wait a float: both sent as
    bytes) and `usual` (every answer sound and timed: solved or
    unsatisfiable within the limit, no problem). Without `strict`, an answer after the limit
    keeps the worker's status (`outcomes`, as `wire.from_wire` gives it; its `rows` are then
    not `to_row`'s)."""

    __slots__ = (
        "cpus", "effort_times", "efforts", "host", "ids", "kinds", "statuses", "tasks",
        "timed", "times", "usual", "values", "waits",
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
        times: array[float] | None = None,
        effort_times: array[float] | None = None,
        timed: bool = False,
    ) -> None:
        self.tasks = tasks
        self.times = times
        self.effort_times = effort_times
        self.timed = timed
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

    def message(self) -> tuple[Any, ...]:
        """The batch as a columnar message again, in `to_columns`' forms (what `take_batch`
        reads against the same tasks): for a process that passes a worker's rows on, a dask
        worker's to its client (`dask_batch.py`), without an outcome made a task."""
        values = self.values
        columns = (
            *(_column(values[k::WIDTH]) for k in _SENT),
            *map(_column, (self.cpus, self.waits, self.efforts)),
        )
        solutions, stats = values[10::WIDTH], values[14::WIDTH]
        return (KIND, _ints_bytes(self.ids), columns, bytes(self.kinds), solutions, stats)

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

    The row's task fields are the parent's own task's (the message's ids are checked
    against the tasks due, in order); its other fields are filled by slices from the
    message's columns (the module docstring)."""
    if len(message) != 6 or [type(x) for x in message[1:]] != _TYPES:
        raise ProtocolError("a malformed columnar message")
    _, ids, columns, kinds, solutions, stats = message
    n = len(kinds)
    if not n or len(ids) != 8 * n or len(columns) != _COLUMNS:
        raise ProtocolError("a columnar message whose columns differ in length")
    if n > len(tasks):
        raise ProtocolError(f"{n} outcomes when {len(tasks)} tasks were in flight")
    decoded: list[list[Any]] = []
    arrays: list[array[float] | None] = []  # (each bytes column's array, for the tally)
    floats_of: Any = None
    floats: list[float] = []
    floats_array: array[float] | None = None
    for column in columns:
        kind = type(column)
        if kind is bytes:  # (the rows' floats; the same bytes twice, the same list)
            if column is not floats_of:
                if len(column) != 8 * n:
                    raise ProtocolError("a columnar message whose columns differ in length")
                floats_array = array("d", column)
                floats_of, floats = column, floats_array.tolist()
            decoded.append(floats)
            arrays.append(floats_array)
            continue
        arrays.append(None)
        if kind is list:
            if len(column) != n:
                raise ProtocolError("a columnar message whose columns differ in length")
            decoded.append(column)
        elif kind is array:  # (the rows' ints)
            if column.typecode != "q" or len(column) != n:
                raise ProtocolError("a columnar message whose columns differ in length")
            decoded.append(column.tolist())
        else:  # (every row's value: a str or int one object for every message, `_SEEN`)
            if kind is str or kind is int:
                key = (kind, column)
                column = (
                    _SEEN.setdefault(key, column) if len(_SEEN) < _ONES else _SEEN.get(key, column)
                )
            decoded.append([column] * n)
    (
        statuses, counts, exhaustives, encodes, solves, walls, messages, verdicts, valids,
        problems, hosts, peaks, cpus, waits, efforts,
    ) = decoded  # fmt: skip
    if len(solutions) != n or len(stats) != n:
        raise ProtocolError("a columnar message whose texts differ in number")
    try:
        known = _STATUSES.keys() >= set(statuses)
    except TypeError:  # (a status that cannot be hashed)
        known = False
    if not known:
        raise ProtocolError("a columnar message with a status that does not exist")
    taken = list(map(_popleft, repeat(tasks, n)))  # (taken off in one call, put back below)
    task_ids, puzzle_ids, lines, _boxes, backends, limits, timeouts, samples = zip(
        *taken, strict=True
    )
    try:
        due = _ints_bytes(task_ids)
    except struct.error:  # (an id past 64 bits: the worker sends outcomes)
        due = None
    if due != ids:
        tasks.extendleft(reversed(taken))
        raise ProtocolError("a columnar message whose tasks are not those due")
    values: list[Any] = [None] * (n * WIDTH)
    values[0::WIDTH] = task_ids
    values[1::WIDTH] = puzzle_ids
    values[2::WIDTH] = lines
    values[3::WIDTH] = backends
    values[4::WIDTH] = limits
    values[5::WIDTH] = timeouts
    values[6::WIDTH] = samples
    values[7::WIDTH] = statuses
    values[8::WIDTH] = counts
    values[9::WIDTH] = exhaustives
    values[10::WIDTH] = solutions
    values[11::WIDTH] = encodes
    values[12::WIDTH] = solves
    values[13::WIDTH] = walls
    values[14::WIDTH] = stats
    values[15::WIDTH] = messages
    values[16::WIDTH] = verdicts
    values[17::WIDTH] = valids
    values[18::WIDTH] = problems
    values[19::WIDTH] = hosts
    values[20::WIDTH] = peaks
    times, effort_times = arrays[_WALL_COLUMN], arrays[-1]
    timed = arrays[-3] is not None and arrays[-2] is not None  # (the cpus and waits: floats)
    return Batch(taken, values, cpus, waits, kinds, efforts, strict, times, effort_times, timed)


_popleft = deque.popleft
#: The values a message sent for every row, a str or an int, by type and value (at most
#: `_ONES`): `take_batch` gives each as the object an earlier message gave, so the writer's look
#: for a statement's constant columns (`store_write.drop_constant_columns`, `list.count`) meets
#: the same object in every row, not an equal one to compare (an int 1 and True kept apart by
#: their types); a value past `_ONES` of them as it came.
_SEEN: dict[tuple[type, Any], Any] = {}
_ONES = 256

#: The wall time's place among a message's columns.
_WALL_COLUMN = COLUMNS.index("wall_s")
_TYPES = [bytes, tuple, bytes, list, list]
#: The columns of a message (`COLUMNS`, then the tally's `cpu_s`, `cpu_wait_s` and effort).
_COLUMNS = len(COLUMNS) + 3
