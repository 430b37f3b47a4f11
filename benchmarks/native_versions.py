"""`native`'s kernel at several git revisions, puzzle by puzzle in one process.

On a shared machine two runs a minute apart differ by more than a kernel change does; this
interleaves the versions on every puzzle instead. Each revision's `sudokubench` package is
exported (`git archive`) under another name (`sb_<commit>`, in the temporary directory, kept
for the next run so its numba cache is reused), imported beside the others, and each puzzle is
solved by every version in turn; a puzzle's time is its best of `--repeat` timed regions (the
timing rule's `run`). Printed: mean us a puzzle per version and its ratio to the first.

With `--passes` a version instead solves the whole file in one pass, the versions' passes
alternating (forwards, then backwards) for `--repeat` rounds, and a puzzle's time is its best
over the rounds: what `benchmarks/native.py --tdoku` times, where the caches and the branch
predictor have seen other puzzles since (the default's calls in a row favour branchy code).
Then "paired": each version's median over the rounds of its pass's total over the first
version's pass's total in the same round (a slow spell of a shared machine moves both). With
`--between` each puzzle is also solved through `backend.solve` after its timed call, the
Python work `benchmarks/native.py --tdoku` does between two kernel calls. With `--loop` a pass
is instead a numba loop calling the version's band kernel (`native_band.search`) once a puzzle,
nothing between two calls, timed by the thread's CPU clock: the kernel alone, without Python
(its best pass, and paired as above; 9x9 files only).

    python benchmarks/native_versions.py main HEAD
    python benchmarks/native_versions.py main HEAD --collections top1465 --limits 2
    python benchmarks/native_versions.py main HEAD --passes --repeat 5
    python benchmarks/native_versions.py main HEAD --passes --between --repeat 9
    python benchmarks/native_versions.py main HEAD --loop --repeat 41
    python benchmarks/native_versions.py main HEAD --counting --repeat 21

With `--counting` the versions instead count through the API, `count(grid, backend="native",
limit=..., keep=1)`, in turn (order reversed every round), CPU time of the process around the
call: the 6x6 grid with its first row given (issue 26's target), then with its first column or
its first box given (39,168 solutions each: 28,200,960 grids / 720 relabellings of the given
unit; not tuned on), and the first `--count` grids of multisolution5000 (9x9, 2 to ~900
solutions each) at limit 10**6 and at limit 5. Printed: each version's best and median over
the rounds and the rate of the best; every count must be exact and equal across versions.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def export(revision: str) -> str:
    """The package of `revision` importable as `sb_<commit>`; that name."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", revision],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if commit.returncode:
        sys.exit(f"not a revision: {revision!r}")
    name = f"sb_{commit.stdout.strip()}"
    folder = Path(tempfile.gettempdir()) / "sudokubench-versions"
    target = folder / name
    if not target.is_dir():
        archive = subprocess.run(
            ["git", "archive", commit.stdout.strip(), "sudokubench"], cwd=ROOT, capture_output=True
        )
        staging = folder / f"{name}.partial"
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(staging, filter="data")
        for path in (staging / "sudokubench").rglob("*.py"):
            text = path.read_text()
            path.write_text(re.sub(r"\bsudokubench\b", name, text))
        (staging / "sudokubench" / "puzzles").symlink_to(ROOT / "puzzles")
        (staging / "sudokubench").rename(target)
        staging.rmdir()
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    return name


def by_passes(
    versions: list,
    lines: list[str],
    limit: int,
    rounds: int,
    between: bool = False,
    cpu: bool = False,
) -> tuple[list[float], list[float]]:
    """Each version's sum over the puzzles of a puzzle's best time, the versions solving the
    whole file in turn (order reversed every other round); exits on a count other than 1.
    With `between` each puzzle is solved once more through `backend.solve` after its timed
    call (Python work between two kernel calls, as `benchmarks/native.py --tdoku` does).
    Also each version's paired ratio to the first: the median over the rounds of its pass's
    sum over the first version's pass's sum in the same round. With `cpu` a puzzle's time is
    the CPU time of its timed region (`timed_call`'s `cpu_s`: preemptions left out, the two
    clock reads around the region in)."""
    best = [[float("inf")] * len(lines) for _ in versions]
    sums = [[] for _ in versions]
    for round_number in range(rounds):
        order = list(range(len(versions)))
        for i in order if round_number % 2 == 0 else order[::-1]:
            _, backend, timed_call, grid = versions[i]
            puzzles = [grid.parse(line) for line in lines]
            times = best[i]
            total = 0.0
            for j, puzzle in enumerate(puzzles):
                timed = timed_call(backend, puzzle, limit, cpu=cpu)
                if timed.answer.count != 1:
                    sys.exit(f"{versions[i][0]}: {timed.answer.count} solutions of {lines[j]}")
                if between:
                    backend.solve(puzzle, limit=limit)
                took = timed.cpu_s if cpu else timed.solve_s
                times[j] = min(times[j], took)
                total += took
            sums[i].append(total)
    paired = [statistics.median(a / b for a, b in zip(s, sums[0], strict=True)) for s in sums]
    return [sum(times) for times in best], paired


def kernel_loop(njit, search, nodes_at):
    """A compiled loop calling `search` once a state (a row of `states`, copied to `scratch`),
    nothing between two calls; it returns the nodes of all the calls."""

    @njit
    def loop(work, states, scratch):
        nodes = 0
        for i in range(states.shape[0]):
            scratch[:] = states[i]
            search(work, scratch)
            nodes += scratch[nodes_at]
        return nodes

    return loop


def by_loop(names: list[str], lines: list[str], limit: int, rounds: int) -> tuple[list, list]:
    """Each version's best pass over the puzzles (seconds) and paired ratio to the first, the
    passes a numba loop calling the version's `native_band.search` once a puzzle with nothing
    between two calls (no Python, no `backend.solve`), alternated (order reversed every other
    round), each timed by this thread's CPU clock; exits when the versions' nodes differ."""
    import numpy as np
    from numba import njit

    loops = []
    for name in names:
        band = importlib.import_module(f"{name}.solvers.native_band")
        layout = importlib.import_module(f"{name}.solvers.native_band_layout")
        grid = importlib.import_module(f"{name}.grid").Grid

        work = np.zeros(layout.work_size(1), dtype=np.int64)
        work[layout.TABLE_AT : layout.ROWS_AT].view(np.int32)[: layout.TABLE_SIZE] = (
            band.band_tables()
        )
        digits = [grid.parse(line).digit_bytes() for line in lines]
        states = np.stack([band.state(d, 1, limit, 10**9, False) for d in digits])
        loops.append((kernel_loop(njit, band.search, band.NODES), work, states, states[0].copy()))
    nodes = [loop(work, states, scratch) for loop, work, states, scratch in loops]
    if any(n != nodes[0] for n in nodes):
        sys.exit(f"the versions' nodes differ: {nodes}")
    times: list[list[float]] = [[] for _ in loops]
    for round_number in range(rounds):
        order = list(range(len(loops)))
        for i in order if round_number % 2 == 0 else order[::-1]:
            loop, work, states, scratch = loops[i]
            start = time.thread_time()
            loop(work, states, scratch)
            times[i].append(time.thread_time() - start)
    paired = [statistics.median(a / b for a, b in zip(t, times[0], strict=True)) for t in times]
    return [min(t) for t in times], paired


def counting(versions: list, names: list[str], lines: list[str], rounds: int) -> None:
    """`count(..., keep=1)` through each version's API, in turn; CPU seconds per case."""
    apis = [importlib.import_module(f"{name}.api") for name in names]
    shape = [importlib.import_module(f"{name}.grid").Shape(2, 3) for name in names]
    six = {
        "6x6 first row": [(0, 1, 2, 3, 4, 5), 39_168],
        "6x6 first column": [(0, 6, 12, 18, 24, 30), 39_168],
        "6x6 first box": [(0, 1, 2, 6, 7, 8), 39_168],
    }
    cases = {}
    for title, (cells, known) in six.items():
        digits = [0] * 36
        for d, k in enumerate(cells, 1):
            digits[k] = d
        grids = [v[3](s, tuple(digits)) for v, s in zip(versions, shape, strict=True)]
        cases[title] = ([[g] for g in grids], 10**6, known)
    many = [[v[3].parse(line) for line in lines] for v in versions]
    cases[f"multisolution5000 ({len(lines)}), limit 10**6"] = (many, 10**6, None)
    cases[f"multisolution5000 ({len(lines)}), limit 5"] = (many, 5, None)
    print(f"load average {os.getloadavg()[0]:.1f}; count(..., keep=1), CPU ms (best, median)")
    for title, (grids, limit, known) in cases.items():
        times: list[list[float]] = [[] for _ in versions]
        counts: list[list[int] | None] = [None] * len(versions)
        for round_number in range(rounds):
            order = list(range(len(versions)))
            for i in order if round_number % 2 == 0 else order[::-1]:
                start = time.process_time()
                found = [apis[i].count(g, backend="native", limit=limit, keep=1) for g in grids[i]]
                times[i].append(time.process_time() - start)
                counts[i] = [f.count for f in found]
                if known is not None and (found[0].count, found[0].exhaustive) != (known, True):
                    sys.exit(f"{versions[i][0]}: {found[0].count} solutions in {title}")
        if any(c != counts[0] for c in counts):
            sys.exit(f"the versions' counts differ in {title}")
        total = sum(counts[0])
        shown = "  ".join(
            f"{rev} {min(t) * 1e3:.2f} {statistics.median(t) * 1e3:.2f} "
            f"({min(t) / min(times[0]):.3f}x; {total / min(t) / 1e6:.2f} M/s)"
            for (rev, *_), t in zip(versions, times, strict=True)
        )
        print(f"{title:<38} {total:>9,}: {shown}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def main() -> None:
    """Parse the options, load every version, time them puzzle by puzzle."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions; the first is the base")
    parser.add_argument("--collections", default="top1465,top95,17clue")
    parser.add_argument("--count", type=int, default=3000, help="puzzles per collection at most")
    parser.add_argument("--limits", default="1,2")
    parser.add_argument("--repeat", type=int, default=3, help="solves per puzzle (best kept)")
    parser.add_argument(
        "--passes", action="store_true", help="alternate whole passes over a file, not calls"
    )
    parser.add_argument(
        "--between",
        action="store_true",
        help="with --passes: each puzzle solved again through backend.solve after its timed call",
    )
    parser.add_argument(
        "--cpu", action="store_true", help="with --passes: the timed region's CPU time, not wall"
    )
    parser.add_argument(
        "--loop", action="store_true", help="alternate numba loops of the band kernel (see above)"
    )
    parser.add_argument(
        "--counting", action="store_true", help="count through the API (see above), not solve"
    )
    args = parser.parse_args()
    versions = []
    names = []
    for revision in args.revisions:
        name = export(revision)
        names.append(name)
        native = importlib.import_module(f"{name}.solvers.native")
        native.warm()  # compiles the first time, outside any timing
        backend = importlib.import_module(f"{name}.backend")
        grid = importlib.import_module(f"{name}.grid")
        versions.append((revision, native.Native(), backend.timed_call, grid.Grid))
    formats = importlib.import_module(f"{export(args.revisions[0])}.formats")
    if args.counting:
        puzzles = formats.read_puzzles(formats.collection_path("multisolution5000"))
        lines = [str(r.puzzle) for r, _ in zip(puzzles, range(min(args.count, 200)), strict=False)]
        counting(versions, names, lines, args.repeat)
        return
    print(f"load average {os.getloadavg()[0]:.1f}; mean us a puzzle (x the first revision)")
    for collection in args.collections.split(","):
        lines = [str(r.puzzle) for r in formats.read_puzzles(formats.collection_path(collection))]
        lines = lines[: args.count]
        for limit in map(int, args.limits.split(",")):
            paired = None
            if args.loop:
                total, paired = by_loop(names, lines, limit, args.repeat)
            elif args.passes:
                total, paired = by_passes(
                    versions, lines, limit, args.repeat, args.between, args.cpu
                )
            else:
                total = [0.0] * len(versions)
                for line in lines:
                    for i, (_, backend, timed_call, grid) in enumerate(versions):
                        puzzle = grid.parse(line)
                        runs = (
                            timed_call(backend, puzzle, limit, cpu=False)
                            for _ in range(args.repeat)
                        )
                        total[i] += min(t.solve_s for t in runs)
            shown = "  ".join(
                f"{rev} {t / len(lines) * 1e6:.2f} ({t / total[0]:.3f}x)"
                for (rev, *_), t in zip(versions, total, strict=True)
            )
            if paired is not None:
                shown += "; paired " + " ".join(f"{r:.3f}x" for r in paired[1:])
            print(f"{collection:<8} {len(lines):>5} limit {limit}: {shown}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
