"""`native` side by side with tdoku's own `run_benchmark` (the targets of the native issue).

For each collection and limit (1 and 2) one run measures, in rounds (forwards then backwards):

- tdoku: its `run_benchmark` on exactly the puzzles timed here (written to a file, no random
  permutation, `-n` their number), one second of warm-up and one of timing; its mean us a
  puzzle. It is built from a tdoku checkout with cmake (Release: -O3 -march=native) into a
  build directory beside the other temporary files, once.
- `native`'s kernel: the timed region of the timing rule (`timed_call(...).solve_s`, the
  backend's `run`), the mean over the puzzles of each puzzle's best over the rounds;
- `native` through `backend.solve(grid, limit=...)`, wall time around the call, the same way.

The best over the rounds on both sides: on a shared machine a preempted pass would otherwise
decide the ratio. The two bests differ: a puzzle's best solve leaves its preemptions out,
tdoku's best run (its own timing, a loop over the file) keeps the few it had; on a busy machine
this favours `native` a little. A mean over whole passes of `native` moved by 2x from run to
run at load 3-4 on 2 cores, too much to judge a target by. A last column gives the kernel's
ratio paired by round: the median over the rounds of each round's pass mean over that round's
tdoku figure (the two measured back to back), which a slow spell of a shared machine moves
less than it moves the two bests, taken at different times.
Targets: kernel <= 2x tdoku and `backend.solve` <= 3x tdoku, each file and limit.
"""

from __future__ import annotations

import hashlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sudokubench import Grid, get_backend
from sudokubench.backend import timed_call
from sudokubench.formats import collection_path, read_puzzles

#: The kernel's and the call's targets, as multiples of tdoku.
KERNEL_TARGET = 2.0
SOLVE_TARGET = 3.0


def tdoku_binary(checkout: str) -> Path:
    """tdoku's run_benchmark: the file itself when given, else built from the checkout."""
    given = Path(checkout)
    if given.is_file():
        return given
    if not (given / "CMakeLists.txt").is_file():
        sys.exit(f"--tdoku: {checkout!r} is neither run_benchmark nor a tdoku checkout")
    key = hashlib.sha256(str(given.resolve()).encode()).hexdigest()[:12]
    build = Path(tempfile.gettempdir()) / f"sudokubench-tdoku-{key}"
    binary = build / "run_benchmark"
    if not binary.is_file():
        build.mkdir(exist_ok=True)
        print(f"building tdoku's run_benchmark (cmake, Release) in {build.name} ...")
        for command in (
            ["cmake", str(given.resolve()), "-DCMAKE_BUILD_TYPE=Release"],
            ["make", "run_benchmark"],
        ):
            done = subprocess.run(command, cwd=build, capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"building tdoku failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    return binary


def tdoku_us(binary: Path, puzzles: list[Grid], limit: int, folder: Path) -> float:
    """tdoku's mean us a puzzle on `puzzles` at `limit` (1 or 2), from its own timing."""
    path = folder / "puzzles.txt"
    path.write_text("".join(f"{p}\n" for p in puzzles))
    command = [str(binary), "-c1", "-r0", "-w1", "-t1", f"-n{len(puzzles)}", "-s", "tdoku"]
    command += ["-f"] if limit == 1 else []
    out = subprocess.run([*command, str(path)], capture_output=True, text=True, check=True)
    csv = [line for line in out.stdout.splitlines() if ",tdoku," in line]
    if not csv:
        sys.exit(f"tdoku's run_benchmark said: {out.stdout[-500:]}")
    return float(csv[-1].split(",")[6])


def native_pass(puzzles: list[Grid], limit: int, best: dict[str, list[float]]) -> float:
    """One pass of `native` over `puzzles`: the timed region and the whole call, each puzzle's
    best so far kept in `best`; exits on a wrong count. The pass's own mean kernel us."""
    native = get_backend("native")
    total = 0.0
    for i, puzzle in enumerate(puzzles):
        timed = timed_call(native, puzzle, limit, cpu=False)
        start = time.perf_counter()
        result = native.solve(puzzle, limit=limit)
        wall = time.perf_counter() - start
        if result.count != 1 or timed.answer.count != 1:
            sys.exit(f"native found {result.count} solutions of {puzzle} at limit {limit}")
        best["kernel"][i] = min(best["kernel"][i], timed.solve_s)
        best["solve"][i] = min(best["solve"][i], wall)
        total += timed.solve_s
    return total / len(puzzles) * 1e6


def side_by_side(binary: Path, name: str, count: int | None, rounds: int) -> list[str]:
    """Both limits of one collection (its first `count` puzzles); the table's lines."""
    records = read_puzzles(collection_path(name))
    puzzles = [r.puzzle for i, r in enumerate(records) if count is None or i < count]
    lines = []
    with tempfile.TemporaryDirectory() as folder:
        for limit in (1, 2):
            tdoku, passes = [], []
            best = {k: [float("inf")] * len(puzzles) for k in ("kernel", "solve")}
            for r in range(rounds):
                for side in ("tdoku", "native") if r % 2 == 0 else ("native", "tdoku"):
                    if side == "tdoku":
                        tdoku.append(tdoku_us(binary, puzzles, limit, Path(folder)))
                    else:
                        passes.append(native_pass(puzzles, limit, best))
            # each round's own ratio (its pass's mean kernel time over its tdoku run, the two
            # back to back): the median is less moved by a slow spell than the bests are
            paired = statistics.median(p / t for p, t in zip(passes, tdoku, strict=True))
            t = min(tdoku)
            kernel = statistics.fmean(best["kernel"]) * 1e6
            solve = statistics.fmean(best["solve"]) * 1e6
            lines.append(
                f"{name:<10} {len(puzzles):>6} {limit:>5} {t:>9.1f} {kernel:>10.1f} "
                f"{solve:>9.1f} {kernel / t:>6.2f}x {_met(kernel / t, KERNEL_TARGET):>7} "
                f"{solve / t:>6.2f}x {_met(solve / t, SOLVE_TARGET):>7} {paired:>7.2f}x"
            )
            print(lines[-1], flush=True)
    return lines


def _met(ratio: float, target: float) -> str:
    return "met" if ratio <= target else "not met"


def compare_tdoku(checkout: str, files: list[tuple[str, int | None]], rounds: int) -> None:
    """The side-by-side table for `files` (collection, puzzles or None for all)."""
    binary = tdoku_binary(checkout)
    print(
        f"\nside by side with tdoku's run_benchmark (best of {rounds} rounds each; "
        f"targets: kernel <= {KERNEL_TARGET:g}x, backend.solve <= {SOLVE_TARGET:g}x)"
    )
    print(
        f"{'file':<10} {'puzzles':>6} {'limit':>5} {'tdoku us':>9} {'kernel us':>10} "
        f"{'solve us':>9} {'kernel':>7} {'':>7} {'solve':>7} {'':>7} {'paired':>8}"
    )
    print("(paired: the median over the rounds of a round's kernel pass mean / its tdoku run)")
    for name, count in files:
        side_by_side(binary, name, count, rounds)
