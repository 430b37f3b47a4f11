"""The pool's fork server started ahead (`boot_fork_server`), and as early as a command can:
`compare`'s arguments read before the command line is parsed (`boot_for_command`).

Kept apart from `local.py` (which re-exports both names) so that starting the server imports
only `multiprocessing` and the registry: a command starts it before its own imports (the CLI,
the harness: about 0.3-0.5 s), which then overlap the server's (numba and the native kernel's
cached code: about 1 s), on a machine with a core for each. The program's own command line
forks the server and `multiprocessing`'s resource tracker from the command itself
(`_fork_helpers`): neither starts a Python of its own, and the modules both import are
imported once.
"""

from __future__ import annotations

import importlib
import multiprocessing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: What every worker imports; the fork server imports it once for all of them (this module
#: too: a worker's process is started at `start_worker`, found by its name).
WORKER_MODULES = (
    "sudokubench.harness.pool.boot",
    "sudokubench.harness.pool.worker",
    "sudokubench.formats",
    "sudokubench.solvers",
    "sudokubench.solvers.external",
)


#: The exit code of a worker that lost its pipe to the parent (e.g. a plug-in closed it).
LOST_PIPE = 75


def start_worker(*args: Any) -> None:
    """A worker process's target: `pool/worker.py`'s `worker_main(*args)`. The parent names
    the target (a process's target is pickled by its module and name) without importing the
    worker's modules, which it does not use (about 0.02 s of CPU at its start); the worker,
    forked from the fork server, has them already."""
    from sudokubench.harness.pool.worker import worker_main

    worker_main(*args)


def _modules(backends: Iterable[str]) -> list[str]:
    """The modules of the registered backends among `backends`, and those that ready them
    (`BaseBackend.preload`: e.g. native's compiled kernel, loaded once in the fork server
    instead of in each worker under its load limit)."""
    from sudokubench.backend import BaseBackend
    from sudokubench.errors import InputError
    from sudokubench.solvers import REGISTRY, get_backend

    modules = set()
    for name in backends:
        entry = REGISTRY.get(name.partition(":")[0])
        if entry is None:
            continue
        modules.add(entry.target.partition(":")[0])
        try:
            backend = get_backend(name)
        except InputError:  # (the worker reports it when it loads the backend)
            continue
        if isinstance(backend, BaseBackend) and backend.preload:
            modules.add(backend.preload)
    return sorted(modules)


def boot_fork_server(preload: Iterable[str], *, fork: bool = False) -> bool:
    """Start this process's fork server now, its imports (`WORKER_MODULES` and `preload`'s
    modules, `_modules`) made in the background; False where the platform has none.

    `LocalPool` calls it; a command may call it earlier, so that the server's imports (numba
    and the native kernel's cached code: about 0.7 s) overlap the command's own start. The
    server is one per process: once it runs, a later call (or pool) changes nothing.

    The server finds `preload`'s modules itself (`SERVER_BOOTED`, from the registered names
    among them, `BACKENDS` in its environment): this process then starts it before it imports
    any backend's module or the package's own (about 0.05 s of CPU sooner at a command's start).

    `fork`: this process is a command at its start, one thread and nothing of its own open
    yet (`boot_for_command` from the program's own command line): the server and
    `multiprocessing`'s resource tracker are then forked from it (`_fork_helpers`) rather
    than each started as a new Python, which saves their Python start and
    `multiprocessing`'s imports (about 0.1 s of CPU, on the cores the command needs).
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    import os
    from multiprocessing import forkserver

    from sudokubench.solvers import REGISTRY

    added = server_environment(os.environ)
    names = [name for name in preload if name.partition(":")[0] in REGISTRY]
    if names:
        added = {**added, BACKENDS: ",".join(names)}
        added[ADDED] = ",".join(name for name in added if name != ADDED)
    modules = [*WORKER_MODULES, SERVER_BOOTED] if added else list(WORKER_MODULES)
    multiprocessing.get_context("forkserver").set_forkserver_preload(modules)
    own = (REGISTRY[name.partition(":")[0]].target.partition(":")[0] for name in names)
    shared = [*SHARED_MODULES, *dict.fromkeys(own)]
    if fork and _fork_helpers(modules, added, shared):
        return True
    before = {name: os.environ.get(name) for name in added}
    try:
        os.environ.update(added)
        forkserver.ensure_running()
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return True


#: What `compare`'s process imports anyway and the fork server imports too (the worker's
#: modules but `pool/worker.py` itself): imported before a server forked from the command
#: (`_fork_helpers`), which then finds them imported, with the backends' own modules.
SHARED_MODULES = (
    "sudokubench.confine",
    "sudokubench.formats",
    "sudokubench.processes",
    "sudokubench.harness.noise",
    "sudokubench.harness.verify",
    "sudokubench.harness.pool.batch",
    "sudokubench.harness.pool.guard",
    "sudokubench.harness.pool.memory",
    "sudokubench.harness.pool.task",
    "sudokubench.harness.pool.wire",
)


def _fork_helpers(modules: list[str], added: Mapping[str, str], shared: Sequence[str]) -> bool:
    """`multiprocessing`'s resource tracker and the fork server, each forked from this process
    and running `multiprocessing`'s own `main` (the server with `modules` preloaded and `added`
    in its environment alone), set in `multiprocessing`'s state as its own `ensure_running`
    sets them: a worker gets the tracker's pipe and the server's socket as before, the
    tracker ends (unlinking what a worker left) once every holder of its pipe has ended, the
    server once this process and the workers have. Each child keeps open only the descriptors
    a spawned one gets (`_child`).

    The modules of `shared` (what this process imports anyway, and the server too) are
    imported between the two forks: once for both, not once in each. False, and no server
    started, where this cannot be done safely: more than one thread (the process's own, as
    the system counts them), either helper already running, or a `multiprocessing` whose
    private names differ or whose server authenticates its clients (the caller then starts
    them as `multiprocessing` does; a tracker forked here serves it as its own)."""
    import os
    import signal
    import socket
    import sys
    from multiprocessing import connection, forkserver, resource_tracker, util

    server = getattr(forkserver, "_forkserver", None)
    tracker = getattr(resource_tracker, "_resource_tracker", None)
    if (
        _threads() != 1
        or not all(hasattr(server, name) for name in _SERVER_NAMES)
        or not all(hasattr(tracker, name) for name in ("_fd", "_pid"))
        or not all(hasattr(module, "main") for module in (forkserver, resource_tracker))
        or hasattr(server, "_forkserver_authkey")  # (a server that authenticates its clients)
        or server._forkserver_pid is not None
        or tracker._fd is not None
    ):
        return False
    stderr = _fileno(sys.stderr)
    for stream in (sys.stdout, sys.stderr):  # (a child's exit must not write them again)
        if stream is not None:
            stream.flush()
    ignored = (signal.SIGINT, signal.SIGTERM)  # as `resource_tracker.ensure_running`: the
    r, w = os.pipe()  # tracker ignores them once its `main` runs, blocked until then
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ignored)
    try:
        pid = os.fork()
        if pid == 0:
            _child(resource_tracker.main, (r,), (0, 1, stderr, r))
    except BaseException:
        os.close(w)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(r)
    tracker._fd, tracker._pid = w, pid
    for module in shared:
        try:
            importlib.import_module(module)
        except Exception:  # (left to the server, and to the command where it needs it)
            continue
    if _threads() != 1:  # (an import started one: the server is spawned)
        return False
    with socket.socket(socket.AF_UNIX) as listener:
        address = connection.arbitrary_address("AF_UNIX")
        listener.bind(address)
        if not util.is_abstract_socket_namespace(address):
            os.chmod(address, 0o600)
        listener.listen()
        # every client holds the "alive" pipe's write end: the server ends at its EOF
        alive_r, alive_w = os.pipe()
        try:
            pid = os.fork()
            if pid == 0:
                tracker._fd = tracker._pid = None  # (the server's own: as a spawned one's)
                os.environ.update(added)
                fds = (0, 1, stderr, listener.fileno(), alive_r)
                _child(forkserver.main, (listener.fileno(), alive_r, modules), fds)
        except BaseException:
            os.close(alive_w)
            raise
        finally:
            os.close(alive_r)
    server._forkserver_address = address
    server._forkserver_alive_fd = alive_w
    server._forkserver_pid = pid
    return True


def _threads() -> int:
    """This process's threads as the system counts them (those no Python module started
    too), or as `threading` does where `/proc` does not say."""
    import os
    import threading

    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


#: `multiprocessing.forkserver.ForkServer`'s attributes that `_fork_helpers` sets.
_SERVER_NAMES = ("_forkserver_address", "_forkserver_alive_fd", "_forkserver_pid")


def _fileno(stream: Any) -> int:
    """The stream's descriptor, or 2 (kept open in a child anyway) when it has none."""
    try:
        return int(stream.fileno())
    except Exception:
        return 2


def _child(main: Any, args: tuple[Any, ...], keep: Sequence[int]) -> None:
    """A forked helper's life: every descriptor closed but `keep` (those a process spawned by
    `multiprocessing` with them passed has: the standard three and its own), `main(*args)`
    run, then the process ended without this process's exit handlers (they are the
    command's), its standard streams flushed; an exception is printed, exit code 1, as a
    spawned helper's would be."""
    import contextlib
    import os
    import sys

    code = 0
    try:
        low = 3  # (the standard three are a spawned process's too)
        for fd in sorted(set(keep)):
            if fd >= low:
                os.closerange(low, fd)
                low = fd + 1
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        main(*args)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1
    except BaseException:
        code = 1
        with contextlib.suppress(BaseException):
            sys.excepthook(*sys.exc_info())
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code)


#: The variables that set OpenBLAS's threads (its own first); `server_environment` sets
#: the first only when none is set.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
#: The variable that names what `boot_fork_server` added to the server's environment (read by
#: `SERVER_BOOTED`).
ADDED = "SUDOKUBENCH_SERVER_ADDED"
#: The variable that names the backends whose modules the server imports (`SERVER_BOOTED`).
BACKENDS = "SUDOKUBENCH_SERVER_BACKENDS"
#: The module the fork server imports last when its environment had additions: it imports
#: the modules of the backends named (`_modules`), then takes the additions out, so that the
#: workers forked from it (and the programs they run) see the environment as the command had
#: it.
SERVER_BOOTED = "sudokubench.harness.pool.booted"


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the fork server's environment has added to `environ`, for its imports alone:
    `OPENBLAS_NUM_THREADS=1` where no variable sets OpenBLAS's threads. numpy's import (the
    native kernel's arrays on numba's path: the band kernel's kept object needs none) starts
    OpenBLAS's thread pool, a thread a core, which costs the server about 0.05-0.07 s of CPU
    (of numpy's 0.15-0.2) on its way to its first worker; no worker of the harness calls
    numpy's BLAS (a backend's solve is on one core). OpenBLAS reads it once, at numpy's
    import; the server then takes it out (`SERVER_BOOTED`)."""
    if any(name in environ for name in BLAS_THREADS) or ADDED in environ:
        return {}
    return {BLAS_THREADS[0]: "1", ADDED: BLAS_THREADS[0]}


#: `compare`'s options that keep `boot_for_command` from starting the server: the tasks run
#: elsewhere (`--cluster`), the backends come from the database (`--resume`), or no run at all.
_NOT_HERE = ("--cluster", "--resume", "--help", "-h")
#: `compare`'s option of the backends, in each of its spellings.
_BACKENDS = ("--backends", "--backend", "-b")


def boot_for_command(argv: Sequence[str], *, fork: bool = False) -> bool:
    """Start the fork server (`boot_fork_server`) when `argv` (the arguments after the
    program's name) is a `compare` that runs on this machine's pool and names its backends
    (`-b`) from the registry alone: what the command itself does once its arguments are
    parsed and checked, done before it imports the rest of the command line. Anything else
    (another command, `all`, a plug-in or a program, `--cluster`, `--resume`, a spelling this
    reading does not know) starts nothing here: the command starts the server as before. True
    when it started it.

    Read by hand, not parsed: a command line this reads wrongly (say `--db -b`) costs at most
    a server that imports modules no worker uses, or one started for a command that then
    fails on its arguments (it exits when this process ends).

    `fork`: this is the program's own command line, in a process just started
    (`boot_fork_server`'s `fork`).
    """
    if not argv or argv[0] != "compare":
        return False
    names = None
    args = iter(argv[1:])
    for arg in args:
        if arg == "--":
            break
        option, equals, value = arg.partition("=")
        if option in _NOT_HERE:
            return False
        if option in _BACKENDS and option.startswith("--"):
            names = value if equals else next(args, None)
        elif arg.startswith("-b") and not arg.startswith("--"):
            names = arg[2:] or next(args, None)
    if not names:
        return False
    from sudokubench.solvers import REGISTRY

    backends = [name.strip() for name in names.split(",") if name.strip()]
    if not backends or any(name.partition(":")[0] not in REGISTRY for name in backends):
        return False
    try:
        return boot_fork_server(backends, fork=fork)
    except Exception:  # (the command starts it again where it reports what went wrong)
        return False
