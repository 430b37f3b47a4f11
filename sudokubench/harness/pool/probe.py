"""What a worker machine is: `worker_info` describes the machine it runs on (host, CPU count,
Python, the version of each requested backend, the backends it cannot run and why). `LocalPool`
describes this machine with it; `DaskExecutor` runs it on every dask worker (`client.run`)
before the first task, so a backend missing on some worker stops the run before it starts."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

from sudokubench._version import __version__

__all__ = ["HOST", "worker_info"]

#: This machine's name, as task rows record it.
HOST = socket.gethostname()


def worker_info(backends: Sequence[str]) -> dict[str, Any]:
    """This process's machine and what it can run of `backends`.

    Keys: `host`, `cpu_count`, `python`, `platform`, `sudokubench` (its version), `backends`
    (name -> version, for those available here), `missing` (name -> why not).
    """
    import platform  # (here: the pool's fork server imports this module for `HOST`)

    from sudokubench.solvers import get_backend

    versions: dict[str, str | None] = {}
    missing: dict[str, str] = {}
    for name in backends:
        try:
            backend = get_backend(name)
            if not backend.available():
                missing[name] = backend.unavailable_reason() or "not available"
                continue
        except Exception as exc:  # e.g. a plug-in that does not import on this machine
            missing[name] = f"{type(exc).__name__}: {exc}"
            continue
        try:
            versions[name] = backend.version()
        except Exception as exc:  # a plug-in's version() must not stop the run
            versions[name] = f"unknown ({type(exc).__name__})"
    return {
        "host": HOST,
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "sudokubench": __version__,
        "backends": versions,
        "missing": missing,
    }
