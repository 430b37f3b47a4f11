"""The compact columns a `Tally` (`report/tally.py`) keeps: `Column`, one backend's (puzzle,
backend) pairs as numbers in arrays (an entry per puzzle of the run, in input order: status
code, median time, spread of the repeats, effort, flags), and `Acc`, which gathers one
backend's statistics over a set of puzzles from its column, as `stats.summarize_times` and
`geometric_ratio` compute them over `Pair`s, in the same order (so the numbers are the same to
the last bit), and its PAR score with `stats.par_score`.

A pair counted wrong (`WRONG`: blamed for a wrong answer, or a side of a disagreement nobody
could be blamed for) has not finished, whatever its status says: it is not solved, not timed,
scores the PAR penalty, and enters no ratio, plot or virtual best. A wrong answer is never
fast, as in solver competitions.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator
from itertools import compress, repeat
from operator import and_, eq, gt, mul, ne, not_, truediv, truth

from sudokubench.backend import Status
from sudokubench.harness.report.summary import BackendSummary
from sudokubench.harness.stats import (
    EFFORT_KEYS,
    FINISHED,
    Pair,
    Ratio,
    log_ratio,
    par_score,
    time_summary,
)

__all__ = [
    "BLAMED",
    "CODE",
    "DISAGREES",
    "DISPUTED",
    "NO_PAIR",
    "STATUSES",
    "WRONG",
    "Acc",
    "Column",
    "resize_array",
]

#: The status code of a puzzle a backend has no measured sample of.
NO_PAIR = -1
STATUSES = tuple(Status)
CODE = {s: i for i, s in enumerate(STATUSES)}
_FINISHED = frozenset(CODE[s] for s in FINISHED)
_EFFORT = {name: i for i, name in enumerate(EFFORT_KEYS)}
#: Flags of a pair: blamed for a wrong answer; a side of a disagreement; a side of a
#: disagreement in which no side was blamed (its answer cannot be trusted either).
BLAMED, DISAGREES, DISPUTED = 1, 2, 4
#: The flags that make a pair count as wrong, never as finished.
WRONG = BLAMED | DISPUTED
_NAN = float("nan")


def resize_array(values: array, n: int, empty: float) -> None:  # type: ignore[type-arg]
    """Make an array `n` long, in place: cut, or filled up with `empty`."""
    if len(values) > n:
        del values[n:]
    else:
        values.extend(array(values.typecode, [empty]) * (n - len(values)))


class Column:
    """One backend's (puzzle, backend) pairs: an entry per puzzle of the run, in input order."""

    __slots__ = ("effort", "effort_kind", "flags", "spread", "status", "time")

    def __init__(self, n: int) -> None:
        self.status = array("b", [NO_PAIR]) * n
        self.time = array("d", [_NAN]) * n
        self.spread: array[float] | None = None  # made when a pair has repeats
        self.effort = array("d", [_NAN]) * n
        self.effort_kind = array("b", [-1]) * n
        self.flags = array("b", [0]) * n

    def resize(self, n: int) -> None:
        """Hold exactly `n` puzzles: entries past `n` dropped, new ones empty."""
        for name, empty in (
            ("status", NO_PAIR), ("time", _NAN), ("spread", _NAN), ("effort", _NAN),
            ("effort_kind", -1), ("flags", 0),
        ):  # fmt: skip
            column = getattr(self, name)
            if column is not None:
                resize_array(column, n, empty)

    def put(self, i: int, pair: Pair) -> None:
        """Record the pair of the i-th puzzle."""
        self.status[i] = CODE[pair.status]
        if pair.times:
            self.time[i] = pair.time
            if (spread := pair.spread) is not None:
                if self.spread is None:
                    self.spread = array("d", [_NAN]) * len(self.status)
                self.spread[i] = spread
        self.put_effort(i, pair.effort)

    def put_effort(self, i: int, effort: tuple[str, float] | None) -> None:
        """Record the effort (`stats.effort_of`) of the i-th puzzle's pair, if any."""
        if effort is not None:
            self.effort_kind[i] = _EFFORT.get(effort[0], -1)
            self.effort[i] = effort[1]

    def has(self, i: int) -> bool:
        """Whether the i-th puzzle has a pair."""
        return self.status[i] != NO_PAIR

    def finished(self, i: int) -> bool:
        """`Pair.finished` of the i-th puzzle's pair, and its answer not counted wrong."""
        return (
            self.status[i] in _FINISHED
            and not math.isnan(self.time[i])
            and not self.flags[i] & WRONG
        )

    def wrong(self, i: int) -> bool:
        """Whether the i-th puzzle's pair counts as wrong (`WRONG`, the module docstring)."""
        return bool(self.flags[i] & WRONG)

    def pair(self, i: int, puzzle_id: str, backend: str) -> Pair:
        """The i-th puzzle's pair as a `Pair` (one time: the median of its samples; none when
        it counts as wrong, so that it is never finished)."""
        kind = self.effort_kind[i]
        effort = None if kind < 0 else (EFFORT_KEYS[kind], self.effort[i])
        time = self.time[i]
        times = () if math.isnan(time) or self.flags[i] & WRONG else (time,)
        return Pair(puzzle_id, backend, STATUSES[self.status[i]], times, effort)

    def finished_times(self) -> Iterator[tuple[int, float]]:
        """(index, time) of every finished pair (none counted wrong), in input order."""
        flags = self.flags
        for i, code in enumerate(self.status):
            if code in _FINISHED and not math.isnan(t := self.time[i]) and not flags[i] & WRONG:
                yield i, t


class Acc:
    """One backend's numbers over a set of puzzles, gathered in input order (in arrays: 8 bytes
    a number, where a list of floats takes 32)."""

    def __init__(self) -> None:
        self.pairs = 0
        self.by_status = [0] * len(STATUSES)
        self.wrong = 0
        self.disagree = 0
        self.times = array("d")
        self.effort_kind = -1  # the first effort measure met; only its values are kept
        self.efforts = array("d")
        self.spreads = array("d")
        self.logs = array("d")

    def add(self, column: Column, base: Column | None, i: int) -> None:
        self.pairs += 1
        flags = column.flags[i]
        code = column.status[i]
        if not (flags & WRONG and code in _FINISHED):  # a wrong answer is neither solved nor unsat
            self.by_status[code] += 1
        self.wrong += bool(flags & WRONG)
        self.disagree += bool(flags & DISAGREES)
        if not column.finished(i):
            return
        time = column.time[i]
        self.times.append(time)
        if (kind := column.effort_kind[i]) >= 0:
            if self.effort_kind < 0:
                self.effort_kind = kind
            if kind == self.effort_kind:
                self.efforts.append(column.effort[i])
        if column.spread is not None and not math.isnan(spread := column.spread[i]):
            self.spreads.append(spread)
        if base is not None and time > 0 and base.finished(i) and base.time[i] > 0:
            self.logs.append(math.log(time / base.time[i]))

    def add_column(self, column: Column, base: Column | None, chosen: bytes | None = None) -> None:
        """`add` of every pair of `column`, in input order, of the puzzles `chosen` marks (a
        byte a puzzle, nonzero: taken; None: all), a column at a time. The same numbers as
        `add` pair by pair, to the last bit (the same values in the same order; the ratio's
        logs the same `log(time / base)`).

        Every step is C's: counts with `array.count`, and when every pair is taken and
        finished (the usual column), its times and efforts copied as whole arrays; else
        masks, a byte a puzzle, made and applied with `map` and `compress`. A Python loop
        runs only over the flagged pairs (few: wrong answers, disagreements)."""
        status = column.status
        n = len(status)
        if chosen is None and not _count(status, NO_PAIR):
            has = None  # (every puzzle: no mask)
            codes: Iterable[int] = status
            pairs = n
        else:
            has = bytes(map(ne, status, repeat(NO_PAIR, n)))
            if chosen is not None:
                has = bytes(map(and_, has, map(truth, chosen)))  # (0 or 1 each)
            codes = array("b", compress(status, has))
            pairs = len(codes)
        if not pairs:
            return
        self.pairs += pairs
        by_status = self.by_status
        for code in range(len(STATUSES)):
            by_status[code] += _count(codes, code)  # type: ignore[arg-type]
        flags = column.flags
        flagged = _count(flags, 0) != n
        if flagged:  # (some pair is wrong or disagrees: those few one by one)
            finished_codes = _FINISHED
            picked = flags if has is None else bytes(map(mul, flags, has))  # (has: 0 or 1)
            for i in compress(range(n), picked):
                flag, code = flags[i], status[i]
                if flag & WRONG:
                    self.wrong += 1
                    if code in finished_codes:  # (a wrong answer is neither solved nor unsat)
                        by_status[code] -= 1
                if flag & DISAGREES:
                    self.disagree += 1
        times = column.time
        done = _finished(column, has, flagged)
        self.times.extend(times if done is None else array("d", compress(times, done)))
        kinds = column.effort_kind
        if self.effort_kind < 0 and _count(kinds, -1) != n:
            found = kinds if done is None else compress(kinds, done)
            self.effort_kind = next((k for k in found if k >= 0), -1)
        if (kind := self.effort_kind) >= 0:
            if done is None and _count(kinds, kind) == n:
                self.efforts.extend(column.effort)
            else:
                same = map(eq, kinds, repeat(kind, n))
                if done is not None:
                    same = map(and_, done, same)
                self.efforts.extend(compress(column.effort, same))
        if (spreads := column.spread) is not None:
            measured = map(eq, spreads, spreads)  # (NaN is not itself: no spread)
            if done is not None:
                measured = map(and_, done, measured)
            self.spreads.extend(compress(spreads, measured))
        if base is not None:
            base_done = _finished(base, None, _count(base.flags, 0) != len(base.status))
            base_times = base.time
            if (
                done is None
                and base_done is None
                and len(base_times) == n
                and min(times, default=1.0) > 0
                and min(base_times, default=1.0) > 0
            ):  # (every pair and its base finished, in time > 0)
                self.logs.extend(map(math.log, map(truediv, times, base_times)))
                return
            zero = repeat(0.0)
            both = map(gt, times, zero)
            if done is not None:
                both = map(and_, done, both)
            both = map(and_, both, map(gt, base_times, zero))
            if base_done is not None:
                both = map(and_, both, base_done)
            mask = bytes(both)
            self.logs.extend(
                map(math.log, map(truediv, compress(times, mask), compress(base_times, mask)))
            )

    def summary(
        self, name: str, version: str | None, with_ratio: bool, penalty: float
    ) -> BackendSummary:
        ratio: Ratio | None = log_ratio(self.logs) if with_ratio else None
        unfinished = self.pairs - len(self.times)
        effort_name = EFFORT_KEYS[self.effort_kind] if self.effort_kind >= 0 else None
        return BackendSummary(
            backend=name,
            version=version,
            puzzles=self.pairs,
            solved=self.by_status[CODE[Status.SOLVED]],
            unsatisfiable=self.by_status[CODE[Status.UNSATISFIABLE]],
            timeout=self.by_status[CODE[Status.TIMEOUT]],
            error=self.by_status[CODE[Status.ERROR]],
            wrong=self.wrong,
            disagree=self.disagree,
            times=time_summary(self.times, effort_name, self.efforts, self.spreads),
            ratio=ratio,
            par_s=par_score(self.times, unfinished, penalty),
        )


def _count(values: array, value: int) -> int:  # type: ignore[type-arg]
    """`values.count(value)` of an array of bytes ("b"), at C's speed (`bytes.count` of one
    byte, where `array.count` makes and compares an object an entry)."""
    return values.tobytes().count(value & 0xFF)


def _finished(column: Column, has: bytes | None, flagged: bool) -> bytes | None:
    """A byte a puzzle: 1 where `column.finished(i)` (and `has`, when given), else 0; None
    when every puzzle is (`has` None, every status finished, no time NaN, no flag), found by
    counts. `flagged`: some flag of the column is set."""
    status, times = column.status, column.time
    n = len(status)
    if has is None and not flagged and sum(_count(status, code) for code in _FINISHED) == n:
        total = sum(times)  # (NaN when a time is: then the masks; inf - inf too, no matter)
        if total == total:
            return None
    done = map(and_, map(_FINISHED.__contains__, status), map(eq, times, times))
    if flagged:
        done = map(and_, done, map(not_, map(and_, column.flags, repeat(WRONG))))
    if has is not None:
        done = map(and_, done, has)
    return bytes(done)
