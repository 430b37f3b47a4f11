"""The per-task export of a report: `task_rows` gives every stored task as flat data,
`render_tasks` writes those rows as CSV or JSON (`--per-task`)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from sudokubench.errors import ArgumentError
from sudokubench.harness.pool.worker import CPU_KEY
from sudokubench.harness.report.model import RunReport
from sudokubench.harness.stats import limited_status
from sudokubench.output import csv_cell, finite_json

__all__ = ["TASK_FORMATS", "render_tasks", "task_rows"]

#: The formats of the per-task export (`render_tasks`).
TASK_FORMATS = ("csv", "json")


def task_rows(report: RunReport) -> list[dict[str, Any]]:
    """Every stored task as flat data, in task order: what it ran, its status under the strict
    limit (`over_limit` when the answer came after the timeout), its answer and check, its
    times (`cpu_s`: the worker's CPU time in the call, when measured), the spread of its
    pair's repeats (IQR/median, with two samples or more) and the puzzle's consensus."""
    collection_of = report.collection_of
    spreads = {
        (p.backend, p.puzzle_id): p.spread
        for backend in report.backends
        for p in report.pairs.get(backend, [])
    }
    rows = []
    for t in report.tasks:
        status = limited_status(t.status, t.wall_s, t.timeout)
        verdict = report.verdicts.get(t.puzzle_id)
        rows.append(
            {
                "run_id": report.run.id,
                "task_id": t.task_id,
                "puzzle_id": t.puzzle_id,
                "collection": collection_of.get(t.puzzle_id),
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
                "pair_spread": spreads.get((t.backend, t.puzzle_id)) if t.sample >= 0 else None,
                "limit": t.limit,
                "timeout": t.timeout,
                "message": t.message,
                "stats": {k: v for k, v in t.stats.items() if k != CPU_KEY},
            }
        )
    return rows


def render_tasks(report: RunReport, fmt: str) -> str:
    """One row per task (`task_rows`) as CSV (stats as a JSON cell) or a JSON list."""
    rows = task_rows(report)
    if fmt == "json":
        return json.dumps(finite_json(rows), indent=1, allow_nan=False)
    if fmt != "csv":
        raise ArgumentError(f"the per-task export is {' or '.join(TASK_FORMATS)}, not {fmt!r}")
    out = io.StringIO()
    fields = list(rows[0]) if rows else ["run_id", "task_id"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {k: csv_cell(v) for k, v in row.items()}
            | {"stats": csv_cell(json.dumps(finite_json(row["stats"]), sort_keys=True))}
        )
    return out.getvalue()
