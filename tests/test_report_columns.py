"""`Acc.add_column`, the report's pass a column at a time, against `Acc.add` pair by pair."""

from __future__ import annotations

import random
from array import array

import pytest

from sudokubench.backend import Status
from sudokubench.harness.report.columns import (
    BLAMED,
    CODE,
    DISAGREES,
    DISPUTED,
    NO_PAIR,
    Acc,
    Column,
)

FIELDS = ("pairs", "by_status", "wrong", "disagree", "effort_kind")
ARRAYS = ("times", "efforts", "spreads", "logs")


def _column(rng: random.Random, n: int, spreads: bool) -> Column:
    column = Column(n)
    for i in range(n):
        if rng.random() < 0.1:
            continue  # no pair
        status = rng.choice(list(Status))
        column.status[i] = CODE[status]
        if rng.random() < 0.9:
            column.time[i] = rng.choice([0.0, rng.random(), rng.random() * 1e-5])
        if rng.random() < 0.7:
            column.put_effort(i, (rng.choice(["guesses", "nodes", "other"]), float(i)))
        if rng.random() < 0.1:
            column.flags[i] = rng.choice([BLAMED, DISAGREES, DISAGREES | DISPUTED, BLAMED | 2])
    if spreads:
        column.spread = array("d", [rng.choice([float("nan"), rng.random()]) for _ in range(n)])
    return column


def _same(one: Acc, other: Acc) -> None:
    assert [getattr(other, f) for f in FIELDS] == [getattr(one, f) for f in FIELDS]
    for f in ARRAYS:  # (bit for bit: NaN never gathered, so == is exact)
        assert getattr(other, f).tobytes() == getattr(one, f).tobytes(), f


@pytest.mark.parametrize("seed", range(12))
def test_add_column_is_add_in_turn(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([1, 7, 200, 1000])
    column, base = _column(rng, n, seed % 2 == 0), _column(rng, n, False)
    chosen = bytes(rng.choice([0, 0, 1, 1, 2, 255]) for _ in range(n))
    for ratio_base in (None, base):
        for mask in (None, chosen):
            one, other = Acc(), Acc()
            for i in range(n):
                if column.status[i] != NO_PAIR and (mask is None or mask[i]):
                    one.add(column, ratio_base, i)
            other.add_column(column, ratio_base, mask)
            _same(one, other)
            assert one.pairs > 0 or n == 1


@pytest.mark.parametrize("seed", range(8))
def test_add_column_of_a_full_column_is_add_in_turn(seed: int) -> None:
    """Every pair finished and unflagged (the usual column: whole arrays copied), and the
    same with one pair that breaks it (a NaN time, a flag, a timeout, a time 0, no pair)."""
    rng = random.Random(seed)
    n = 300
    column, base = Column(n), Column(n)
    for c in (column, base):
        for i in range(n):
            c.status[i] = CODE[rng.choice([Status.SOLVED, Status.UNSATISFIABLE])]
            c.time[i] = rng.random() + 1e-9
            if seed % 2:
                c.put_effort(i, ("guesses" if seed % 4 == 1 or i % 7 else "nodes", float(i)))
    breaks = [
        None,
        lambda c: c.time.__setitem__(17, float("nan")),
        lambda c: c.flags.__setitem__(17, BLAMED),
        lambda c: c.flags.__setitem__(17, DISAGREES),
        lambda c: c.status.__setitem__(17, CODE[Status.TIMEOUT]),
        lambda c: c.time.__setitem__(17, 0.0),
        lambda c: c.status.__setitem__(17, NO_PAIR),
    ]
    for which in (column, base):
        for change in breaks:
            col, bas = _column_copy(column), _column_copy(base)
            if change is not None:
                change(col if which is column else bas)
            for ratio_base in (None, bas):
                one, other = Acc(), Acc()
                for i in range(n):
                    if col.status[i] != NO_PAIR:
                        one.add(col, ratio_base, i)
                other.add_column(col, ratio_base)
                _same(one, other)
                assert len(one.times) >= n - 1


def _column_copy(column: Column) -> Column:
    copy = Column(0)
    for name in Column.__slots__:
        value = getattr(column, name)
        setattr(copy, name, None if value is None else array(value.typecode, value))
    return copy


def test_add_column_known_counts() -> None:
    """The counts of a small column worked by hand."""
    n = 6
    column, base = Column(n), Column(n)
    for i, status in enumerate([Status.SOLVED, Status.SOLVED, Status.TIMEOUT, Status.ERROR]):
        column.status[i] = CODE[status]
        base.status[i] = CODE[Status.SOLVED]
        base.time[i] = 2.0
    column.time[0], column.time[1] = 1.0, 4.0
    column.flags[1] = BLAMED
    column.put_effort(0, ("nodes", 7.0))
    acc = Acc()
    acc.add_column(column, base)
    assert acc.pairs == 4 and acc.wrong == 1 and acc.disagree == 0
    assert acc.by_status[CODE[Status.SOLVED]] == 1  # (the wrong one is not solved)
    assert acc.by_status[CODE[Status.TIMEOUT]] == 1 and acc.by_status[CODE[Status.ERROR]] == 1
    assert list(acc.times) == [1.0] and list(acc.efforts) == [7.0] and acc.effort_kind >= 0
    assert list(acc.logs) == pytest.approx([-0.6931471805599453])
    empty = Acc()
    empty.add_column(column, base, bytes(n))
    assert empty.pairs == 0 and not empty.times
