"""What a report says about trusting its numbers: the tasks that gave no answer (`Failures`),
the machine's noise (`noise_line`) and the warnings that say what to do next
(`run_warnings`: `--jobs` above 1, a loaded machine, too few samples, noisy repeats and pairs,
timeouts, tasks still missing)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sudokubench.harness.noise import load_warning
from sudokubench.harness.plan import CompareArgs
from sudokubench.harness.records import RunRow, RunStatus
from sudokubench.harness.report.summary import BackendSummary
from sudokubench.harness.stats import NOISE_LIMIT, jobs_warning, warnings_for
from sudokubench.harness.store import Store

__all__ = [
    "Failures",
    "format_seconds",
    "host_warnings",
    "noise_line",
    "noisy_pairs",
    "run_load_warning",
    "run_warnings",
]


def format_seconds(value: float | None) -> str:
    """A duration for people: `850 µs`, `12.3 ms`, `1.20 s`; `-` for none."""
    if value is None:
        return "-"
    if value < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1e3:.3g} ms"
    return f"{value:.3g} s"


class Failures(NamedTuple):
    """The tasks of one backend that gave no answer: errors, timeouts, and the distinct error
    messages kept (`tally.KEPT_MESSAGES` at most) with their counts, most frequent first;
    `unlisted` errors had a message past those (counted, not kept)."""

    errors: int
    timeouts: int
    messages: tuple[tuple[str, int], ...]
    unlisted: int = 0


#: Noisy pairs named in a warning, per backend (the per-task export has every sample).
SHOWN_NOISY = 3

#: Per backend with noisy pairs: (backend, noisy pairs, pairs with a spread, the worst
#: (spread, puzzle id), largest first): what `Tally.noisy` gives.
Noisy = tuple[str, int, int, Sequence[tuple[float, str]]]


def noisy_pairs(found: Sequence[Noisy]) -> list[str]:
    """A warning per backend whose repeats vary by more than `NOISE_LIMIT` on some pairs."""
    lines = []
    for backend, noisy, spreads, worst in found:
        named = ", ".join(f"{pid} {spread:.0%}" for spread, pid in worst[:SHOWN_NOISY])
        lines.append(
            f"{backend}: {noisy} of {spreads} pairs noisy (repeats vary by more "
            f"than {NOISE_LIMIT:.0%} IQR/median; worst: {named})"
        )
    return lines


def _on_dask(run: RunRow) -> bool:
    """Whether some of the run's tasks ran on a dask cluster (its load is not this machine's:
    the headline names the cluster)."""
    workers = run.machine.get("workers") or ()
    return any(isinstance(w, dict) and "scheduler" in w for w in workers)


def noise_line(run: RunRow, workers: tuple[float, float]) -> str | None:
    """What the machine and the run measured: load and CPU frequency at the start and end, the
    workers' CPU time while solving against the wall time (`workers`: the CPU and wall
    seconds of the tasks that measured their CPU), and the parent's. None if unknown."""
    measured = run.machine.get("noise")
    if not measured:
        return None

    def change(key: str, fmt: str) -> str:
        a, b = measured.get(f"{key}_start"), measured.get(f"{key}_end")
        return "?" if a is None or b is None else f"{a:{fmt}} -> {b:{fmt}}"

    workers_here = "tasks on dask" if _on_dask(run) else f"--jobs {run.args.get('jobs')}"
    parts = [
        f"load {change('load', '.2f')} ({run.machine.get('cpu_count')} cores, {workers_here})",
        f"CPU {change('cpu_mhz', '.0f')} MHz",
    ]
    cpu, wall = workers
    if wall > 0:
        share = f"{cpu / wall:.0%}"
        parts.append(
            f"workers {format_seconds(cpu)} CPU in {format_seconds(wall)} solving ({share})"
        )
    parts.append(
        f"parent {format_seconds(measured.get('parent_cpu_s'))} CPU in "
        f"{format_seconds(measured.get('wall_s'))}"
    )
    return "machine: " + "; ".join(parts)


def run_load_warning(run: RunRow, jobs: int) -> str | None:
    """`noise.load_warning` for the larger of the run's loads at its start and at its end
    (less its own workers), None when the machine was quiet enough or its load unknown."""
    measured = run.machine.get("noise", {})
    loads = [measured.get("load_start")]
    if measured.get("load_end") is not None:  # the run's own workers are in the end load
        loads.append(measured["load_end"] - jobs)
    load = max((x for x in loads if x is not None), default=None)
    return load_warning(load, run.machine.get("cpu_count"), jobs)


def run_warnings(
    store: Store,
    run: RunRow,
    args: CompareArgs,
    noisy: Sequence[Noisy],
    summary: Sequence[BackendSummary],
    planned: int,
    stored: int,
) -> tuple[str, ...]:
    """What to do about the run's numbers, and about tasks it is missing."""
    warnings = []
    if jobs := jobs_warning(args.jobs):
        warnings.append(jobs)
    if loaded := run_load_warning(run, args.jobs):
        warnings.append(loaded)
    for s in summary:
        warnings.extend(warnings_for(s.backend, s.times, timeouts=s.timeout))
    if args.repeat >= 3:
        warnings.extend(noisy_pairs(noisy))
    if planned > stored:
        missing = f"{planned - stored} of {planned} tasks"
        if run.status == RunStatus.RUNNING:
            warnings.append(
                f"run {run.id} is still running (or its compare was killed): {missing} are not "
                f"stored yet; if no compare runs it, complete it with "
                f"sudokubench compare --resume {run.id} --db {store.path}"
            )
        else:
            warnings.append(
                f"run {run.id} is {run.status} with {missing} missing: complete it with "
                f"sudokubench compare --resume {run.id} --db {store.path}"
            )
    return tuple(warnings)


def host_warnings(hosts: Sequence[tuple[str, set[str]]]) -> tuple[str, ...]:
    """A warning per backend whose measured samples ran on more than one host (`hosts`: each
    backend's hosts, as `Tally.host_sets` gives them)."""
    return tuple(
        f"{backend}: timings come from {len(names)} hosts ({', '.join(sorted(names))}): "
        "times measured on unlike machines are not comparable; run on one host to compare them"
        for backend, names in hosts
        if len(names) > 1
    )
