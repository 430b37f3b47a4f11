"""Timing statistics in the manner of pyperf and pytest-benchmark.

Samples are the worker's `wall_s` (`perf_counter` around the backend's `run`, the timed region
of the timing rule in `backend.timed_call`) of measured runs (`sample >= 0`); warm-ups
(negative samples) are stored but never enter a statistic. A (puzzle, backend) *pair* with
several samples (`--repeat K`) is timed by their median; a backend's time statistics are then
taken over the pairs it finished (solved or proved unsatisfiable): median, IQR (q3 - q1), p90,
max and total. Timeouts and errors are counted,
not timed: the cactus plot shows what they cost.

**Strict limits.** A task whose measured time (`wall_s`) exceeds its `--timeout` is a TIMEOUT
(`limited_status`), as in solver competitions: the kill grace only decides when a worker that
does not stop by itself is killed, never whether an answer came in time. `compare` stores such
a task as TIMEOUT with its raw time and its answer (still checked and cross-checked), and the
report applies the same rule to rows stored before. The PAR-k score (`par_score`, PAR-2 by
default) of a backend is the mean over its pairs of the time when finished within the limit,
else k times the limit (errors included); the *virtual best* takes, for each puzzle, the
fastest backend that finished it and was not blamed for a wrong answer.

The ratio against the baseline is the geometric mean of the per-puzzle time ratios over the
puzzles both finished, with a 95% interval from the spread of the log ratios: a `Ratio`
(`value`, `low`, `high`, `puzzles`; `ratio`, `ratio_low`, `ratio_high`, `ratio_puzzles` in
JSON); above 1 means slower than the baseline.

`warnings` say what to do next: too few timed samples, noisy repeats (median IQR/median of the
repeats above 0.2), timeouts, and `--jobs` above 1 (the workers share the CPU).
"""

from __future__ import annotations

import heapq
import itertools
import math
import statistics
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import NamedTuple

from sudokubench.backend import Status

__all__ = [
    "EFFORT_KEYS",
    "MIN_SAMPLES",
    "NOISE_LIMIT",
    "Pair",
    "TimeSummary",
    "effort_of",
    "geometric_ratio",
    "jobs_warning",
    "limited_status",
    "log_ratio",
    "par_score",
    "quantile",
    "summarize_times",
    "time_summary",
    "warnings_for",
]

#: Fewer timed pairs than this per backend triggers a warning.
MIN_SAMPLES = 5
#: Median IQR/median of the repeats of a pair above this is "noisy".
NOISE_LIMIT = 0.2
#: The stats keys that measure search effort, in order of preference.
EFFORT_KEYS = ("guesses", "nodes", "decisions", "conflicts", "backtracks")


def quantile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of sorted-or-not `values`, linear interpolation (numpy's default)."""
    data = sorted(values)
    if not data:
        raise ValueError("quantile of no values")
    return _sorted_quantile(data, q)


def _sorted_quantile(data: Sequence[float], q: float) -> float:
    pos = (len(data) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def effort_of(stats: Mapping[str, int | float]) -> tuple[str, float] | None:
    """The first effort measure a backend reports (`guesses`, then `nodes`, ...), if any."""
    for key in EFFORT_KEYS:
        if key in stats:
            return key, float(stats[key])
    return None


#: The statuses whose samples are timed.
FINISHED = frozenset((Status.SOLVED, Status.UNSATISFIABLE))


def limited_status(status: Status, wall_s: float, timeout: float) -> Status:
    """TIMEOUT for an answer that came after the limit, else `status` unchanged."""
    if status in FINISHED and wall_s > timeout:
        return Status.TIMEOUT
    return status


class Ratio(NamedTuple):
    """A geometric-mean time ratio over the puzzles both sides finished, with its 95% interval
    and the number of puzzles it rests on."""

    value: float
    low: float
    high: float
    puzzles: int


class Pair(NamedTuple):
    """One (puzzle, backend): its measured samples' times and what it did (a named tuple: a
    report makes one per puzzle and backend)."""

    puzzle_id: str
    backend: str
    status: Status
    times: tuple[float, ...]
    effort: tuple[str, float] | None = None

    @property
    def finished(self) -> bool:
        """Solved or proved unsatisfiable (so it has a time)."""
        return self.status in FINISHED and bool(self.times)

    @property
    def time(self) -> float:
        """The median of the samples."""
        times = self.times
        return times[0] if len(times) == 1 else statistics.median(times)

    @property
    def spread(self) -> float | None:
        """IQR/median of the repeats, None with fewer than two samples or a zero median."""
        if len(self.times) < 2:
            return None
        mid = self.time
        return (quantile(self.times, 0.75) - quantile(self.times, 0.25)) / mid if mid else None


@dataclass(frozen=True)
class TimeSummary:
    """Time statistics of one backend over the pairs it finished (seconds)."""

    timed: int
    median_s: float | None
    iqr_s: float | None
    p90_s: float | None
    max_s: float | None
    total_s: float
    effort_name: str | None
    median_effort: float | None
    noise: float | None

    def to_json(self) -> dict[str, object]:
        """Plain data for reports."""
        return asdict(self)


def summarize_times(pairs: Iterable[Pair]) -> TimeSummary:
    """Median, IQR, p90, max and total of the finished pairs' times, median effort, noise."""
    done = [p for p in pairs if p.finished]
    efforts = [p.effort for p in done if p.effort is not None]
    effort_name = efforts[0][0] if efforts else None
    return time_summary(
        [p.time for p in done],
        effort_name,
        [e for name, e in efforts if name == effort_name],
        [s for p in done if (s := p.spread) is not None],
    )


def time_summary(
    times: Sequence[float],
    effort_name: str | None,
    efforts: Sequence[float],
    spreads: Sequence[float],
) -> TimeSummary:
    """`summarize_times` of finished pairs given as their times, the first effort measure
    named, the efforts of that name and the spreads (in pair order): what a report computes
    from its compact columns."""
    if not times:
        return TimeSummary(0, None, None, None, None, 0.0, effort_name, None, None)
    data = sorted_array(times)
    return TimeSummary(
        timed=len(times),
        median_s=_sorted_median(data),
        iqr_s=_sorted_quantile(data, 0.75) - _sorted_quantile(data, 0.25),
        p90_s=_sorted_quantile(data, 0.9),
        max_s=data[-1],
        total_s=sum(times),
        effort_name=effort_name,
        median_effort=_sorted_median(sorted_array(efforts)) if efforts else None,
        noise=_sorted_median(sorted_array(spreads)) if spreads else None,
    )


#: Values `sorted_array` sorts as one list (2 MB of floats); more are sorted in runs and merged.
_RUN = 1 << 16


def sorted_array(values: Sequence[float]) -> array[float]:
    """`sorted(values)` as an array of doubles, 8 bytes a value: a list of a million floats
    would take 32 MB, so a long sequence is sorted in runs of `_RUN` and merged."""
    if len(values) <= _RUN:
        return array("d", sorted(values))
    runs = [array("d", sorted(values[i : i + _RUN])) for i in range(0, len(values), _RUN)]
    return array("d", heapq.merge(*runs))


def _sorted_median(data: Sequence[float]) -> float:
    """`statistics.median` of sorted `data` (the same arithmetic, without sorting again)."""
    n = len(data)
    if n % 2:
        return data[n // 2]
    return (data[n // 2 - 1] + data[n // 2]) / 2


def geometric_ratio(pairs: Sequence[Pair], baseline: Sequence[Pair]) -> Ratio | None:
    """Geometric mean of time / baseline time over puzzles both finished, 95% interval, n."""
    base = {p.puzzle_id: p.time for p in baseline if p.finished and p.time > 0}
    return log_ratio(
        [
            math.log(p.time / base[p.puzzle_id])
            for p in pairs
            if p.finished and p.time > 0 and p.puzzle_id in base
        ]
    )


def log_ratio(logs: Sequence[float]) -> Ratio | None:
    """The `Ratio` of per-puzzle log time ratios (`geometric_ratio`'s last step)."""
    if not logs:
        return None
    mean = statistics.fmean(logs)
    half = 1.96 * statistics.stdev(logs) / math.sqrt(len(logs)) if len(logs) > 1 else 0.0
    return Ratio(math.exp(mean), math.exp(mean - half), math.exp(mean + half), len(logs))


def par_score(finished: Sequence[float], unfinished: int, penalty: float) -> float | None:
    """Penalized average runtime over a backend's pairs: the mean of the times of those that
    finished within the limit and `penalty` (k x the limit) for each of the `unfinished`
    others; None for no pairs. (`math.fsum`: the same to the last bit in any order.)"""
    pairs = len(finished) + unfinished
    if not pairs:
        return None
    return math.fsum(itertools.chain(finished, itertools.repeat(penalty, unfinished))) / pairs


def warnings_for(backend: str, summary: TimeSummary, *, timeouts: int) -> list[str]:
    """What to do about this backend's numbers (empty when they look trustworthy)."""
    found = []
    if 0 < summary.timed < MIN_SAMPLES:
        found.append(
            f"{backend}: only {summary.timed} timed puzzle{'s' if summary.timed > 1 else ''}, "
            "the statistics are rough: "
            "use more puzzles or --repeat 5"
        )
    if summary.noise is not None and summary.noise > NOISE_LIMIT:
        found.append(
            f"{backend}: noisy timings (repeats vary by {summary.noise:.0%} IQR/median): "
            "use --repeat 5 or close other programs"
        )
    if timeouts:
        found.append(
            f"{backend}: {timeouts} timeout{'s are' if timeouts > 1 else ' is'} counted but not "
            "timed: "
            "raise --timeout to time them"
        )
    return found


def jobs_warning(jobs: int) -> str | None:
    """The warning for `--jobs` above 1, None otherwise."""
    if jobs <= 1:
        return None
    return (
        f"--jobs {jobs}: timings share the CPU with {jobs - 1} other worker(s): "
        "use --jobs 1 for timings you compare"
    )
