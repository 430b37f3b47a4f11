"""The per-task export of a report: `task_rows` gives every stored task as flat data, read back
from the database puzzle by puzzle, `write_tasks` writes those rows as CSV or JSON as they come
(`--per-task`; `render_tasks` into a string)."""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Iterator
from typing import Any, TextIO

from sudokubench.errors import ArgumentError
from sudokubench.harness.pool.task import CPU_KEY
from sudokubench.harness.report.model import RunReport
from sudokubench.harness.report.summary import pairs_of
from sudokubench.harness.stats import limited_status
from sudokubench.harness.verify import cross_check
from sudokubench.output import csv_row, finite_json

__all__ = ["TASK_FORMATS", "render_tasks", "task_rows", "write_tasks"]

#: The formats of the per-task export (`render_tasks`).
TASK_FORMATS = ("csv", "json")


def task_rows(report: RunReport) -> Iterator[dict[str, Any]]:
    """Every stored task as flat data, in task order, read back puzzle by puzzle: what it
    ran, its status under the strict limit (`over_limit` when the answer came after the
    timeout), its answer and check, its times (`cpu_s`: the worker's CPU time in the call,
    when measured), the spread of its pair's repeats (IQR/median, with two samples or more)
    and the puzzle's consensus."""
    for _, puzzle, rows in report.stream():
        spreads = {
            (p.backend, p.puzzle_id): p.spread for found in pairs_of(rows).values() for p in found
        }
        verdict = cross_check(puzzle, rows) if rows else None
        for t in rows:
            status = limited_status(t.status, t.wall_s, t.timeout)
            yield {
                "run_id": report.run.id,
                "task_id": t.task_id,
                "puzzle_id": t.puzzle_id,
                "collection": puzzle.collection,
                "puzzle": t.puzzle,
                "backend": t.backend,
                "sample": t.sample,
                "warm_up": t.sample < 0,
                "status": str(status),
                "over_limit": status != t.status or t.message.startswith("answered after"),
                "count": t.count,
                "exhaustive": t.exhaustive,
                "verdict": t.verdict,
                "valid": t.valid,
                "problem": t.problem,
                "consensus": verdict.consensus if verdict else None,
                "time_s": t.wall_s,
                "encode_s": t.encode_s,
                "solve_s": t.solve_s,
                "cpu_s": t.stats.get(CPU_KEY),
                "peak_memory_bytes": t.peak_memory_bytes,
                "pair_spread": spreads.get((t.backend, t.puzzle_id)) if t.sample >= 0 else None,
                "limit": t.limit,
                "timeout": t.timeout,
                "message": t.message,
                "stats": {k: v for k, v in t.stats.items() if k != CPU_KEY},
            }


#: The per-task CSV's columns of outside text, guarded against formulas (`output.csv_row`): a
#: puzzle's id and collection come from file names and comments, a backend's name, problem and
#: message from plug-ins. The others (`verdict` `>=1`, `consensus` `=1`, ...) read back as stored.
OUTSIDE = frozenset({"puzzle_id", "collection", "backend", "problem", "message"})

#: The columns of the per-task CSV: `task_rows`' keys (the run id and task id of a run with
#: no task).
_FIELDS = (
    "run_id", "task_id", "puzzle_id", "collection", "puzzle", "backend", "sample", "warm_up",
    "status", "over_limit", "count", "exhaustive", "verdict", "valid", "problem", "consensus",
    "time_s", "encode_s", "solve_s", "cpu_s", "peak_memory_bytes", "pair_spread", "limit",
    "timeout", "message", "stats",
)  # fmt: skip


def render_tasks(report: RunReport, fmt: str) -> str:
    """One row per task (`task_rows`) as CSV (stats as a JSON cell) or a JSON list."""
    out = io.StringIO()
    write_tasks(report, fmt, out)
    return out.getvalue()


def write_tasks(report: RunReport, fmt: str, out: TextIO) -> None:
    """`render_tasks` into `out`, a row at a time as they are read back."""
    if fmt not in TASK_FORMATS:
        raise ArgumentError(f"the per-task export is {' or '.join(TASK_FORMATS)}, not {fmt!r}")
    rows = task_rows(report)
    if fmt == "json":  # the text of json.dumps(list, indent=1), an entry at a time
        first = True
        for row in rows:
            text = json.dumps(finite_json(row), indent=1, allow_nan=False)
            out.write("[\n " if first else ",\n ")
            out.write(text.replace("\n", "\n "))
            first = False
        out.write("[]" if first else "\n]")
        return
    first_row = next(rows, None)
    fields = list(_FIELDS) if first_row is not None else ["run_id", "task_id"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in itertools.chain((first_row,), rows) if first_row is not None else ():
        stats = json.dumps(finite_json(row["stats"]), sort_keys=True)  # (an object: `{...}`)
        writer.writerow(csv_row(row, OUTSIDE) | {"stats": stats})
