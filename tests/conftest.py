"""Shared fixtures: every registered backend (shared data and helpers: `support.py`)."""

from __future__ import annotations

import pytest

from sudokubench.backend import Backend
from sudokubench.solvers import backend_names, get_backend


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
