"""The harness: run every (puzzle, backend) pair, check and cross-check the answers, time them,
store everything, and report. This module only re-exports; each part has a module of its own:

- `plan.py`: `CompareArgs`, reading the input puzzles, resolving backends, the task list.
- `pool/`: executors (`LocalPool` here, `DaskExecutor` on a cluster), tasks and outcomes.
- `verify.py`: checking one answer, voices, cross-checking a puzzle's answers (agreement).
- `records.py`: the stored records (`RunRow`, `PuzzleRow`, `TaskRow`, `RunStatus`).
- `store.py`: the SQLite results file; the one place records meet SQL columns (its tables in
  `schema.py`, the checks of every value read back in `store_read.py`).
- `stats.py`: time statistics and the named `Ratio`.
- `report/`: the report model, its renderers (text, Markdown, CSV, JSON, HTML) and plots.
- `track.py`: the parent's bookkeeping of a run (rows, progress, per-puzzle cross-checks).
- `startup.py`: a new run and its puzzles stored while its first tasks run.
- `run.py`: `compare`, which ties them together.

Python API (stable):

```python
from sudokubench.harness import CompareArgs, compare
report = compare(CompareArgs(files=("top95",), backends=("fast", "cpsat")), db="r.sqlite")
report.ok                 # no wrong answer and no disagreement
report.to_json()          # the same keys as `sudokubench compare --json`
```

`compare(..., executor=DaskExecutor.connect("tcp://host:8786"))` runs the tasks on a
dask.distributed cluster (`pool/dask.py`), `LocalPool(jobs=N)` on this machine.

How a run goes:

1. **Plan** (`plan.py`). The puzzles are read with `formats.read_puzzles` (expected answers
   from annotated lines or a `.solutions.txt` file come with them), each in its collection,
   and stored with the run as they are read, in one transaction on a thread of its own
   (`startup.py`) while the first puzzles already run. Tasks are made puzzle by puzzle as the
   executor takes them, numbered in a fixed order, so a task id is stable across `--resume`.
2. **Execute** (`pool/`). The tasks go to an `Executor` (`LocalPool`: persistent worker
   processes, hard timeouts by killing the worker), which takes them a window at a time.
   Outcomes arrive in completion order.
3. **Check** (`verify.py`, `store.py`). Each answer is checked on its own (`check_result`) in
   the worker right after its timed call, so the checking runs side by side on `--jobs` cores;
   an outcome that comes unchecked (an executor of another kind) is checked in the parent.
   Rows are stored with their verdicts through a batching writer. When every task of a puzzle
   is in, its answers and the file's expected answer are cross-checked (`cross_check`), which
   also feeds the live disagreement count.
4. **Report** (`report/`). Each cross-checked puzzle feeds a `Tally` (compact columns per
   backend) and its rows are dropped; the final report is made from it by `finish_report`,
   which `build_report` (what `sudokubench report` uses) also ends with after one ordered
   read of the stored rows, so both always say the same (a test checks it). The parent's
   memory does not grow with the number of tasks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sudokubench import _submodule as submodule  # (the report's and the pool's use it too)

if TYPE_CHECKING:
    from sudokubench.errors import StoreError
    from sudokubench.harness.plan import SHOWCASE, CompareArgs, available_backends, plan
    from sudokubench.harness.pool import DaskExecutor, LocalPool
    from sudokubench.harness.run import Interrupted, Progress, compare

__all__ = [
    "SHOWCASE",
    "CompareArgs",
    "DaskExecutor",
    "Interrupted",
    "LocalPool",
    "Progress",
    "StoreError",
    "available_backends",
    "compare",
    "plan",
]

#: The module each name of `__all__` comes from. They are imported on first use (PEP 562):
#: every worker process imports this package on its way to `pool/worker.py`, and the pool's
#: fork server would otherwise import the whole harness (planning, running, storing,
#: reporting, dask), which no worker uses: about 0.15 s of CPU on the start of every run.
_SOURCES = {
    "StoreError": "sudokubench.errors",
    **dict.fromkeys(("SHOWCASE", "CompareArgs", "available_backends", "plan"), f"{__name__}.plan"),
    **dict.fromkeys(("DaskExecutor", "LocalPool"), f"{__name__}.pool"),
    **dict.fromkeys(("Interrupted", "Progress", "compare"), f"{__name__}.run"),
}


def __getattr__(name: str) -> Any:
    """A name of `__all__` (all of them bound here at once, `plan` the function as before, not
    its module), else a submodule not yet imported."""
    if name in _SOURCES:
        for export, module in _SOURCES.items():
            if export != "DaskExecutor" or name == export:  # (dask's side: when asked for)
                globals()[export] = getattr(importlib.import_module(module), export)
        return globals()[name]
    return submodule(__name__, name)
