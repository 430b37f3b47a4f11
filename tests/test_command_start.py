"""`compare`'s own start with `native`: a kernel cached beside its sources is seen without
importing numba (`native.kernel_cached_beside`), so the command's process never imports it
(its workers' fork server does); anything it cannot tell falls back to numba's own look."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize(
    ("argv", "booted"),
    [
        (["compare", "-b", "native", "17clue:..20"], ["native"]),
        (["compare", "top95", "--backends=native,fast", "--jobs", "2"], ["native", "fast"]),
        (["compare", "-bnative", "top95"], ["native"]),
        (["compare", "top95", "--backend", "dlx", "-q"], ["dlx"]),
        (["compare", "-b", "native", "-b", "fast"], ["fast"]),  # (the last one given counts)
        (["compare", "-b", " native , fast ,"], ["native", "fast"]),
        (["compare", "top95"], None),  # (the default: all)
        (["compare", "-b", "all"], None),
        (["compare", "-b", "native,all"], None),
        (["compare", "-b", "native,nosuch"], None),
        (["compare", "-b", "exec:./solver"], None),
        (["compare", "-b", "mypackage.module:Solver"], None),
        (["compare", "-b", "native", "--cluster", "local:2"], None),
        (["compare", "-b", "native", "--cluster=tcp://host:8786"], None),
        (["compare", "--resume", "3", "-b", "native"], None),
        (["compare", "-b", "native", "--help"], None),
        (["compare", "-h", "-b", "native"], None),
        (["compare", "--", "-b", "native"], None),
        (["compare", "-b"], None),
        (["solve", "-b", "native", "top95:1"], None),
        (["--version", "compare", "-b", "native"], None),
        ([], None),
    ],
)
def test_the_command_line_read_for_an_early_fork_server(monkeypatch, argv, booted):
    """`compare` with registered backends named starts the fork server before its command
    line is parsed, with those backends' modules; every other command line starts nothing."""
    from sudokubench.harness.pool import boot

    started = []
    monkeypatch.setattr(
        boot, "boot_fork_server", lambda names, fork=False: started.append(names) or True
    )
    assert boot.boot_for_command(argv) is (booted is not None)
    assert started == ([] if booted is None else [booted])


EARLY = """
import sys
from sudokubench.harness.pool import boot

def boot_fork_server(backends, fork):
    imported = (name in sys.modules for name in ("typer", "sudokubench.harness.run"))
    print(list(backends), fork, *imported)
    raise SystemExit(0)

boot.boot_fork_server = boot_fork_server
from sudokubench.cli import main
main(["compare", "-b", "native", "easy50:..2", "--jobs", "2", "-q", "--db", sys.argv[1]])
"""


def test_compare_starts_its_fork_server_before_its_own_imports(tmp_path):
    """The command's `main` starts the server before it imports Typer or the harness (whose
    imports then overlap the server's); nothing of it imports numba."""
    db = str(tmp_path / "run.sqlite")
    done = subprocess.run([sys.executable, "-c", EARLY, db], capture_output=True, text=True)
    assert done.stdout.split() == ["['native']", "False", "False", "False"], done.stderr[-2000:]


SOONER = """
import sys
from multiprocessing import forkserver

def ensure_running():
    print(*(name in sys.modules for name in (
        "sudokubench.backend", "sudokubench.grid", "sudokubench.api", "sudokubench.solvers.native",
    )))
    raise SystemExit(0)

forkserver.ensure_running = ensure_running
from sudokubench.cli import main
main(["compare", "-b", "native", "easy50:..2", "--jobs", "2", "-q", "--db", sys.argv[1]])
"""


def test_the_server_starts_before_the_packages_modules(tmp_path):
    """`compare` starts its fork server before it imports the package's own modules or the
    backends' (the server finds those itself, `booted.preload`)."""
    db = str(tmp_path / "run.sqlite")
    done = subprocess.run([sys.executable, "-c", SOONER, db], capture_output=True, text=True)
    assert done.stdout.split() == ["False"] * 4, done.stderr[-2000:]


PRELOADED = """
import json, multiprocessing, sys
from sudokubench.harness.pool import boot

def report(queue):
    queue.put([name in sys.modules for name in (
        "sudokubench.harness.pool.worker", "sudokubench.solvers.native",
        "sudokubench.solvers.native_ready", "sudokubench.solvers.program",
    )])

if __name__ == "__main__":
    assert boot.boot_fork_server(["native", "nosuch", "exec:./solver"], fork=sys.argv[1] == "fork")
    parent = [name in sys.modules for name in ("sudokubench.backend", "sudokubench.solvers.native")]
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    worker = context.Process(target=report, args=(queue,))
    worker.start()
    print(json.dumps([parent, queue.get(timeout=120)]))
    worker.join()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a fork server")
@pytest.mark.parametrize("how", ["spawn", "fork"])
def test_the_server_imports_the_backends_modules_itself(tmp_path, how):
    """The backends named to `boot_fork_server` are imported by the server (native's kernel
    with them: `native_ready`), not by the process that starts it; a worker forked from it has
    them, and not `program.py`, which no `native` worker uses. A server forked from the
    command (`fork`) serves the same; its backend's module (not `native_ready`, the kernel's
    load) the command imported before the fork, for both (`SHARED_MODULES`)."""
    script = tmp_path / "preloaded.py"
    script.write_text(PRELOADED)
    done = subprocess.run(
        [sys.executable, str(script), how], cwd=tmp_path, capture_output=True, text=True
    )
    parent, worker = json.loads(done.stdout or "null") or (None, None)
    assert parent == [how == "fork"] * 2, done.stderr[-2000:]
    assert worker == [True, True, True, False], done.stderr[-2000:]


NO_NUMPY = """
import json, multiprocessing, sys
from sudokubench.harness.pool import boot

def report(queue):
    before = "numpy" in sys.modules
    from sudokubench import Grid, get_backend
    result = get_backend("native").solve(Grid.parse(sys.argv[1]), limit=2)
    queue.put([before, "numpy" in sys.modules, result.count, result.exhaustive])

if __name__ == "__main__":
    assert boot.boot_fork_server(["native"])
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    worker = context.Process(target=report, args=(queue,))
    worker.start()
    print(json.dumps(queue.get(timeout=120)))
    worker.join()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a fork server")
def test_a_native_worker_forked_from_the_server_has_no_numpy(cached, tmp_path):
    """With the band kernel's object kept (`cached`: `warm` keeps it), the server booted for
    `native` readies the 9x9 kernel without numpy, and a worker forked from it solves a 9x9
    puzzle without importing it."""
    from support import TELEGRAM

    script = tmp_path / "no_numpy.py"
    script.write_text(NO_NUMPY)
    done = subprocess.run(
        [sys.executable, str(script), TELEGRAM], cwd=tmp_path, capture_output=True, text=True
    )
    assert json.loads(done.stdout or "null") == [False, False, 1, True], done.stderr[-2000:]


PARENT = """
import atexit, sys
from sudokubench.cli import main
from sudokubench.harness.pool.boot import SHARED_MODULES

atexit.register(lambda: print(all(name in sys.modules for name in SHARED_MODULES), *(
    name in sys.modules for name in (
        "sudokubench.harness.pool.worker", "sudokubench.solvers.program",
))))
main(["compare", "-b", "native", "easy50:..2", "--jobs", "2", "-q", "--db", sys.argv[1]])
"""


def test_the_parent_does_without_the_workers_modules(tmp_path):
    """A whole `compare` runs and checks out without importing the worker's module or
    `program.py` in its own process (its workers' target is `boot.start_worker`); it imports
    every module of `boot.SHARED_MODULES` (which a command that forks its server imports
    before it: nothing it would not import anyway)."""
    db = str(tmp_path / "run.sqlite")
    done = subprocess.run([sys.executable, "-c", PARENT, db], capture_output=True, text=True)
    assert "all answers check out" in done.stdout, done.stderr[-2000:]
    assert done.stdout.split()[-3:] == ["True", "False", "False"], done.stderr[-2000:]


LAZY = """
import sys
import sudokubench.harness.pool.worker
print(*(name in sys.modules for name in (
    "sudokubench.harness.run", "sudokubench.harness.plan", "sudokubench.harness.pool.local",
    "sudokubench.harness.pool.dask", "sudokubench.harness.report",
)))
from sudokubench.harness import CompareArgs, LocalPool, StoreError, compare, plan
from sudokubench.harness.pool import HOST, DaskExecutor, Task, run_task, worker
from sudokubench.harness.plan import plan as plan_itself
from sudokubench.harness.run import compare as compare_itself
print(callable(plan) and plan is plan_itself, compare is compare_itself,
      LocalPool.__module__, DaskExecutor.__module__, worker.run_task is run_task)
import sudokubench.harness as harness
print(harness.verify.__name__, hasattr(harness, "nothing"))
"""


def test_a_worker_imports_the_worker_side_alone():
    """The fork server imports `pool/worker.py` for every worker: the harness's packages no
    longer import the parent's side with it (planning, running, the pool itself, dask,
    reports); their names are all still there when asked for (`plan` the function, as
    before), and a submodule not yet imported is found by its name."""
    done = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True)
    assert done.stdout.split("\n")[:3] == [
        "False False False False False",
        "True True sudokubench.harness.pool.local sudokubench.harness.pool.dask True",
        "sudokubench.harness.verify False",
    ], done.stderr[-2000:]


ALONE = """
import sys
from sudokubench.cli import main
sys.argv = ["sudokubench", *sys.argv[1:]]
try:
    main() if sys.argv[1] == "compare" else main(sys.argv[1:])
except SystemExit as exc:
    print(exc.code)
print(*(f"sudokubench.cli.{m}" in sys.modules for m in ("compare", "generate", "basic", "report")))
"""


def test_a_compare_command_line_registers_compare_alone(tmp_path):
    """`sudokubench compare ...` imports no other command's module (`generate` and its rating,
    `basic`, `report`, ...): they and Typer's reading of their options cost every run about
    0.1 s of CPU; the command still runs and checks out. Another command, or `main` given its
    arguments (tests, scripts), registers every command as before."""
    db = str(tmp_path / "run.sqlite")
    run = [sys.executable, "-c", ALONE, "compare", "easy50:..2", "-b", "fast", "-q", "--db", db]
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.stdout.split()[-5:] == ["0", "True", "False", "False", "False"], done.stderr
    assert "all answers check out" in done.stdout
    run = [sys.executable, "-c", ALONE, "solve", "--help"]  # (main given its arguments)
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.stdout.split()[-4:] == ["True", "True", "True", "True"], done.stderr
    assert "Usage: sudokubench solve" in done.stdout


SERVER_ENV = """
import json, multiprocessing, os, sys
from multiprocessing import forkserver
from sudokubench.harness.pool import boot

def blas_threads():
    # the threads of the OpenBLAS numpy loaded (None where it is not found)
    import ctypes
    import numpy  # (the server's, on numba's path: its OpenBLAS as the server started it)

    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    for lib in sorted(libs):
        handle = ctypes.CDLL(lib)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
            if hasattr(handle, name):
                return getattr(handle, name)()
    return None


def report(queue):
    server = "numpy" in sys.modules
    queue.put([sorted(os.environ.items()), server, blas_threads()])

if __name__ == "__main__":
    before = sorted(os.environ.items())
    assert boot.boot_fork_server(["native"], fork=sys.argv[1] == "fork")
    after = sorted(os.environ.items())
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    worker = context.Process(target=report, args=(queue,))
    worker.start()
    seen, server, threads = queue.get(timeout=120)
    worker.join()
    print(json.dumps([before == after, seen == before, server, threads]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a fork server and /proc")
@pytest.mark.parametrize("blas", [None, "OMP_NUM_THREADS"])
@pytest.mark.parametrize("how", ["spawn", "fork"])
def test_the_fork_server_environment(tmp_path, blas, how):
    """The fork server makes its imports with OpenBLAS on one thread (no thread pool to
    start, where numba's path imports numpy) where no variable sets its threads, and takes
    that out before it forks a worker: the command's environment and each worker's are the
    command's own, unchanged; a worker whose numpy is the server's keeps one thread. A
    variable the user set is left to OpenBLAS; a worker that imports numpy itself (the kept
    object's path: the server has none) sees the command's environment. The same for a
    server forked from the command (`fork`), which sets its additions in its own environment."""
    from sudokubench.harness.pool import boot

    script = tmp_path / "server_env.py"
    script.write_text(SERVER_ENV)
    env = {k: v for k, v in os.environ.items() if k not in boot.BLAS_THREADS}
    if blas:
        env[blas] = "2"
        assert boot.server_environment(env) == {}
    else:
        assert boot.server_environment(env) == {
            "OPENBLAS_NUM_THREADS": "1",
            "SUDOKUBENCH_SERVER_ADDED": "OPENBLAS_NUM_THREADS",
        }
    done = subprocess.run(
        [sys.executable, str(script), how], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    unchanged, worker_same, server, threads = json.loads(done.stdout or "null") or [None] * 4
    assert (unchanged, worker_same) == (True, True), done.stderr[-2000:]
    if threads is not None and (server or blas):  # (numpy's OpenBLAS found: its threads)
        assert threads == (2 if blas else 1)


def test_booted_takes_out_what_was_added():
    from sudokubench.harness.pool import boot
    from sudokubench.harness.pool.booted import restore

    environ = {"PATH": "/bin", **boot.server_environment({"PATH": "/bin"})}
    assert restore(environ) == ["OPENBLAS_NUM_THREADS"]
    assert environ == {"PATH": "/bin"}
    assert restore(environ) == [] and environ == {"PATH": "/bin"}


FORKED = """
import json, multiprocessing, os, sys, threading
from multiprocessing import forkserver, resource_tracker
from sudokubench.harness.pool import boot

def leave(queue):
    # a named semaphore left behind (no finalizer runs): the tracker unlinks it at the end
    lock = multiprocessing.get_context("forkserver").Lock()
    queue.put([lock._semlock.name, os.getppid()])
    queue.close()
    queue.join_thread()
    os._exit(0)

def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read()

if __name__ == "__main__":
    if sys.argv[1] == "thread":
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    assert boot.boot_fork_server(["native"], fork=True)
    shared = [m in sys.modules for m in (*boot.SHARED_MODULES, "sudokubench.solvers.native")]
    alone = [m in sys.modules for m in ("numpy", "sudokubench.harness.pool.worker",
                                        "sudokubench.solvers.native_ready")]
    server = forkserver._forkserver._forkserver_pid
    tracker = resource_tracker._resource_tracker._pid
    own = cmdline(os.getpid())
    context = multiprocessing.get_context("forkserver")
    queue = context.Queue()
    worker = context.Process(target=leave, args=(queue,))
    worker.start()
    name, parent = queue.get(timeout=120)
    worker.join()
    print(json.dumps([name, server, tracker, parent == server, worker.exitcode, all(shared),
                      any(alone), cmdline(server) == own, cmdline(tracker) == own]))
"""


def _ended(pid: int) -> bool:
    """Whether the process has ended (gone, or a zombie left to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a fork server and /proc")
@pytest.mark.parametrize("threads", ["one", "thread"])
def test_the_helpers_forked_from_the_command(tmp_path, threads):
    """`boot_fork_server(fork=True)` (the command's own start) forks the fork server and the
    resource tracker from the command instead of starting two new Pythons: a worker comes
    from that server, and a named semaphore it leaves behind is unlinked by that tracker once
    the command and the worker have ended (with `multiprocessing`'s warning), and both helpers
    end with them. The modules the command and the server share (`SHARED_MODULES`, the
    backend's own) are imported once, before the server's fork; what the server alone needs
    (the worker's module, the kernel's load, numpy where it is used) is not. With another
    thread running nothing is forked or imported: both are started as `multiprocessing`
    starts them, to the same effect."""
    import time

    script = tmp_path / "forked.py"
    script.write_text(FORKED)
    done = subprocess.run(
        [sys.executable, str(script), threads], cwd=tmp_path, capture_output=True, text=True
    )
    got = json.loads(done.stdout or "null")
    assert got is not None, done.stderr[-2000:]
    name, server, tracker, from_server, exitcode, shared, alone, *forked = got
    assert (from_server, exitcode) == (True, 0)
    assert forked == ([True, True] if threads == "one" else [False, False])
    assert (shared, alone) == (threads == "one", False)
    deadline = time.monotonic() + 30
    while not (_ended(server) and _ended(tracker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ended(server) and _ended(tracker)
    assert not Path("/dev/shm", f"sem.{name.lstrip('/')}").exists()
    assert "leaked semaphore" in done.stderr
