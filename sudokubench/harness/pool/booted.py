"""Imported last by the pool's fork server when `boot.server_environment` added variables to
its environment for its own imports (OpenBLAS's threads, read at numpy's import): takes them
out again, so that the workers it forks, and the programs they run, see the environment as the
command that started the server had it."""

from __future__ import annotations

import os
from collections.abc import MutableMapping


def restore(environ: MutableMapping[str, str] = os.environ) -> list[str]:
    """The variables `boot.server_environment` added, taken out of `environ` (and that list
    itself): the names taken out."""
    names = environ.pop("SUDOKUBENCH_SERVER_ADDED", "")
    taken = [name for name in names.split(",") if name]
    for name in taken:
        environ.pop(name, None)
    return taken


restore()
