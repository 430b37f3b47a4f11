"""Two runs side by side: `report NEW --against OLD`, and the gate a CI job can use.

- **Pairing.** A puzzle is the same in both runs when its identity is: the name of its source
  (a collection's, a file's without folder or suffix, `stdin`), its text, and which occurrence
  of that text in that source it is. So runs of `top95` pair whether their ids count puzzles
  (`top95:7`) or, stored by an older sudokubench, lines (`top95.txt:7`), and runs of one file
  name read from two folders pair. Duplicates (one grid on two lines, or in two files) stay
  apart, each paired with itself, never merged; only puzzles and backends both runs have are
  compared.
- **What differs** (`run_differences`): the puzzle sets, backends, limit, timeout, repeats,
  warm-ups, jobs, the machine (platform, CPUs, Python, sudokubench and each backend's version)
  and the load measured at the start. Every difference is stated above the comparison; with
  no puzzle or no backend in common there is nothing to compare (`RunsDiffer`).
- **The change** (`compare_runs`), per common backend over the common puzzles: finished counts,
  wrong answers, medians, and the geometric mean of the per-puzzle time ratios new/old with its
  95% interval (`stats.geometric_ratio`).
- **Each run's own warnings** are repeated above the comparison, named by run (noise, load,
  too few puzzles, tasks missing).
- **The gate** (`slower_backends`): a backend got slower by more than PCT percent when its
  whole interval lies above 1 + PCT/100, the way pytest-benchmark's
  `--benchmark-compare-fail` fails a job; `report --fail-slower PCT` then exits 4. The
  interval says how much the puzzles' ratios vary, not how much the machine did: two runs of
  the same code minutes apart, both on a loaded machine, gave "1.75x [1.40-2.19]". So the
  gate judges only runs it can trust (`gate_refusals`): complete, with nothing missing, taken
  on a machine whose load left the workers their CPUs (the load at the start and end, and
  the time the workers waited for a CPU while solving, at most `WAIT_SHARE` of it: a
  backend that sleeps or waits for a program does not count as waiting), and with
  at least `MIN_SAMPLES` puzzles timed by both runs for every backend; otherwise
  `report --fail-slower` says why and exits 2, never 4.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Sequence
from typing import Any

from sudokubench.errors import ArgumentError
from sudokubench.harness.records import RunStatus
from sudokubench.harness.report.caveats import run_load_warning
from sudokubench.harness.report.lines import PLAIN_CSS, html_table, md, md_table
from sudokubench.harness.report.model import RunReport, format_seconds
from sudokubench.harness.stats import MIN_SAMPLES, Pair, geometric_ratio, summarize_times
from sudokubench.output import csv_row, finite_json

__all__ = [
    "EXIT_SLOWER",
    "RunsDiffer",
    "compare_runs",
    "gate_refusals",
    "render_against",
    "run_differences",
    "slower_backends",
]

#: The exit code of `report --against OLD --fail-slower PCT` when a backend got slower.
EXIT_SLOWER = 4

#: The run arguments whose difference is stated.
_ARGS = ("limit", "timeout", "repeat", "warmup", "warm_up", "jobs", "box")
#: The machine fields whose difference is stated.
_MACHINE = (
    "platform",
    "machine",
    "processor",
    "cpu_count",
    "python",
    "implementation",
    "sudokubench",
)
#: Start loads further apart than this are stated.
_LOAD_GAP = 1.0
#: Most of their solving time the workers may have waited for a CPU (taken by other
#: programs) for the gate to trust a run's timings (sharing a core with one busy program,
#: a worker waits about half of it).
WAIT_SHARE = 0.1


class RunsDiffer(ArgumentError):
    """Two runs with no puzzle or no backend in common: nothing to compare."""


Identity = tuple[str, str, str]


def _source(puzzle_id: str) -> str:
    """The name of a puzzle's source in its id: `top95` of `top95:7`, of `top95.txt:7` (an
    older id) and of `data/top95.txt:7`."""
    head = puzzle_id.rpartition(":")[0] or puzzle_id
    name = head.replace("\\", "/").rpartition("/")[2]
    return name.removesuffix(".gz").removesuffix(".csv").removesuffix(".txt")


def _identities(report: RunReport) -> dict[str, Identity]:
    """Each puzzle id of a run with its identity (source, text, occurrence of that text in
    that source: 1 for the first)."""
    seen: dict[tuple[str, str], int] = {}
    found = {}
    for p in report.puzzles:
        key = (_source(p.puzzle_id), p.puzzle)
        seen[key] = seen.get(key, 0) + 1
        found[p.puzzle_id] = (*key, str(seen[key]))
    return found


def _common(old: RunReport, new: RunReport) -> tuple[set[Identity], list[str]]:
    """The puzzle identities and the backends (in the new run's order) both runs have."""
    puzzles = set(_identities(old).values()) & set(_identities(new).values())
    backends = [b for b in new.backends if b in old.backends]
    return puzzles, backends


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run_differences(old: RunReport, new: RunReport) -> list[str]:
    """What differs between the runs, one phrase each (empty when they match)."""
    found = []
    a, b = set(_identities(old).values()), set(_identities(new).values())
    if a != b:
        found.append(
            f"puzzles: {len(a & b)} in common, {len(a - b)} only in run {old.run.id}, "
            f"{len(b - a)} only in run {new.run.id}"
        )
    gone = [x for x in old.backends if x not in new.backends]
    added = [x for x in new.backends if x not in old.backends]
    if gone or added:
        found.append(
            f"backends: only in run {old.run.id}: {', '.join(gone) or '-'}; "
            f"only in run {new.run.id}: {', '.join(added) or '-'}"
        )
    for key in _ARGS:
        x, y = old.run.args.get(key), new.run.args.get(key)
        if x != y:
            found.append(f"{key}: {x} -> {y}")
    for key in _MACHINE:
        x, y = old.run.machine.get(key), new.run.machine.get(key)
        if x != y:
            found.append(f"machine {key}: {x} -> {y}")
    versions = (old.run.machine.get("backends", {}), new.run.machine.get("backends", {}))
    for backend in new.backends:
        if backend in old.backends and versions[0].get(backend) != versions[1].get(backend):
            found.append(
                f"{backend} version: {versions[0].get(backend)} -> {versions[1].get(backend)}"
            )
    loads = [r.run.machine.get("noise", {}).get("load_start") for r in (old, new)]
    if None not in loads and abs(loads[0] - loads[1]) > _LOAD_GAP:
        found.append(f"load at the start: {loads[0]:.2f} -> {loads[1]:.2f}")
    return found


def _keyed(report: RunReport, backend: str, common: set[Identity]) -> list[Pair]:
    """The backend's pairs on the common puzzles, keyed by identity (as one string)."""
    ids = _identities(report)
    return [
        p._replace(puzzle_id="\n".join(ids[p.puzzle_id]))
        for p in report.pairs.get(backend, [])
        if ids.get(p.puzzle_id) in common
    ]


def _wrong(report: RunReport, backend: str, common: set[Identity]) -> int:
    ids = _identities(report)
    return sum(
        1
        for pid, verdict in report.verdicts.items()
        if ids.get(pid) in common and backend in verdict.blamed
    )


def compare_runs(old: RunReport, new: RunReport) -> list[dict[str, Any]]:
    """Per backend both runs have, over the puzzles both have (by identity): finished counts,
    wrong answers, medians, and the geometric-mean time ratio new/old over the puzzles both
    finished. Raises `RunsDiffer` when the runs have no puzzle or no backend in common."""
    common, backends = _common(old, new)
    if not common or not backends:
        what = "puzzle" if not common else "backend"
        raise RunsDiffer(
            f"runs {old.run.id} and {new.run.id} have no {what} in common: nothing to compare"
        )
    rows = []
    for backend in backends:
        before, after = _keyed(old, backend, common), _keyed(new, backend, common)
        ratio = geometric_ratio(after, before)
        rows.append(
            {
                "backend": backend,
                "puzzles": len(common),
                "finished_old": sum(p.finished for p in before),
                "finished_new": sum(p.finished for p in after),
                "wrong_old": _wrong(old, backend, common),
                "wrong_new": _wrong(new, backend, common),
                "median_old_s": summarize_times(before).median_s,
                "median_new_s": summarize_times(after).median_s,
                "ratio": ratio.value if ratio else None,
                "ratio_low": ratio.low if ratio else None,
                "ratio_high": ratio.high if ratio else None,
                "ratio_puzzles": ratio.puzzles if ratio else 0,
            }
        )
    return rows


def run_cautions(old: RunReport, new: RunReport) -> list[str]:
    """Each run's own warnings, named by run (old first)."""
    return [f"run {r.run.id}: {w}" for r in (old, new) for w in r.warnings]


def _untrusted(report: RunReport) -> list[str]:
    """Why a run's timings cannot be gated on (empty when they can)."""
    run = report.run
    found = []
    if run.status != RunStatus.COMPLETE or report.missing:
        found.append(
            f"run {run.id} is {run.status} with {report.missing} of {report.planned} tasks missing"
        )
    jobs = run.args.get("jobs")
    if loaded := run_load_warning(run, jobs if type(jobs) is int and jobs > 0 else 1):
        found.append(f"run {run.id}: {loaded.partition(':')[0]} (load)")
    wait, wall = report.tally.wait_s, report.tally.wait_wall_s
    if wall > 0 and wait / wall > WAIT_SHARE:
        found.append(
            f"run {run.id}: its workers waited for a CPU {wait / wall:.0%} of their solving "
            "time (other programs competed)"
        )
    return found


def gate_refusals(old: RunReport, new: RunReport, rows: Sequence[dict[str, Any]]) -> list[str]:
    """Why `--fail-slower` cannot judge run `new` against run `old` (empty when it can): a
    run incomplete or timed on a busy machine, or a backend with too few puzzles timed by
    both (`rows`: `compare_runs`'s)."""
    found = _untrusted(old) + (_untrusted(new) if new.run.id != old.run.id else [])
    for r in rows:
        if r["ratio_puzzles"] < MIN_SAMPLES:
            found.append(
                f"{r['backend']}: {_count(r['ratio_puzzles'], 'puzzle')} timed in both runs, "
                f"fewer than {MIN_SAMPLES}"
            )
    return found


def slower_backends(rows: Sequence[dict[str, Any]], percent: float) -> list[str]:
    """The backends whose whole 95% interval of new/old lies above 1 + percent/100, each as
    `name ratio [low-high]`."""
    limit = 1 + percent / 100
    return [
        f"{r['backend']} {r['ratio']:.2f}x [{r['ratio_low']:.2f}-{r['ratio_high']:.2f}]"
        for r in rows
        if r["ratio_low"] is not None and r["ratio_low"] > limit
    ]


def _ratio_text(r: dict[str, Any]) -> str:
    ratio = r["ratio"]
    if ratio is None or not math.isfinite(ratio):
        return "-"
    return f"{ratio:.2f}x [{r['ratio_low']:.2f}-{r['ratio_high']:.2f}] n={r['ratio_puzzles']}"


def render_against(old: RunReport, new: RunReport, fmt: str) -> str:
    """The change per backend from run `old` to run `new`, what differs between them first."""
    rows = compare_runs(old, new)
    differences = run_differences(old, new)
    cautions = run_cautions(old, new)
    if fmt == "json":
        data = {
            "run_id": new.run.id,
            "against": old.run.id,
            "differences": differences,
            "warnings": cautions,
            "untrusted": gate_refusals(old, new, rows),
            "backends": rows,
        }
        return json.dumps(finite_json(data), indent=2, allow_nan=False)
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(csv_row(row, frozenset({"backend"})) for row in rows)
        return out.getvalue()
    header = ["backend", "finished", "wrong", "median", "time ratio new/old (lower is faster)"]
    cells = [
        [
            r["backend"],
            f"{r['finished_old']} -> {r['finished_new']}",
            f"{r['wrong_old']} -> {r['wrong_new']}",
            f"{format_seconds(r['median_old_s'])} -> {format_seconds(r['median_new_s'])}",
            _ratio_text(r),
        ]
        for r in rows
    ]
    title = f"run {new.run.id} against run {old.run.id} ({_count(rows[0]['puzzles'], 'puzzle')})"
    warnings = [f"warning: the runs differ: {d}" for d in differences]
    if differences:
        warnings.append("warning: only the puzzles and backends both runs have are compared")
    warnings += [f"warning: {c}" for c in cautions]
    if fmt == "markdown":
        listed = [f"- {md(w)}" for w in warnings]
        return "\n".join([f"# {md(title)}", "", *listed, "", *md_table(header, cells), ""])
    if fmt == "html":
        items = "".join(f"<li class='warn'>{html.escape(w)}</li>" for w in warnings)
        return (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{PLAIN_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<ul>{items}</ul>{html_table(header, cells)}</body></html>"
        )
    width = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(header)]
    lines = [title, *warnings, "  ".join(h.ljust(w) for h, w in zip(header, width, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, width, strict=True)) for row in cells]
    return "\n".join(lines) + "\n"
