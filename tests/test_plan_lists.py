"""The parent plans a list of puzzles at a time (`Tracker._plan_list`): the usual list of a
one-task-a-puzzle run in a few C calls, its puzzles registered at once (`Tally.register_many`)
and open as their `PuzzleRow` alone; the tasks, the open puzzles, the puzzles with an answer to
meet and the tally's collections are those puzzle-by-puzzle planning makes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from support import TELEGRAM, TELEGRAM_SOLUTION

from sudokubench.harness import CompareArgs
from sudokubench.harness.plan import plan
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.report.tally import Tally
from sudokubench.harness.store import Store
from sudokubench.harness.store_read import Damaged, puzzle_from_sql, puzzles_from_sql
from sudokubench.harness.track import Progress, Tracker, _Open

FOUR = "1.3..2.4...3.4.1"


def puzzles(n: int, collections: tuple[str, ...] = ("a",), every: int = 0) -> list[PuzzleRow]:
    """`n` puzzles, the k-th in collections[k * len // n] (in runs, as files give them), each
    `every`-th (from the third) with an answer of the input's to meet; some 4x4 and forced."""
    rows = []
    for k in range(n):
        expected = every and k % every == 2
        four = k % 7 == 5
        rows.append(
            PuzzleRow(
                f"p:{k}",
                k,
                collections[k * len(collections) // n],
                FOUR if four else TELEGRAM,
                "2x2" if four and k % 2 else None,
                1 if expected else None,
                TELEGRAM_SOLUTION if expected and k % 3 else None,
            )
        )
    return rows


def registered(tally: Tally) -> list[int]:
    return [tally.collection_code(i) for i in range(tally.puzzles)]


@pytest.mark.parametrize(
    "collections, cuts",
    [
        (("a",), (0, 5, 40, 100)),
        (("a", "b"), (0, 30, 100)),  # the second collection inside a list
        (("a", "b", "c", "a2"), (0, 25, 50, 75, 100)),  # each list a collection of its own
        (("a", "b", "c"), (0, 1, 2, 99, 100)),
    ],
)
def test_register_many_is_register_one_by_one(collections, cuts) -> None:
    rows = puzzles(100, collections)
    one, many = Tally(("fast",), 100), Tally(("fast",), 100)
    for i, row in enumerate(rows):
        one.register(i, row)
    for start, end in itertools.pairwise(cuts):
        many.register_many(start, rows[start:end])
    assert many.collection_names == one.collection_names
    assert registered(many) == registered(one)
    assert len(set(registered(one))) == len(set(collections))
    assert (many.collection is None) == (len(collections) == 1)
    with pytest.raises(IndexError):
        many.register_many(99, rows[:2])


@pytest.mark.parametrize(
    "backends, collections, every",
    [
        (("fast",), ("a",), 0),
        (("fast",), ("a", "b"), 5),  # puzzles to cross-check in full, two collections
        (("fast", "dlx"), ("a",), 4),  # several tasks a puzzle: planned puzzle by puzzle
    ],
)
def test_the_tracker_plans_lists_as_plan_does(tmp_path: Path, backends, collections, every):
    n = 4500  # three of the reader's chunks (2,000 puzzles a read)
    rows = puzzles(n, collections, every)
    args = CompareArgs(files=("p",), backends=backends)
    db = tmp_path / "r.sqlite"
    with Store(db, create=True) as store:
        run_id = store.new_run(args.to_json(), {}, lists=[rows[:1000], rows[1000:]])
    with Store(db, create=False) as reader:
        tally = Tally(backends, n)
        tracker = Tracker(reader, run_id, args, tally, Progress(run_id, 0))
        got = list(tracker.todo())
    assert got == list(plan(args, rows))
    assert [type(t).__name__ for t in got[:2]] == ["Task", "Task"]
    assert sorted(tracker.open) == list(range(n))
    single = len(backends) == 1
    assert all((type(e) is PuzzleRow) == single for e in tracker.open.values())
    assert [e if single else e.puzzle for e in tracker.open.values()] == rows
    wanted = {k for k, r in enumerate(rows) if r.expected_count or r.expected_solution}
    assert tracker.expecting == (wanted if single else set())
    assert bool(wanted) == bool(every)
    one = Tally(backends, n)
    for i, row in enumerate(rows):
        one.register(i, row)
    assert registered(tally) == registered(one)
    assert tally.collection_names == one.collection_names
    if single:  # an open `PuzzleRow` made an `_Open` when one is needed (its grid parsed)
        task = got[5]
        assert str(tracker.grid(task)) == FOUR
        assert type(tracker.open[5]) is _Open and tracker.open[5].waiting == 1
        assert tracker.open[5].puzzle == rows[5]


@pytest.mark.parametrize(
    "place, value",
    [
        (None, None),  # sound: the same rows
        (0, 7),  # puzzle_id
        (1, "x"),  # position
        (1, True),
        (2, None),  # collection
        (3, b"8.9"),  # puzzle
        (4, 3),  # box
        (5, -1),  # expected_count
        (5, 1.5),
        (6, 9),  # expected_solution
    ],
)
def test_puzzles_from_sql_is_puzzle_from_sql_row_by_row(place, value) -> None:
    found = [tuple(r) for r in puzzles(50, every=3)]
    if place is not None:
        row = list(found[17])
        row[place] = value
        found[17] = tuple(row)
    try:
        one = [puzzle_from_sql(r) for r in found]
    except Damaged as exc:
        with pytest.raises(Damaged) as raised:
            puzzles_from_sql(found)
        assert str(raised.value) == str(exc) and place is not None
    else:
        assert place is None
        many = puzzles_from_sql(found)
        assert many == one and all(type(r) is PuzzleRow for r in many)
