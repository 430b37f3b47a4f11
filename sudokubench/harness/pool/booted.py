"""Imported last by the pool's fork server when `boot.boot_fork_server` added variables to its
environment for its own imports: imports the modules of the backends it names
(`boot.BACKENDS`, `boot._modules`: e.g. native's kernel, loaded once for every worker), then
takes the additions out again (OpenBLAS's threads, read at numpy's import, among them), so
that the workers it forks, and the programs they run, see the environment as the command that
started the server had it."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, MutableMapping

from sudokubench.harness.pool.boot import ADDED, BACKENDS, _modules


def preload(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The modules of the backends `environ` names (`boot.BACKENDS`), imported: those that
    imported. A module that fails is left to each worker, which reports it when it loads the
    backend; the server itself never fails of it (multiprocessing ends a server whose preload
    raises anything but an ImportError)."""
    names = [name for name in environ.get(BACKENDS, "").split(",") if name]
    if not names:
        return []
    try:
        modules = _modules(names)
    except Exception:
        return []
    done = []
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception:
            continue
        done.append(module)
    return done


def restore(environ: MutableMapping[str, str] = os.environ) -> list[str]:
    """The variables `boot.boot_fork_server` added, taken out of `environ` (and that list
    itself): the names taken out."""
    names = environ.pop(ADDED, "")
    taken = [name for name in names.split(",") if name]
    for name in taken:
        environ.pop(name, None)
    return taken


preload()
restore()
