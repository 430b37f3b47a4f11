"""`compare`'s own start with `native`: a kernel cached beside its sources is seen without
importing numba (`native.kernel_cached_beside`), so the command's process never imports it
(its workers' fork server does); anything it cannot tell falls back to numba's own look."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

from sudokubench.solvers import native


@pytest.fixture(scope="module")
def cached() -> None:
    """The kernel compiled or loaded once (numba's cache then holds it)."""
    native.warm()


def test_the_cache_beside_the_sources_is_numbas_own(cached, monkeypatch):
    """The index files it looks for are the ones numba writes and reads (its private
    `_index_path`), and it finds them exactly when numba's cache holds the kernel there."""
    from sudokubench.solvers import native_band, native_search

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    paths = [
        Path(f._cache._cache_file._index_path) for f in (native_search.search, native_band.search)
    ]
    beside = Path(native.__file__).parent / "__pycache__"
    if any(p.parent != beside for p in paths):
        pytest.skip("numba keeps this install's cache elsewhere")
    assert all(p.exists() for p in paths)
    assert native.kernel_cached_beside() is True
    assert native.kernel_cached() is True


def test_it_cannot_tell_elsewhere(cached, monkeypatch, tmp_path):
    """With NUMBA_CACHE_DIR set, or a source whose entry point it cannot find, it says False
    (and `ready_native` then asks numba)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert native.kernel_cached_beside() is False
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(native, "__file__", str(tmp_path / "native.py"))
    (tmp_path / "__pycache__").mkdir()
    assert native.kernel_cached_beside() is False  # (no sources there)
    (tmp_path / "native_search.py").write_text("@njit\ndef search(x):\n    pass\n")
    (tmp_path / "native_band.py").write_text("\n\n@njit\n@other\ndef search(x):\n    pass\n")
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}{sys.abiflags}"
    (tmp_path / "__pycache__" / f"native_search.search-1.{tag}.nbi").write_text("")
    assert native.kernel_cached_beside() is False  # (native_band's is missing)
    (tmp_path / "__pycache__" / f"native_band.search-3.{tag}.nbi").write_text("")
    assert native.kernel_cached_beside() is True  # (its first decorator's line, as numba names it)


CHECK = """
import sys
from sudokubench.cli.native import ready_native
from sudokubench.harness.plan import CompareArgs, machine_info, resolve_args
from sudokubench.solvers import get_backend
ready_native(workers_only=True)
args = resolve_args(CompareArgs(files=("easy50:..2",), backends=("native",)))
machine_info(args.backends)
print(args.backends, get_backend("native").available(), "numba" in sys.modules)
"""


def test_the_command_does_not_import_numba_for_a_cached_kernel(cached, tmp_path):
    """What `compare` does in its own process before the run (the kernel checked, the backends
    resolved, the machine described) imports no numba when the cache is beside the sources;
    with the cache elsewhere it still asks numba (and finds no kernel in an empty cache)."""
    if not native.kernel_cached_beside():
        pytest.skip("numba keeps this install's cache elsewhere")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env=env)
    assert done.stdout.split() == ["('native',)", "True", "False"], done.stderr[-2000:]
    code = "from sudokubench.cli.native import *; import sys\n"
    code += "from sudokubench.solvers import native\n"
    code += "print(native.kernel_cached(), 'numba' in sys.modules)"
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.stdout.split() == ["False", "True"], done.stderr[-2000:]
