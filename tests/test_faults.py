"""Faults of the environment in the middle of a run (a full disk, a value SQLite cannot take):
one line, exit 2, never exit 1 (which says an answer is wrong); the run marked interrupted,
what finished kept, and `--resume` completes it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support import TELEGRAM

from sudokubench.cli import main
from sudokubench.harness import run as run_module
from sudokubench.harness.pool import LocalPool
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.store import Store

EASY = [  # from easy50, each with exactly one solution
    "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..",
    "48...69.2..2..8..19..37..6.84..1.2....37.41....1.6..49.2..85..77..9..6..6.92...18",
]


def sudokubench(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`sudokubench ARGS` in this process: (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as stop:
        main(list(args))
    out, err = capsys.readouterr()
    return int(stop.value.code or 0), out, err


def full_disk(*args: object, **kwargs: object) -> None:
    raise sqlite3.OperationalError("database or disk is full")


def overflow_on_third(real):  # type: ignore[no-untyped-def]
    calls = []

    def to_row(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 3:
            raise OverflowError("Python int too large to convert to SQLite INTEGER")
        return real(*args, **kwargs)

    return to_row


def fail_first(*args, **kwargs):  # type: ignore[no-untyped-def]
    raise OverflowError("Python int too large to convert to SQLite INTEGER")


@pytest.mark.parametrize(
    "where", ["at the end", "mid-run", "mid-run, one list", "mid-run, columns"]
)
def test_a_fault_in_a_run_is_one_line_exit_2_and_the_run_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    puzzles = tmp_path / "p.txt"
    puzzles.write_text("".join(f"{p}\n" for p in [TELEGRAM, *EASY]), encoding="utf-8")
    db = tmp_path / "r.sqlite"
    with monkeypatch.context() as patch:
        if where == "at the end":
            patch.setattr(run_module, "_record_noise", full_disk)
        elif where != "mid-run, columns":  # (the outcomes' path, which `to_row` is on)
            patch.delattr(LocalPool, "run_columns")
            patch.setattr(run_module, "to_row", overflow_on_third(run_module.to_row))
            if where == "mid-run, one list":  # every outcome in one list: the two rows made
                lists = LocalPool.run_batches  # before the fault are kept all the same
                patch.setattr(
                    LocalPool,
                    "run_batches",
                    lambda self, tasks: iter([[o for got in lists(self, tasks) for o in got]]),
                )
        else:  # a worker's batch as columns (`pool/batch.py`), its rows queued, then the fault
            patch.setattr(Tally, "add_columns", fail_first)
        code, out, err = sudokubench(
            capsys, "compare", str(puzzles), "-b", "fast", "--db", str(db), "-q"
        )
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    said = "disk is full" if where == "at the end" else "OverflowError: Python int too large"
    assert line.startswith("sudokubench: error: ") and said in line
    assert "run 1 is marked interrupted; resume with: sudokubench compare --resume 1" in line
    with Store(db, create=False) as store:
        assert store.run(1).status == "interrupted"
        kept = len(store.done_task_ids(1))
    if where == "mid-run, columns":  # (the rows of the batch queued before the fault)
        assert 1 <= kept <= 3
    else:
        assert kept == (3 if where == "at the end" else 2)
    code, out, err = sudokubench(capsys, "report", "--db", str(db))
    assert code == (0 if kept == 3 else 3), (out, err)
    code, out, err = sudokubench(capsys, "compare", "--resume", "1", "--db", str(db), "-q")
    assert code == 0, (out, err)
    with Store(db, create=False) as store:
        assert store.run(1).status == "complete" and len(store.done_task_ids(1)) == 3
