"""The one pass a report is made in: `Tally`, fed puzzle by puzzle (the puzzle, its stored rows
and its verdict), keeps only what the report needs, in compact columns, so a report's memory
does not grow with the tasks' rows.

- **Per backend, one `Column`**: an entry per puzzle of the run, in input order, holding the
  pair (puzzle, backend) as numbers: the status of its first measured sample (a small code,
  `NO_PAIR` when it has none), the median time of its finished samples, the spread of its
  repeats (only in a run with repeats), its effort, and flags (blamed for a wrong answer, a
  side of a disagreement). 19 bytes per pair (27 with repeats), where rows and `Pair` tuples
  took a kilobyte.
- **Per run**: each puzzle's collection (an index into the names), the failures (errors by
  message with their first task id, so that ties keep task order, at most `KEPT_MESSAGES`
  distinct texts per backend and a count of the tasks past them; and timeouts), the hosts of
  the measured samples, the workers' CPU and wall time, the noisy pairs (a count and the
  worst few), and the wrong answers and disagreements found (few, with their puzzle).

`compare` feeds it as each puzzle's last task comes in (in any order: an entry is written at
the puzzle's index), `report` from an ordered read of the database; both make the same report
(`Tally.summaries` computes what `stats.summarize_times` and `geometric_ratio` compute over
`Pair`s, in the same order, so the numbers are the same to the last bit).
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import reduce
from itertools import repeat
from operator import add, attrgetter, eq
from typing import Any

from sudokubench.backend import Status
from sudokubench.harness.pool.task import CPU_KEY, WAIT_KEY
from sudokubench.harness.records import PuzzleRow, TaskRow
from sudokubench.harness.report.caveats import SHOWN_NOISY
from sudokubench.harness.report.columns import (
    BLAMED,
    CODE,
    DISAGREES,
    DISPUTED,
    NO_PAIR,
    Acc,
    Column,
    resize_array,
)
from sudokubench.harness.report.summary import BackendSummary, pairs_of
from sudokubench.harness.stats import (
    EFFORT_KEYS,
    FINISHED,
    NOISE_LIMIT,
    effort_of,
    limited_status,
)
from sudokubench.harness.verify import Problem, PuzzleVerdict

__all__ = ["KEPT_MESSAGES", "NO_PAIR", "Column", "Tally"]

#: A status's code in a `Column` by its text (a columnar message's, `pool.batch`).
_CODE_OF_TEXT = {str(s.value): code for s, code in CODE.items()}
#: A puzzle's collection (`PuzzleRow.collection`), read in C.
_COLLECTION = attrgetter("collection")
#: The byte of a row with no effort in a columnar message (`pool.batch.NO_EFFORT`).
_NO_EFFORT = 255

#: Distinct error messages a report keeps per backend: a task whose message is not among the
#: first this many is counted, its text left in the database (the per-task export has it), so
#: a plug-in that fails every task in a new way cannot grow the parent's memory.
KEPT_MESSAGES = 100


class _Noise:
    """A backend's pairs with a spread: how many, how many noisy, the worst few."""

    def __init__(self) -> None:
        self.spreads = 0
        self.noisy = 0
        self.worst: list[tuple[float, str]] = []  # a min-heap of the SHOWN_NOISY largest

    def add(self, spread: float, puzzle_id: str) -> None:
        self.spreads += 1
        if spread > NOISE_LIMIT:
            self.noisy += 1
            heapq.heappush(self.worst, (spread, puzzle_id))
            if len(self.worst) > SHOWN_NOISY:
                heapq.heappop(self.worst)


class Tally:
    """What a report needs from a run, accumulated puzzle by puzzle (the module docstring)."""

    def __init__(self, backends: Sequence[str], puzzles: int) -> None:
        self.backends = tuple(backends)
        self.puzzles = puzzles
        self.columns: dict[str, Column] = {b: Column(puzzles) for b in self.backends}
        self.collection: array[int] | None = None  # made when a second collection comes
        self.collection_names: dict[str, int] = {}
        self.stored = 0
        self.checked = 0
        self.disputed = 0
        self.problems: list[tuple[int, str, str, tuple[Problem, ...]]] = []
        self.errors: dict[str, dict[str, list[int]]] = {b: {} for b in self.backends}
        self.unlisted: Counter[str] = Counter()  # per backend, errors past KEPT_MESSAGES texts
        self.timeouts: Counter[str] = Counter()
        self.hosts: dict[str, tuple[int, set[str]]] = {}
        self.peak_memory: dict[str, int] = {}  # per backend, the most of its tasks
        self.cpu_s = 0.0
        self.cpu_wall_s = 0.0
        self.wait_s = 0.0  # seconds the workers waited for a CPU while solving
        self.wait_wall_s = 0.0  # the wall time of the tasks that measured it
        self.noise: dict[str, _Noise] = {}
        #: Per backend, the puzzles of a shape it does not take (never sent to it).
        self.skipped: Counter[str] = Counter()

    def resize(self, puzzles: int) -> None:
        """Hold exactly `puzzles` puzzles (a run still reading its input starts with a guess):
        entries past the new count are dropped, new ones are empty."""
        self.puzzles = puzzles
        for column in self.columns.values():
            column.resize(puzzles)
        if self.collection is not None:
            resize_array(self.collection, puzzles, 0)

    # -- feeding --------------------------------------------------------------------------------

    def register(self, i: int, puzzle: PuzzleRow, skipped: Sequence[str] = ()) -> None:
        """Note the i-th puzzle's collection (in input order: collections are listed in the
        order their first puzzle comes) and the backends that skip its shape."""
        if not 0 <= i < self.puzzles:
            raise IndexError(f"puzzle {i} of a run of {self.puzzles}")
        if skipped:
            self.skipped.update(skipped)
        names = self.collection_names
        code = names.get(puzzle.collection)
        if code is None:
            code = names[puzzle.collection] = len(names)
        if code and self.collection is None:  # every puzzle so far is in the first
            self.collection = array("i", [0]) * self.puzzles
        if self.collection is not None:
            self.collection[i] = code

    def register_many(self, first: int, puzzles: Sequence[PuzzleRow]) -> None:
        """`register` each of `puzzles`, the `first`-th puzzle and those after it, none with a
        backend that skips its shape: when every one is in the run's first collection (the
        usual input), in one step, nothing to note."""
        n = len(puzzles)
        if not n:
            return
        if first < 0 or first + n > self.puzzles:
            raise IndexError(f"puzzles {first}..{first + n - 1} of a run of {self.puzzles}")
        names = self.collection_names
        if not names:
            self.register(first, puzzles[0])
        if (
            self.collection is None
            and list(map(_COLLECTION, puzzles)).count(next(iter(names))) == n
        ):  # (each in collection 0, all the collection array could say: none made yet)
            return
        for i, puzzle in enumerate(puzzles, first):
            self.register(i, puzzle)

    def collection_code(self, i: int) -> int:
        """The i-th puzzle's collection (its index in `collection_names`)."""
        return 0 if self.collection is None else self.collection[i]

    def _collection_codes(self) -> array[int]:
        """Each puzzle's collection code, in input order."""
        if self.collection is None:
            return array("i", [0]) * self.puzzles
        return self.collection

    def collection_size(self, code: int) -> int:
        """How many puzzles the collection `code` holds."""
        if self.collection is None:
            return self.puzzles if code == 0 else 0
        return self.collection.count(code)

    def add(
        self,
        i: int,
        puzzle: PuzzleRow,
        rows: Sequence[TaskRow],
        verdict: PuzzleVerdict | None,
    ) -> None:
        """Take the i-th puzzle's rows (checked) and its verdict (None when not every task of
        the puzzle is in)."""
        if len(rows) == 1 and rows[0].sample >= 0:  # one measured row: the usual puzzle
            self._row(rows[0])
            self._singles(i, rows)
            if verdict is not None:
                self._verdict(i, puzzle, verdict)
            return
        for t in rows:
            self._row(t)
        measured = [t for t in rows if t.sample >= 0]
        if len(measured) == 1 or len({t.backend for t in measured}) == len(measured):
            self._singles(i, measured)  # one sample per backend: each row is its pair
        else:
            self._pairs(i, puzzle, rows)
        if verdict is not None:
            self._verdict(i, puzzle, verdict)

    def add_agreed(self, i: int, t: TaskRow) -> None:
        """`add` of the i-th puzzle's one measured row with the verdict `cross_check` gives a
        sound row when the input has no answer for the puzzle (agreed, no problem), without
        that verdict made: the usual puzzle of a one-backend run."""
        self._row(t)
        self._singles(i, (t,))
        self.checked += 1

    def add_agreed_many(self, agreed: Sequence[tuple[int, TaskRow]]) -> None:
        """`add_agreed` of each (i, row), in order, in one loop: what `_row` and `_singles`
        do to a sound, measured row, with the usual case (no error, no timeout, the host
        already known, no new peak) on a short path and the rest through `_row` itself.

        The rows are `to_row`'s, whose status is already the one under the strict limit, so
        `limited_status` gives it back unchanged and is not asked again here. One call a batch
        instead of two a row, and the columns' arrays looked up once a backend: a third of
        the tally's CPU on a one-backend run of 20,000 puzzles of 17clue."""
        columns = self.columns
        hosts = self.hosts
        peaks = self.peak_memory
        error, timeout = Status.ERROR, Status.TIMEOUT
        finished = FINISHED
        codes = CODE
        effort_keys = EFFORT_KEYS
        backend = None
        column = times = statuses = None
        cpu_s, cpu_wall_s, wait_s, wait_wall_s = (
            self.cpu_s,
            self.cpu_wall_s,
            self.wait_s,
            self.wait_wall_s,
        )
        for i, t in agreed:
            status = t.status
            if t.backend != backend:
                backend = t.backend
                column = columns.get(backend) or self._column(backend)
                times, statuses = column.time, column.status
            host, peak = t.host, t.peak_memory_bytes
            seen = hosts.get(backend) if host else None
            if (
                status is error
                or status is timeout
                or (host and (seen is None or host not in seen[1] or t.task_id < seen[0]))
                or (peak is not None and peak > peaks.get(backend, -1))
            ):
                self.cpu_s, self.cpu_wall_s, self.wait_s, self.wait_wall_s = (
                    cpu_s,
                    cpu_wall_s,
                    wait_s,
                    wait_wall_s,
                )
                self._row(t)
                cpu_s, cpu_wall_s, wait_s, wait_wall_s = (
                    self.cpu_s,
                    self.cpu_wall_s,
                    self.wait_s,
                    self.wait_wall_s,
                )
            else:
                self.stored += 1
                stats = t.stats
                cpu = stats.get(CPU_KEY)
                if cpu is not None:
                    cpu_s += float(cpu)
                    cpu_wall_s += t.wall_s
                wait = stats.get(WAIT_KEY)
                if wait is not None:
                    wait_s += float(wait)
                    wait_wall_s += t.wall_s
            statuses[i] = codes[status]  # type: ignore[index]
            if status in finished:
                times[i] = t.wall_s  # type: ignore[index]
            stats = t.stats
            for key in effort_keys:  # (`effort_of`, inline)
                if key in stats:
                    column.put_effort(i, (key, float(stats[key])))  # type: ignore[union-attr]
                    break
        self.cpu_s, self.cpu_wall_s, self.wait_s, self.wait_wall_s = (
            cpu_s,
            cpu_wall_s,
            wait_s,
            wait_wall_s,
        )
        self.checked += len(agreed)

    def add_columns(
        self,
        backend: str,
        indexes: list[int],
        statuses: list[str],
        walls: list[float],
        cpus: list[float | None],
        waits: list[float | None],
        kinds: bytes,
        efforts: list[float],
        peaks: list[int | None],
        host: str,
        times: array[float] | None = None,
        effort_times: array[float] | None = None,
        timed: bool = False,
    ) -> None:
        """`add_agreed` of the puzzles at `indexes`, each with one measured row of `backend`
        whose answer is sound and timed (solved or unsatisfiable within the limit), given as
        columns (a worker's columnar message, `pool.batch`: the effort's kind a byte, its
        place in `EFFORT_KEYS`, 255 and NaN for none; the row's task id is its puzzle's
        index, as in a run of one task a puzzle; every row ran on `host`; `times` and
        `effort_times`, when given, the walls and efforts as an `array("d")` already, copied
        as they are: `array("d", a_list)` parses each float; `timed`: every row's cpu and
        wait a float, none looked for): what `_row` and `_singles` do
        to each, a column at a time. The sums are added in the rows' order
        (`reduce`), so they are the same to the last bit as row by row."""
        n = len(indexes)
        column = self.columns.get(backend) or self._column(backend)
        self.stored += n
        self.checked += n
        if host:  # (`_row`: the least task id of a measured sample on each host)
            seen = self.hosts.get(backend)
            first = min(indexes)
            if seen is None or host not in seen[1] or first < seen[0]:
                self._host(backend, first, host)
        if peaks.count(peaks[0]) == n:  # (the usual batch: one peak, or none measured)
            known = [] if peaks[0] is None else peaks[:1]
        else:
            known = [p for p in peaks if p is not None]
        if known and (peak := max(known)) > self.peak_memory.get(backend, -1):
            self.peak_memory[backend] = peak
        if timed:  # (every row's cpu and wait: both wall sums take every wall)
            self.cpu_s = reduce(add, cpus, self.cpu_s)
            self.wait_s = reduce(add, waits, self.wait_s)
            if self.cpu_wall_s == self.wait_wall_s:  # (the usual run: one sum, the same bits)
                self.cpu_wall_s = self.wait_wall_s = reduce(add, walls, self.cpu_wall_s)
            else:
                self.cpu_wall_s = reduce(add, walls, self.cpu_wall_s)
                self.wait_wall_s = reduce(add, walls, self.wait_wall_s)
        else:
            self._add_measured(cpus, waits, walls)
        if statuses.count(statuses[0]) == n:  # (the usual batch: one status)
            codes = array("b", [_CODE_OF_TEXT[statuses[0]]]) * n
        else:
            codes = array("b", map(_CODE_OF_TEXT.__getitem__, statuses))
        start = indexes[0]
        if indexes == list(range(start, start + n)):  # (in a row: a slice of each array)
            end = start + n
            column.status[start:end] = codes
            column.time[start:end] = array("d", walls) if times is None else times
            column.effort_kind[start:end] = array("b", kinds)  # (255 is read as -1: none)
            column.effort[start:end] = array("d", efforts) if effort_times is None else effort_times
            return
        for i, code, wall, kind, effort in zip(indexes, codes, walls, kinds, efforts, strict=True):
            column.status[i] = code
            column.time[i] = wall
            if kind != _NO_EFFORT:
                column.effort_kind[i] = kind
                column.effort[i] = effort

    def _add_measured(
        self, cpus: list[float | None], waits: list[float | None], walls: list[float]
    ) -> None:
        """`add_columns`' CPU and wait sums of rows where some may not have measured them."""
        if None not in cpus:
            self.cpu_s = reduce(add, cpus, self.cpu_s)
            self.cpu_wall_s = reduce(add, walls, self.cpu_wall_s)
        else:
            for cpu, wall in zip(cpus, walls, strict=True):
                if cpu is not None:
                    self.cpu_s += cpu
                    self.cpu_wall_s += wall
        if None not in waits:
            self.wait_s = reduce(add, waits, self.wait_s)
            self.wait_wall_s = reduce(add, walls, self.wait_wall_s)
        else:
            for wait, wall in zip(waits, walls, strict=True):
                if wait is not None:
                    self.wait_s += wait
                    self.wait_wall_s += wall

    def _column(self, backend: str) -> Column:
        column = self.columns.get(backend)
        if column is None:
            column = self.columns[backend] = Column(self.puzzles)
        return column

    def _singles(self, i: int, rows: Sequence[TaskRow]) -> None:
        """`_pairs` for rows that are each a pair of their own (what `pairs_of` makes of
        them: the status under the limit, the time if finished, the effort; no spread)."""
        for t in rows:
            column = self.columns.get(t.backend) or self._column(t.backend)
            status = limited_status(t.status, t.wall_s, t.timeout)
            column.status[i] = CODE[status]
            if status in FINISHED:
                column.time[i] = t.wall_s
            if (effort := effort_of(t.stats)) is not None:
                column.put_effort(i, effort)

    def _pairs(self, i: int, puzzle: PuzzleRow, rows: Sequence[TaskRow]) -> None:
        for backend, pairs in pairs_of(rows).items():
            column = self._column(backend)
            for pair in pairs:
                column.put(i, pair)
                if pair.finished and (spread := pair.spread) is not None:
                    self.noise.setdefault(backend, _Noise()).add(spread, puzzle.puzzle_id)

    def _row(self, t: TaskRow) -> None:
        self.stored += 1
        if t.status == Status.ERROR:
            messages = self.errors.setdefault(t.backend, {})
            message = t.message or "(no message)"
            seen = messages.get(message)
            if seen is not None:
                seen[0] += 1
                seen[1] = min(seen[1], t.task_id)
            elif len(messages) < KEPT_MESSAGES:
                messages[message] = [1, t.task_id]
            else:
                self.unlisted[t.backend] += 1
        elif t.status == Status.TIMEOUT:
            self.timeouts[t.backend] += 1
        if t.sample >= 0 and (host := t.host):
            seen = self.hosts.get(t.backend)  # (the same host on almost every row: kept)
            if seen is None or host not in seen[1] or t.task_id < seen[0]:
                self._host(t.backend, t.task_id, host)
        peak = t.peak_memory_bytes
        if peak is not None and peak > self.peak_memory.get(t.backend, -1):
            self.peak_memory[t.backend] = peak
        cpu = t.stats.get(CPU_KEY)
        if cpu is not None:
            self.cpu_s += float(cpu)
            self.cpu_wall_s += t.wall_s
        wait = t.stats.get(WAIT_KEY)
        if wait is not None:
            self.wait_s += float(wait)
            self.wait_wall_s += t.wall_s

    def _host(self, backend: str, task_id: int, host: str) -> None:
        """Note the host of a measured sample of `backend`."""
        seen = self.hosts.get(backend)
        if seen is None:
            self.hosts[backend] = (task_id, {host})
        else:  # (the same host on almost every row: nothing new is made for it)
            seen[1].add(host)
            if task_id < seen[0]:
                self.hosts[backend] = (task_id, seen[1])

    def _verdict(self, i: int, puzzle: PuzzleRow, verdict: PuzzleVerdict) -> None:
        self.checked += 1
        self.disputed += not verdict.agreed
        if not verdict.problems:
            return
        self.problems.append((i, puzzle.puzzle_id, puzzle.puzzle, verdict.problems))
        for name in verdict.blamed:
            if (column := self.columns.get(name)) is not None:
                column.flags[i] |= BLAMED
        for problem in verdict.problems:
            if problem.kind == "disagree":
                sides = {n for _, names in problem.sides for n in names}
                # No one blamed: no side is the consensus, so none counts as finished.
                flag = DISAGREES if verdict.blamed else DISAGREES | DISPUTED
                for name in sides:
                    if (column := self.columns.get(name)) is not None:
                        column.flags[i] |= flag

    # -- reading --------------------------------------------------------------------------------

    def ordered_problems(self) -> list[tuple[str, str, Problem]]:
        """(puzzle id, puzzle, problem) of every wrong answer and disagreement, in input order."""
        return [
            (puzzle_id, puzzle, problem)
            for _, puzzle_id, puzzle, problems in sorted(self.problems, key=lambda x: x[0])
            for problem in problems
        ]

    def failures(self) -> dict[str, tuple[int, int, tuple[tuple[str, int], ...], int]]:
        """Per backend (the run's, then others with errors): errors, timeouts, the distinct
        messages kept, most frequent first (ties in task order), and the errors whose message
        was not kept."""
        found = {}
        for backend, messages in self.errors.items():
            ordered = sorted(messages.items(), key=lambda m: (-m[1][0], m[1][1]))
            unlisted = self.unlisted[backend]
            found[backend] = (
                sum(n for n, _ in messages.values()) + unlisted,
                self.timeouts[backend],
                tuple((message, n) for message, (n, _) in ordered),
                unlisted,
            )
        return found

    def host_sets(self) -> list[tuple[str, set[str]]]:
        """Each backend's hosts of measured samples, backends in task order."""
        return [(b, names) for b, (_, names) in sorted(self.hosts.items(), key=lambda x: x[1][0])]

    def noisy(self, backends: Sequence[str]) -> list[tuple[str, int, int, list[tuple[float, str]]]]:
        """Per backend with noisy pairs: (backend, noisy, pairs with a spread, the worst)."""
        found = []
        for backend in backends:
            noise = self.noise.get(backend)
            if noise is not None and noise.noisy:
                found.append(
                    (backend, noise.noisy, noise.spreads, sorted(noise.worst, reverse=True))
                )
        return found

    def virtual_best(self) -> Column:
        """Per puzzle with a pair, the fastest pair that finished (never one counted wrong:
        `Column.finished`), backends in their first-pair order, the first of equal times; else
        a TIMEOUT with no time."""
        best = Column(self.puzzles)
        columns = list(self.columns.values())
        timeout = CODE[Status.TIMEOUT]
        for i in range(self.puzzles):
            held: Column | None = None
            seen = False
            for column in columns:
                if column.status[i] == NO_PAIR:
                    continue
                seen = True
                if column.finished(i) and (held is None or column.time[i] < held.time[i]):
                    held = column
            if held is not None:
                best.status[i] = held.status[i]
                best.time[i] = held.time[i]
                best.effort[i] = held.effort[i]
                best.effort_kind[i] = held.effort_kind[i]
            elif seen:
                best.status[i] = timeout
        return best

    def summaries(
        self,
        names: Sequence[str],
        columns: dict[str, Column],
        baseline: str | None,
        versions: dict[str, Any],
        *,
        timeout: float,
        par: float,
        per_collection: bool = True,
    ) -> tuple[tuple[BackendSummary, ...], dict[str, tuple[BackendSummary, ...]]]:
        """One BackendSummary per name over the whole run, and per collection (when asked and
        the run has more than one): what `summary.summaries` computes from `Pair`s."""
        per_collection = per_collection and len(self.collection_names) > 1
        groups = len(self.collection_names) if per_collection else 0
        base = columns.get(baseline or "")
        whole: list[BackendSummary] = []
        split: list[list[BackendSummary]] = [[] for _ in range(groups)]
        empty = Column(0)
        for name in names:
            column = columns.get(name, empty)
            accs = [Acc() for _ in range(groups + 1)]
            ratio_base = None if name == baseline else base
            accs[0].add_column(column, ratio_base)  # (a column at a time)
            for code in range(groups):  # (each collection's puzzles, a mask)
                chosen = bytes(map(eq, self._collection_codes(), repeat(code)))
                accs[1 + code].add_column(column, ratio_base, chosen)
            made = [
                acc.summary(name, versions.get(name), ratio_base is not None, timeout * par)
                for acc in accs
            ]
            whole.append(replace(made[0], peak_memory_bytes=self.peak_memory.get(name)))
            for group, summary in zip(split, made[1:], strict=True):
                group.append(summary)
        collections = {
            name: tuple(split[code]) for name, code in self.collection_names.items() if groups
        }
        return tuple(whole), collections
