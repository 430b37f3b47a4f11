"""Asking a backend whether it is available, and its version, without running its code here.

`compare` checks every backend before a run starts. Sudokubench's own backends are asked in
this process; a plug-in (`module:attr`, an entry point) or an `exec:` program is asked in a
child process (`python -m sudokubench.harness.plugins NAME`): importing it there cannot patch
this process's checks, print into its stdout, hang it, or change files outside a temporary
folder (`confine.py`). The child gets `load_timeout()`
seconds (`SUDOKUBENCH_LOAD_TIMEOUT`, default 60), runs in a session of its own and is killed
as a group when it overruns; what it prints goes to its stderr, which is discarded; its answer
comes back as one JSON line on a descriptor of its own, at most `ANSWER_BYTES` read.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from functools import cache
from typing import NamedTuple

from sudokubench.harness.pool.guard import (
    LOAD_HINT,
    describe_exception,
    load_timeout,
    plain_text,
    trusted,
)

__all__ = ["Probe", "load_timeout", "probe"]

#: Most bytes read back from a probe.
ANSWER_BYTES = 65536


class Probe(NamedTuple):
    """What a backend says about itself: available (else why not), its version, and the only
    shapes it takes (`"RxC"` box shapes; None: any size)."""

    available: bool
    reason: str
    version: str | None
    shapes: tuple[str, ...] | None = None


def ask(name: str) -> Probe:
    """Load `name` in this process and ask it (what the child runs)."""
    from sudokubench.solvers import get_backend

    backend = get_backend(name)  # UnknownBackendError for a bad name or a broken plug-in
    try:
        ok = bool(backend.available())
        reason = "" if ok else plain_text(backend.unavailable_reason() or "not available here")
    except Exception as exc:
        ok, reason = False, f"available() raised {describe_exception(exc)}"
    try:
        version = backend.version()
        version = None if version is None else plain_text(version, 100)
    except Exception as exc:  # a plug-in's version() must not stop the run
        version = f"unknown ({type(exc).__name__})"
    shapes = getattr(backend, "shapes", None)  # a capability few backends declare
    return Probe(ok, reason, version, None if shapes is None else tuple(sorted(map(str, shapes))))


@cache
def probe(name: str) -> Probe:
    """`ask(name)`, here for sudokubench's own backends, else in a child process (see the
    module docstring). UnknownBackendError when the backend cannot be loaded."""
    if trusted(name):
        return ask(name)
    with tempfile.TemporaryDirectory(prefix="sudokubench-probe-") as scratch:
        return _ask_child(name, scratch)


def _ask_child(name: str, scratch: str) -> Probe:
    """`ask(name)` in a child process that may change files only in `scratch`."""
    from sudokubench.errors import UnknownBackendError

    read, write = os.pipe()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "sudokubench.harness.plugins", name, str(write), scratch],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write,),
            start_new_session=True,
            # the modules this process can import (as a worker can: it gets this sys.path)
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
        )
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as answer:
        try:
            child.wait(load_timeout())
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            raise UnknownBackendError(
                f"backend {name!r} did not load within {load_timeout():g} s ({LOAD_HINT})"
            ) from None
        finally:  # descendants it left in its session
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGKILL)
        os.set_blocking(answer.fileno(), False)
        data = answer.read(ANSWER_BYTES) or b""
    try:
        reply = json.loads(data.decode(errors="replace").splitlines()[0])
    except (ValueError, IndexError):
        raise UnknownBackendError(
            f"backend {name!r}: loading it ended the process ({child.returncode})"
        ) from None
    if "error" in reply:
        raise UnknownBackendError(plain_text(reply["error"]))
    shapes = reply.get("shapes")
    if shapes is not None:
        shapes = tuple(plain_text(x, 20) for x in shapes)
    return Probe(bool(reply["available"]), plain_text(reply["reason"]), reply["version"], shapes)


def _main(name: str, fd: int, scratch: str) -> None:  # pragma: no cover - runs in the child
    from sudokubench.confine import cache_folder, confine_writes
    from sudokubench.errors import UnknownBackendError

    if confine_writes(scratch, cache_folder(name)) is not None:  # (as its workers will be)
        tempfile.tempdir = os.environ["TMPDIR"] = scratch
    out = os.fdopen(fd, "w")
    try:
        reply: dict[str, object] = ask(name)._asdict()
    except UnknownBackendError as exc:
        reply = {"error": plain_text(exc)}
    except Exception as exc:
        reply = {"error": f"backend {name!r}: {describe_exception(exc)}"}
    out.write(json.dumps(reply) + "\n")
    out.flush()
    os._exit(0)  # no atexit hooks or finalizers of the plug-in's


if __name__ == "__main__":  # pragma: no cover - the child
    _main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
