"""Shared fixtures: every registered backend (shared data and helpers: `support.py`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

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


#: The C solver with tdoku's ABI that the `lib:` tests compile (tests/c/).
TDOKU_ABI_SOURCE = Path(__file__).resolve().parent / "c" / "tdoku_abi.c"


@pytest.fixture(scope="session")
def c_library(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """`c_library(*defines)`: tests/c/tdoku_abi.c compiled with the system C compiler into a
    shared library in a temporary folder (each variant once a session); skips the test when
    no C compiler is installed."""
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc) to build the test library for lib: backends")
    folder = tmp_path_factory.mktemp("libs")
    built: dict[tuple[str, ...], Path] = {}

    def build(*defines: str) -> Path:
        if defines not in built:
            name = "_".join(d.lstrip("-D").replace("=", "") for d in defines) or "plain"
            target = folder / f"libtdoku_abi_{name}.so"
            subprocess.run(
                [compiler, "-O2", "-shared", "-fPIC", *defines, "-o", str(target),
                 str(TDOKU_ABI_SOURCE)],
                check=True,
                capture_output=True,
            )  # fmt: skip
            built[defines] = target
        return built[defines]

    return build
