"""Shared fixtures: every registered backend, and the shipped puzzle collections."""

from __future__ import annotations

import itertools

import pytest

from sudokubench.backend import Backend
from sudokubench.formats import PuzzleRecord, collection_path, read_puzzles
from sudokubench.solvers import backend_names, get_backend

TELEGRAM = "8.9.....7...5.9....35.7.89..2.7.8.1.7.......2.6.1.547..9785423....9.67..5.......6"
MULTIPLE = "8.9.....7.76.89....3..7.89..2.7.8.1.7.......2.6.12.47.6978.4231...9.67.......79.6"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`backend_name` runs a test once per registered backend (and variant)."""
    if "backend_name" in metafunc.fixturenames:
        metafunc.parametrize("backend_name", backend_names())


@pytest.fixture
def backend(backend_name: str) -> Backend:
    """The backend under test; skipped only when its optional package is missing here."""
    found = get_backend(backend_name)
    if not found.available():
        reason = found.unavailable_reason() or "not available"
        pytest.skip(f"{backend_name}: {reason}")
    return found


def collection(name: str, count: int | None = None, step: int = 1) -> list[PuzzleRecord]:
    """The first `count` puzzles (every `step`-th) of a shipped collection."""
    records = read_puzzles(collection_path(name))
    return list(itertools.islice(records, 0, None if count is None else count * step, step))
