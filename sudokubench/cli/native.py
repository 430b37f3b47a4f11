"""What the command line does with the `native` backend beyond the contract.

- `count --all`: every solution counted by the kernel, none kept but the first `KEEP` (checked
  with the independent checker, and the count against the file's expected count).
- `count --estimate`: Knuth's estimate of the number of solutions, with its standard error and
  95% interval, probing for `--timeout` seconds (10 by default).
- `backends --warm`: compile or load the kernel's machine code once, ahead of any timing.

JSON keys: `--all` has the stable `status`, `count`, `exhaustive`, `backend`, `time_s` and
`first_solutions` (not `solutions`: only the first few are kept); `--estimate` has `estimate:
true`, `count` (the estimate, a float), `standard_error`, `interval`, `probes`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from sudokubench.cli.app import ARGUMENT_ID, UsageFailure, emit_json
from sudokubench.formats import PuzzleRecord
from sudokubench.grid import solution_problem
from sudokubench.solvers import get_backend
from sudokubench.solvers.native import Native

#: Seconds of probing for `count --estimate` without `--timeout`.
ESTIMATE_SECONDS = 10.0


def _native() -> Native:
    """The native backend, or a usage error with the install hint when numba is missing."""
    backend = get_backend("native")
    assert isinstance(backend, Native)
    if not ready_native():
        raise UsageFailure(f"the native backend is not ready: {backend.unavailable_reason()}")
    return backend


def count_natively(
    records: Iterable[PuzzleRecord], timeout: float | None, as_json: bool, *, estimate: bool
) -> bool:
    """`count --all` or `count --estimate` over the records; False when an answer is wrong."""
    backend = _native()
    sound = True
    for record in records:
        label = "" if record.id == ARGUMENT_ID else f"{record.id}: "
        if estimate:
            est = backend.estimate(record.puzzle, seconds=timeout or ESTIMATE_SECONDS)
            low, high = est.interval
            if as_json:
                emit_json(
                    {
                        "estimate": True,
                        "count": est.mean,
                        "standard_error": est.standard_error,
                        "interval": [low, high],
                        "probes": est.probes,
                        "backend": backend.name,
                        "time_s": round(est.seconds, 6),
                        "id": record.id,
                    }
                )
            elif est.mean == 0:
                print(f"{label}no solution reached by {est.probes:,} probes (estimate: 0)")
            else:
                print(
                    f"{label}about {est.mean:.4g} solutions (estimate: {est.probes:,} probes, "
                    f"standard error {100 * est.relative_error:.2g}%, 95% interval "
                    f"{low:.4g} to {high:.4g})"
                )
            continue
        result = backend.count_all(record.puzzle, timeout=timeout)
        problems = [
            f"solution {i}: {why}"
            for i, grid in enumerate(result.first, 1)
            if (why := solution_problem(grid, record.puzzle))
        ]
        expected = record.expected_count
        if result.exhaustive and expected is not None and expected != result.count:
            problems.append(f"{result.count} solutions, the file says {expected}")
        sound &= not problems
        if as_json:
            status = "timeout" if not result.exhaustive else "solved" if result.count else ""
            emit_json(
                {
                    "status": status or "unsatisfiable",
                    "count": result.count,
                    "exhaustive": result.exhaustive,
                    "first_solutions": [str(g) for g in result.first],
                    "backend": backend.name,
                    "time_s": round(result.solve_s, 6),
                    "id": record.id,
                }
            )
        elif result.exhaustive:
            print(f"{label}{result.count:,} solutions (all counted)")
        else:
            print(f"{label}timed out after counting {result.count:,} (at least {result.count:,})")
        for problem in problems:
            print(f"{record.id}: WRONG: {problem}", file=sys.stderr)
    return sound


def warm_native(*, quiet: bool) -> None:
    """Compile (first time) or load the native kernel and say how long it took."""
    if not ready_native(quiet=quiet):
        if not quiet:
            print("native: not ready, nothing to warm")
        return
    from sudokubench.solvers.native import warm

    seconds = warm()  # (cached: the time ready_native took)
    if not quiet:
        print(f"native: kernel ready in {seconds:.1f} s (numba's on-disk cache)\n")


#: Said on stderr before the kernel is compiled (numba's cache does not hold it yet).
NOTICE = "compiling the native backend's kernel (once per machine, 15-30 s)..."


def ready_native(*, quiet: bool = False, workers_only: bool = False) -> bool:
    """Compile or load the native kernel in this process now (False when numba is missing).

    Commands call this before anything that needs the kernel, so its first compile happens
    here, announced on stderr (unless `quiet`), and never inside a worker's load limit or a
    timed call (workers then load the cached machine code).

    `workers_only`: only worker processes will solve (`compare`). When numba's cache already
    holds the kernel, it is not loaded here at all (the workers' fork server loads it) and
    `available()` no longer loads it in this process; a cold cache is still compiled here, once.
    A cache beside the kernel's sources (`native.kernel_cached_beside`) is seen without
    importing numba here at all: only the workers' fork server imports it.
    """
    from sudokubench.solvers import native

    cached = native.kernel_cached()  # (one beside the sources is seen without numba)
    if workers_only and cached:
        native.load_on_available = False
        return True
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    if cached is False and not quiet:
        print(NOTICE, file=sys.stderr, flush=True)
    native.warm()
    return True
