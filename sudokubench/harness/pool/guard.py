"""The boundary between a backend's answer and the harness: `sanitize` makes an `Outcome` safe
to pickle, store and report whatever a plug-in put into it, and `trusted` says whose answers
may be checked in the process that produced them.

A backend is code the harness runs, not code it trusts: a plug-in (`module:attr`, an entry
point) or an `exec:` program may return NaN timings, a count that is not a number, stats that
are strings, a message whose `__str__` raises or that cannot be pickled, or megabytes of text.
`sanitize` runs on every outcome in the worker before it is sent, and again in `compare`
on a plug-in's outcomes (whose worker ran the plug-in's code), and gives back an outcome of
plain built-in values within these limits:

- times (`encode_s`, `solve_s`, `wall_s`): finite numbers >= 0, else the task is an ERROR
  whose message names the field and the value (its answer is dropped);
- `count`: an int in 0..2**62 (not a bool); `exhaustive`: a bool; `status`: a `Status`; else
  ERROR, as above;
- `solutions`: at most `limit` lines (else ERROR), each cut to `ANSWER_CHARS` characters
  (the checker then finds a cut line wrong);
- `message`: a plain `str` of at most `MESSAGE_CHARS` characters;
- `stats`: at most `STATS_ENTRIES` entries with `str` keys of at most `STAT_KEY_CHARS`
  characters and finite int/float values; other entries are dropped.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from operator import le

from sudokubench.backend import Status
from sudokubench.harness.pool.task import Outcome, failed

__all__ = [
    "ANSWER_CHARS",
    "LOAD_HINT",
    "MESSAGE_CHARS",
    "STATS_ENTRIES",
    "STAT_KEY_CHARS",
    "describe_exception",
    "load_timeout",
    "plain_text",
    "sanitize",
    "sanitize_many",
    "trusted",
]

#: Most characters of a message kept (the rest is cut, with "..." at the end).
MESSAGE_CHARS = 1000
#: Most characters of one answer line kept (a 25x25 grid is 625).
ANSWER_CHARS = 4096
#: Most stats entries kept per task.
STATS_ENTRIES = 64
#: Most characters of a stats key.
STAT_KEY_CHARS = 64
_MAX_COUNT = 2**62
#: `-_MAX_COUNT`, made once (`_plain` compares every int stat with it: a new integer each time).
_MIN_COUNT = -_MAX_COUNT
_TIMES = ("encode_s", "solve_s", "wall_s")


def trusted(backend: str) -> bool:
    """Whether `backend` is sudokubench's own code (a registered name), whose worker's check of
    its answers can be kept; a plug-in's or program's answers are checked again by the parent."""
    from sudokubench.solvers import REGISTRY

    return backend.partition(":")[0] in REGISTRY


def plain_text(value: object, limit: int = MESSAGE_CHARS) -> str:
    """`value` as a plain `str` (never a subclass, never raising) of at most `limit` chars."""
    if type(value) is not str:
        if isinstance(value, str):
            value = str.__str__(value)  # a plain copy: a subclass may not pickle
        else:
            try:
                value = str.__str__(str(value))
            except Exception as exc:  # a __str__ that raises
                value = f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    assert isinstance(value, str)
    return value if len(value) <= limit else value[: limit - 3] + "..."


def describe_exception(exc: BaseException) -> str:
    """`Type: message` for an exception raised by a backend, never raising itself."""
    return plain_text(f"{type(exc).__name__}: {plain_text(exc)}")


def _time(value: object) -> float | None:
    if type(value) is float:  # the usual case, checked first
        return value if math.isfinite(value) and value >= 0.0 else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = float(value)
        return value if math.isfinite(value) and value >= 0.0 else None
    return None


def _stats(stats: object) -> dict[str, int | float]:
    if not isinstance(stats, Mapping):
        return {}
    clean: dict[str, int | float] = {}
    try:
        items = list(stats.items())[: STATS_ENTRIES * 4]
    except Exception:
        return {}
    for key, value in items:
        if len(clean) >= STATS_ENTRIES:
            break
        if not isinstance(key, str) or len(key) > STAT_KEY_CHARS or isinstance(value, bool):
            continue
        if isinstance(value, int) and -_MAX_COUNT <= value <= _MAX_COUNT:
            clean[str.__str__(key)] = int(value)
        elif isinstance(value, float) and math.isfinite(value):
            clean[str.__str__(key)] = float(value)
    return clean


#: The exact types of a plain outcome's status, count, exhaustive, checked, times, solutions,
#: stats, message and verdict, in the order `_plain` reads them.
_PLAIN_KINDS = (Status, int, bool, bool, float, float, float, tuple, dict, str, str)


def _plain(outcome: Outcome) -> bool:
    """Whether `sanitize` would give the outcome back as it is: every field already of its
    exact built-in type and within its bounds (loops, not generators, and the types compared
    as one tuple: it runs on every outcome, and each step costs a worker a little a task)."""
    (
        task,
        status,
        count,
        exhaustive,
        solutions,
        encode_s,
        solve_s,
        wall_s,
        stats,
        message,
        checked,
        verdict,
        problem,
        _host,
        peak,
        _texts,  # (made from the other fields when the outcome is sent: `wire.to_wire`)
    ) = outcome
    kinds = (
        type(status),
        type(count),
        type(exhaustive),
        type(checked),
        type(encode_s),
        type(solve_s),
        type(wall_s),
        type(solutions),
        type(stats),
        type(message),
        type(verdict),
    )
    if not (
        kinds == _PLAIN_KINDS
        and 0 <= count <= _MAX_COUNT
        and 0.0 <= encode_s < math.inf
        and 0.0 <= solve_s < math.inf
        and 0.0 <= wall_s < math.inf
        and (len(solutions) <= task.limit or not solutions)  # (at most `max(limit, 0)`)
        and len(stats) <= STATS_ENTRIES
        and len(message) <= MESSAGE_CHARS
        and len(verdict) <= 40
        and (problem is None or (type(problem) is str and len(problem) <= MESSAGE_CHARS))
        and (peak is None or (type(peak) is int and 0 <= peak <= _MAX_COUNT))
    ):
        return False
    for line in solutions:
        if type(line) is not str or len(line) > ANSWER_CHARS:
            return False
    for key, value in stats.items():
        if type(key) is not str or len(key) > STAT_KEY_CHARS:
            return False
        if type(value) is int:
            if not _MIN_COUNT <= value <= _MAX_COUNT:
                return False
        elif type(value) is not float or not math.isfinite(value):
            return False
    return True


def _malformed(outcome: Outcome) -> str | None:
    """Why the outcome's status, count, flag, times or solutions cannot be stored; None if they
    can."""
    if not isinstance(outcome.status, Status):
        return f"status {plain_text(outcome.status, 40)!r} is not a status"
    count = outcome.count
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= _MAX_COUNT:
        return f"count {plain_text(count, 40)!r} is not a count"
    if not isinstance(outcome.exhaustive, bool | int) or outcome.exhaustive not in (0, 1):
        return f"exhaustive {plain_text(outcome.exhaustive, 40)!r} is not a bool"
    for name in _TIMES:
        value = getattr(outcome, name)
        if _time(value) is None:
            return f"{name} {plain_text(value, 40)} is not a finite time >= 0"
    solutions = outcome.solutions
    if not isinstance(solutions, tuple | list) or len(solutions) > max(outcome.task.limit, 0):
        n = len(solutions) if isinstance(solutions, tuple | list) else "?"
        return f"{n} solutions returned for limit {outcome.task.limit}"
    return None


def sanitize(outcome: Outcome) -> Outcome:
    """The outcome with plain, bounded, finite values; an ERROR saying why when a field cannot
    be made so (see the module docstring)."""
    if _plain(outcome):  # the usual case: nothing to copy
        return outcome
    wall = _time(outcome.wall_s)
    why = _malformed(outcome)
    if why is not None:
        message = f"the backend's result is malformed: {why}"
        return failed(outcome.task, Status.ERROR, message, wall or 0.0)
    problem = outcome.problem
    return outcome._replace(
        count=int(outcome.count),
        exhaustive=bool(outcome.exhaustive),
        solutions=tuple(plain_text(s, ANSWER_CHARS) for s in outcome.solutions),
        encode_s=_time(outcome.encode_s),
        solve_s=_time(outcome.solve_s),
        wall_s=wall,
        stats=_stats(outcome.stats),
        message=plain_text(outcome.message),
        checked=bool(outcome.checked),
        verdict=plain_text(outcome.verdict, 40),
        problem=None if problem is None else plain_text(problem),
        peak_memory_bytes=peak if _memory_ok(peak := outcome.peak_memory_bytes) else None,
        texts=None,  # (of the fields before: made again from these)
    )


def sanitize_many(outcomes: Sequence[Outcome]) -> Sequence[Outcome]:
    """`sanitize` of each outcome of a list: the list as it is when every one is plain
    (`_plain_many`), else each outcome sanitized."""
    if _plain_many(outcomes):
        return outcomes
    return [sanitize(o) for o in outcomes]


_STR, _FLOAT, _INT = {str}, {float}, {int}
_NUMBERS = {int, float}
_PEAKS = {int, type(None)}
_PROBLEMS = {str, type(None)}


def _plain_many(outcomes: Sequence[Outcome]) -> bool:
    """Whether `_plain` holds for every outcome of the list, tested a field at a time over
    the whole list (a few C passes a column instead of a Python function an outcome: what a
    plug-in's lane hands the parent, about a hundred outcomes a list). False when any is not,
    and when a stat is a float beyond the int stats' bounds or an int past a float's range
    (both plain, decided by `_plain`): then each is tested on its own."""
    if not outcomes:
        return True
    (
        tasks, statuses, counts, flags, solutions, encodes, solves, walls, stats, messages,
        checks, verdicts, problems, _hosts, peaks, _texts,
    ) = zip(*outcomes, strict=True)  # fmt: skip
    if not (
        set(map(type, statuses)) == {Status}
        and set(map(type, counts)) == _INT
        and set(map(type, flags)) == {bool}
        and set(map(type, checks)) == {bool}
        and set(map(type, encodes)) | set(map(type, solves)) | set(map(type, walls)) == _FLOAT
        and set(map(type, solutions)) == {tuple}
        and set(map(type, stats)) == {dict}
        and set(map(type, messages)) == _STR
        and set(map(type, verdicts)) == _STR
        and set(map(type, problems)) <= _PROBLEMS
        and set(map(type, peaks)) <= _PEAKS
    ):
        return False
    times = encodes + solves + walls
    if not (
        min(counts) >= 0
        and max(counts) <= _MAX_COUNT
        and all(map(math.isfinite, times))
        and min(times) >= 0.0
        and all(map(le, map(len, solutions), [max(t.limit, 0) for t in tasks]))
        and max(map(len, stats)) <= STATS_ENTRIES
        and max(map(len, messages)) <= MESSAGE_CHARS
        and max(map(len, verdicts)) <= 40
    ):
        return False
    given = [p for p in problems if p is not None]
    if given and max(map(len, given)) > MESSAGE_CHARS:
        return False
    measured = [p for p in peaks if p is not None]
    if measured and not (min(measured) >= 0 and max(measured) <= _MAX_COUNT):
        return False
    lines = list(itertools.chain.from_iterable(solutions))
    if lines and (set(map(type, lines)) != _STR or max(map(len, lines)) > ANSWER_CHARS):
        return False
    keys = list(itertools.chain.from_iterable(stats))
    if not keys:
        return True
    if set(map(type, keys)) != _STR or max(map(len, keys)) > STAT_KEY_CHARS:
        return False
    values = list(itertools.chain.from_iterable(map(dict.values, stats)))
    if not set(map(type, values)) <= _NUMBERS:  # (a bool is neither)
        return False
    try:  # (an int stat past a float's range: `_plain` decides it)
        finite = all(map(math.isfinite, values))
    except OverflowError:
        return False
    return finite and min(values) >= _MIN_COUNT and max(values) <= _MAX_COUNT


def _memory_ok(value: object) -> bool:
    """Whether a peak memory is None (not measured) or a plausible count of bytes."""
    return value is None or (type(value) is int and 0 <= value <= _MAX_COUNT)


#: What to do when a backend overruns its load limit (said with the error).
LOAD_HINT = (
    "a first compile can be done ahead with `sudokubench backends --warm`; "
    "SUDOKUBENCH_LOAD_TIMEOUT=SECONDS raises the limit"
)


def load_timeout() -> float:
    """Seconds a backend may take to load (`SUDOKUBENCH_LOAD_TIMEOUT`, default 60)."""
    try:
        value = float(os.environ.get("SUDOKUBENCH_LOAD_TIMEOUT", "60"))
    except ValueError:
        return 60.0
    return value if value > 0 else 60.0
