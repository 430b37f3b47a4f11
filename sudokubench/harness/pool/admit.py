"""Admitting dask workers: a worker takes a run's batches only once it has shown that it can
run every backend of the run, however late it joined the cluster.

`Admission` is a dask `WorkerPlugin`. Registered on the scheduler (`admit`), dask runs its
`setup` on every worker there is and on every worker that joins later (a nanny's restarted
worker too) before that worker has been given anything of ours: `setup` runs
`probe.worker_info` on it, and only a worker that has every backend gets the resource named
`tag(backends)`. Every batch asks for one unit of that resource, so the scheduler sends batches
to admitted workers only; a worker that lacks a backend stays idle, and `refusals` says which
and why. The resource's quantity is far above any thread count: it picks workers, never limits
how many batches run at once.

Roads not taken: probing new workers from the client between batches (a worker joining while
every batch was already placed took some; a probe can only follow the join), a check at the
start of each batch that sends a refused batch elsewhere (dask has no "any worker but this
one", and the idle newcomer is the scheduler's first choice again).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from sudokubench.harness.pool.probe import worker_info

__all__ = ["UNITS", "Admission", "admit", "refusals", "tag"]

#: The admitted workers' quantity of the run's resource: more than any worker's threads.
UNITS = 2**30


def tag(backends: Sequence[str]) -> str:
    """The resource (and plugin) name for a set of backends: the same set, the same name."""
    digest = hashlib.sha256("\n".join(sorted(set(backends))).encode()).hexdigest()
    return f"sudokubench-{digest[:16]}"


class Admission(WorkerPlugin):
    """On each worker: probe it for `backends`; admit it (give it the resource `tag`) only
    when none is missing, else keep why in `missing`."""

    idempotent = True  # registered again by the next run of the same backends: kept as is

    def __init__(self, backends: Sequence[str]) -> None:
        self.backends = list(backends)
        self.name = tag(backends)
        self.missing: dict[str, str] = {}

    async def setup(self, worker: Any) -> None:
        """Probe (in a thread: it imports the backends) and admit when nothing is missing."""
        info = await asyncio.to_thread(worker_info, self.backends)
        self.missing = dict(info["missing"])
        if not self.missing:
            await worker.set_resources(**{self.name: UNITS})


def admit(client: Any, backends: Sequence[str]) -> str:
    """Register `Admission` for `backends` on `client`'s cluster (it runs on every worker now
    and on each that joins later); the resource each batch must ask for."""
    plugin = Admission(backends)
    client.register_plugin(plugin, name=plugin.name)
    return plugin.name


def refusals(client: Any, name: str) -> dict[str, str]:
    """The workers the plugin `name` did not admit, each with what it lacks."""
    found = client.run(_missing, name, on_error="ignore")  # (a worker may be leaving)
    return {
        worker: "; ".join(f"{b}: {why}" for b, why in missing.items())
        for worker, missing in sorted(found.items())
        if missing
    }


def _missing(name: str, dask_worker: Any) -> dict[str, str]:
    """On a worker: what the plugin `name` found missing there (nothing if it never ran)."""
    plugin = dask_worker.plugins.get(name)
    return dict(plugin.missing) if isinstance(plugin, Admission) else {}
