"""What a dask worker hands back for a batch (`pool/dask_batch.py`): its pool's columnar
messages passed on as such (`Batch.message`) and taken by the client as a local run's parent
takes a worker's (`dask._taken`), with the rows, outcomes and stored runs of the outcomes' path."""

from __future__ import annotations

import math
import pickle
import time
from collections import deque

import pytest
from support import MULTIPLE, TELEGRAM, Counting, collection, odd_outcomes, stored_tasks

from sudokubench.backend import Status
from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.pool import HOST, LocalPool, Task
from sudokubench.harness.pool.batch import WIDTH, Batch, take_batch, to_columns
from sudokubench.harness.pool.dask import _taken
from sudokubench.harness.pool.dask_batch import _pools, pack, run_batch
from sudokubench.harness.pool.wire import from_wire, to_wire
from sudokubench.harness.track import to_row

PUZZLES = [str(r.puzzle) for r in collection("17clue", 120)]
#: The columns that differ from one run to the next: its times and memory.
TIMES = ("encode_s", "solve_s", "wall_s", "peak_memory_bytes")
#: The stats keys that are times.
TIMED_STATS = ("cpu_s", "cpu_wait_s")


def tasks(lines: list[str], backend: str = "native", timeout: float = 10.0) -> list[Task]:
    return [Task(i, f"t:{i + 1}", p, None, backend, 2, timeout, 0) for i, p in enumerate(lines)]


def same_floats(a: list, b: list) -> bool:
    """Equal lists of floats (NaN equal to NaN) and Nones."""
    return len(a) == len(b) and all(
        x == y or (type(x) is float and type(y) is float and math.isnan(x) and math.isnan(y))
        for x, y in zip(a, b, strict=True)
    )


@pytest.mark.parametrize("odd", [False, True], ids=["usual", "odd"])
def test_a_batch_passed_on_is_taken_again_as_the_same_batch(odd):
    planned = tasks([*PUZZLES[:6], MULTIPLE], backend="fast")
    outcomes = odd_outcomes(planned)
    if not odd:
        outcomes = [outcomes[0], *outcomes[5:]]
        planned = [o.task for o in outcomes]
    # as the dask worker's pool takes its worker's message: not strict
    there = take_batch(deque(planned), to_columns(outcomes), strict=False)
    message = pickle.loads(pickle.dumps(there.message()))  # (dask pickles it)
    assert message[0] == "rows" and PUZZLES[0] not in repr(message)
    again = take_batch(deque(planned), message, strict=False)
    for name in ("ids", "statuses", "host", "usual", "kinds", "cpus", "waits"):
        assert getattr(again, name) == getattr(there, name), name
    assert same_floats(again.efforts, there.efforts)
    assert same_floats(again.values, there.values)
    sent = [from_wire(t, to_wire(o, True)) for t, o in zip(planned, outcomes, strict=True)]
    assert again.outcomes() == sent
    # taken strict by the client, as a local run's parent takes it: `to_row`'s rows
    client = take_batch(deque(planned), message)
    assert client.rows() == [to_row(o, None) for o in outcomes]
    assert client.usual is not odd
    if odd:
        assert client.statuses[2:4] == ["timeout", "timeout"]
        assert "over the 10 s limit" in client.values[3 * WIDTH + 15]
        assert again.statuses[3] == "solved"  # (its outcome keeps the worker's status)


@pytest.fixture
def batches():
    """`run_batch` in this process, its thread's pools closed after the test."""
    yield run_batch
    for pool in _pools.__dict__.pop("by_setting", {}).values():
        pool.close()


def test_run_batch_hands_back_its_pool_s_columns_which_the_client_takes(batches):
    lines = [*PUZZLES[:80], TELEGRAM, MULTIPLE]
    planned = tasks(lines)
    started = time.perf_counter()
    elapsed, parts = batches(pack(planned), None)
    around = time.perf_counter() - started
    # the batch's own time is measured inside the call: above 0, at most the call's
    assert elapsed and sorted([0.0, elapsed, around]) == [0.0, elapsed, around]
    assert parts and all(type(part) is tuple and part[0] == "rows" for part in parts)
    taken = list(_taken(planned, parts, True))
    assert all(type(b) is Batch for b in taken)
    assert [i for b in taken for i in b.ids] == list(range(len(lines)))
    rows = [r for b in taken for r in b.rows()]
    with LocalPool(jobs=1) as pool:
        local = sorted(pool.run(iter(planned)), key=lambda o: o.task.task_id)
    expected = [to_row(o, None) for o in local]
    times = [f for f in rows[0]._fields if f in (*TIMES, "stats")]
    for row, other in zip(rows, expected, strict=True):
        assert row._replace(**dict.fromkeys(times)) == other._replace(**dict.fromkeys(times))
        assert row.stats.keys() == other.stats.keys()
    assert {r.host for r in rows} == {HOST} and rows[-1].count == 2
    # as outcomes (`run_batches`): each with its worker's host, as its wire form gave it
    outcomes = [o for found in _taken(planned, parts, False) for o in found]
    assert [o.task for o in outcomes] == planned
    assert {o.host for o in outcomes} == {HOST} and all(o.checked and o.texts for o in outcomes)


def test_a_plugin_s_outcomes_come_back_as_wire_forms(batches):
    planned = tasks(PUZZLES[:3], backend="fake_backends:SlowHonest")
    _, parts = batches(pack(planned), None)
    assert parts and all(type(part) is list for part in parts)
    found = [o for outcomes in _taken(planned, parts, True) for o in outcomes]
    assert [o.task for o in found] == planned and {o.host for o in found} == {HOST}
    assert {o.status for o in found} == {Status.SOLVED}


@pytest.mark.slow
def test_a_cluster_run_stores_what_a_local_run_stores(tmp_path):
    pytest.importorskip("distributed")
    from sudokubench.harness.pool import DaskExecutor

    lines = [*PUZZLES, TELEGRAM, MULTIPLE]
    lines += [str(r.puzzle) for r in collection("multisolution5000", 30, step=7)]
    path = tmp_path / "p.txt"
    path.write_text("".join(f"{line}\n" for line in lines))
    args = CompareArgs(files=(str(path),), backends=("native",), limit=2, jobs=2)
    local = compare(args, db=tmp_path / "local.sqlite")
    with DaskExecutor.connect("local:2") as cluster:
        counting = Counting(cluster)
        remote = compare(args, db=tmp_path / "dask.sqlite", executor=counting)
    assert counting.batches > 1  # (the columns' path was taken)
    assert remote.ok and local.ok and len(remote.tasks) == len(lines)
    rows = stored_tasks(tmp_path / "dask.sqlite")
    assert rows == stored_tasks(tmp_path / "local.sqlite")
    assert {r["host"] for r in rows} == {HOST} and {r["count"] for r in rows} == {1, 2}
