"""`lib:` fidelity and the timing floor, side by side in one run.

    python benchmarks/lib.py                               # the test library (tests/c/)
    python benchmarks/lib.py --tdoku ~/src/tdoku           # tdoku, built here in a temp folder
    python benchmarks/lib.py --tdoku ~/src/tdoku --puzzles top1465 --puzzles 17clue:1-5000

**Fidelity**, per puzzle file: the mean time per puzzle of `compare --jobs 1 -b lib:...` (its
timed region, `wall_s`, and the worker's CPU time in it, `cpu_s`, read from the run's database)
against the library's own figure: tdoku's `run_benchmark -s tdoku` (with `--tdoku`, same
puzzles, not permuted) and a direct ctypes loop in this process (plain `argtypes`, the same
calls back to back, each timed as `compare` times one, the best of `--rounds`). Target: within
15% + 1 us of each, on the mean wall time (tdoku's figure is a mean) and on the median. On a
busy machine (a load average above the CPU count) the mean means little: a timed region of a
few microseconds now and then waits milliseconds for a CPU, and the wall time of
`run_benchmark`'s seconds-long loop counts its waits too; then the median alone decides the
exit code. The CPU times are printed beside them (`compare`'s `cpu_s`, which also holds about
0.6 us of the clock's own system call; the loop's `process_time`; `run_benchmark`'s figure
scaled by the share of a CPU it got, its CPU time over its wall time).

Beside them, `interleaved`: the backend's timed region (`bind`) timed in this process with a
worker's work around each call (the puzzle read and prepared before, the answer decoded
after), not a target: where it sits above the ctypes loop, the work between two calls costs
the library its warm caches, which no timer can leave out.

**Floor**, on already-solved 9x9 grids (the solutions of kaggle9999): the median timed region
of `compare --jobs 1` (at its default limit, 2) for `lib:` and `native` in the same run.
Targets: lib: <= 1.5 us, native <= 3 us.

**Per-call cost**, on one solved grid: the empty timed region (the two clock reads alone), and
one call made in four ways, from `argtypes` (converted on each call) to the backend's timed
region (ready C values on `PyDLL`, what `bind` gives), to show what each step saves.

**Targets**: the last block has one line per target, `met` or `NOT MET`; the exit code is 0
when every decisive one is met. On a machine whose load average is above its CPU count the
means are not decisive (marked so): then the medians and the floor decide.

With `--tdoku PATH` (a checkout of t-dillon/tdoku) the checkout is copied into a temporary
folder and built there with its own BUILD.sh (`./BUILD.sh run_benchmark`, then `make
tdoku_shared` in build/: -O3 -march=native); nothing of tdoku is kept. Without it, the C solver
of the tests (tests/c/tdoku_abi.c) is compiled with `cc -O2` and only the ctypes loop is the
reference. The load average is printed beside every figure: compare figures only from a quiet
machine, or as the ratios of one run.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from _common import load_average

from sudokubench.catalog import resolve_input

ROOT = Path(__file__).resolve().parent.parent
TEST_SOURCE = ROOT / "tests" / "c" / "tdoku_abi.c"
SYMBOL = "TdokuSolverDpllTriadSimd"
#: Solved grids for the floor: the solutions of this shipped file.
SOLVED = ROOT / "puzzles" / "kaggle9999.solutions.txt"


def build_tdoku(checkout: Path, into: Path) -> tuple[Path, Path]:
    """tdoku's shared library and run_benchmark, built from a copy of `checkout` in `into`."""
    source = into / "tdoku"
    shutil.copytree(checkout, source, ignore=shutil.ignore_patterns("build", ".git"))
    log = into / "build.log"
    with log.open("w") as out:
        for command, where in (
            (["./BUILD.sh", "run_benchmark"], source),
            (["make", "tdoku_shared"], source / "build"),
        ):
            done = subprocess.run(command, cwd=where, stdout=out, stderr=subprocess.STDOUT)
            if done.returncode:
                sys.exit(f"building tdoku failed ({' '.join(command)}): see {log}")
    library = next((source / "build").glob("libtdoku_shared.*"))
    return library, source / "build" / "run_benchmark"


def build_test_library(into: Path) -> Path:
    """tests/c/tdoku_abi.c as a shared library."""
    target = into / "libtdoku_abi.so"
    compiler = shutil.which("cc") or sys.exit("no C compiler (cc) for the test library")
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(target), str(TEST_SOURCE)],
                   check=True)  # fmt: skip
    return target


def puzzle_file(spec: str, into: Path) -> tuple[str, Path]:
    """A PUZZLE|FILE|collection[:subset] as a plain file of 81-char lines (what run_benchmark
    and compare both read); its label."""
    source = resolve_input(spec)
    lines = [str(r.puzzle) for r in source.records(None)]
    if any(len(line) != 81 for line in lines):
        sys.exit(f"{spec}: lib: takes 9x9 puzzles only")
    label = spec.replace("/", "_").replace(":", "_")
    path = into / f"{label}.txt"
    path.write_text("".join(f"{line}\n" for line in lines))
    return spec, path


def compare_times(
    puzzles: Path, backends: list[str], limit: int, db: Path
) -> dict[str, tuple[list[float], list[float]]]:
    """Each backend's timed regions of a `compare --jobs 1` run over `puzzles`: the wall
    seconds (`wall_s`) and the worker's CPU seconds in them (the `cpu_s` stat)."""
    command = [sys.executable, "-m", "sudokubench", "compare", str(puzzles), "--jobs", "1",
               "--limit", str(limit), "--timeout", "60", "--db", str(db), "-b", ",".join(backends),
               "-q"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"compare failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    with sqlite3.connect(db) as conn:
        run = conn.execute("SELECT MAX(id) FROM runs").fetchone()[0]
        rows = conn.execute(
            "SELECT backend, wall_s, json_extract(stats, '$.cpu_s') FROM tasks WHERE run_id = ? "
            "AND sample >= 0 AND status IN ('solved', 'unsatisfiable')",
            (run,),
        ).fetchall()
    times: dict[str, tuple[list[float], list[float]]] = {b: ([], []) for b in backends}
    for backend, wall_s, cpu_s in rows:
        times[backend][0].append(wall_s)
        times[backend][1].append(cpu_s or 0.0)
    return times


def run_benchmark_us(
    binary: Path, puzzles: Path, count: int, limit: int, seconds: int
) -> tuple[float, None, float]:
    """tdoku's own figure, usec/puzzle of `run_benchmark -s tdoku` on the file unpermuted, and
    the same scaled by the share of a CPU the program got (its CPU time over its wall time:
    on a busy machine a seconds-long loop's wall time also counts its waits for a CPU)."""
    command = [str(binary), "-s", "tdoku", "-c", "1", "-r", "0", "-n", str(count),
               "-t", str(seconds), "-w", str(max(1, seconds // 2))]  # fmt: skip
    if limit == 1:
        command.append("-f")
    before = os.times()
    start = time.perf_counter()
    out = subprocess.run([*command, str(puzzles)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = after.children_user + after.children_system
    cpu -= before.children_user + before.children_system
    line = [x for x in out.stdout.splitlines() if ",tdoku" in x][-1]
    us = float(line.split(",")[-3])
    return us, None, us * min(1.0, cpu / wall)


def ctypes_loop_us(
    library: Path, lines: list[str], limit: int, rounds: int
) -> tuple[float, float, float]:
    """A plain ctypes loop over the puzzles, each call timed on its own as `compare` times one
    (so a wait for the CPU between two calls is in neither): the mean and median wall time and
    the CPU time per puzzle of the best of `rounds` passes, in microseconds."""
    function = getattr(ctypes.CDLL(str(library)), SYMBOL)
    function.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_char_p,
                         ctypes.POINTER(ctypes.c_size_t)]  # fmt: skip
    function.restype = ctypes.c_size_t
    solution, guesses = ctypes.create_string_buffer(96), ctypes.c_size_t()
    ref, data, clock = ctypes.byref(guesses), [line.encode() for line in lines], time.perf_counter
    best: tuple[float, float, float] = (float("inf"), 0.0, 0.0)
    for _ in range(rounds):
        times, cpu_start = [], time.process_time()
        for puzzle in data:
            start = clock()
            function(puzzle, limit, 0, solution, ref)
            times.append(clock() - start)
        cpu = (time.process_time() - cpu_start) / len(data)
        best = min(best, (statistics.fmean(times), statistics.median(times), cpu))
    return best[0] * 1e6, best[1] * 1e6, best[2] * 1e6


def interleaved_us(library: Path, lines: list[str], limit: int, rounds: int) -> tuple:
    """The timed region as `compare`'s worker times it (`bind`, then `function(*arguments)`
    between two clock reads), with what a worker does around it (the puzzle read and prepared
    before the call, the answer decoded after it): the mean and median wall time per puzzle
    of the best of `rounds` passes, in us (no CPU figure: the process's CPU time holds the
    work around the calls). Set against the ctypes loop it shows what the work between two
    calls costs the library's own (the caches it leaves cold)."""
    from sudokubench.formats import parse_grid
    from sudokubench.solvers.lib import LibBackend

    backend, clock = LibBackend(str(library)), time.perf_counter
    best = (float("inf"), 0.0)
    for _ in range(rounds):
        times = []
        for line in lines:
            prepared = backend.prepare(parse_grid(line), limit)
            function, arguments = backend.bind(prepared, None)
            start = clock()
            raw = function(*arguments)
            times.append(clock() - start)
            backend.answer(prepared, raw)
        best = min(best, (statistics.fmean(times), statistics.median(times)))
    return best[0] * 1e6, best[1] * 1e6, None


def per_call_us(library: Path, grid: str, calls: int = 200_000) -> dict[str, float]:
    """On a solved grid, in us (the best of five passes each): the empty timed region (the two
    clock reads alone, median), and one call made in each of the ways that lead to the
    backend's: `argtypes` set (each argument converted on every call); the function bound with
    `functools.partial` to ctypes objects (the backend's call before its region was the bare
    call: a ctypes argument object made for each of them on every call, the GIL released);
    ready C values (`from_param`, `byref`) on `CDLL`; the same on `PyDLL`, which keeps the
    GIL, as the backend's timed region makes it (`bind`)."""
    from sudokubench.grid import Grid
    from sudokubench.solvers.lib import LibBackend

    backend = LibBackend(str(library))
    prepared = backend.prepare(Grid.parse(grid), 1)
    function, arguments = backend.bind(prepared, None)
    released = getattr(ctypes.CDLL(str(library)), SYMBOL)
    released.restype = ctypes.c_size_t
    plain = getattr(ctypes.CDLL(str(library)), SYMBOL)
    plain.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_char_p,
                      ctypes.POINTER(ctypes.c_size_t)]  # fmt: skip
    plain.restype = ctypes.c_size_t
    solution, guesses = ctypes.create_string_buffer(96), ctypes.c_size_t()
    ref, text, clock = ctypes.pointer(guesses), grid.encode(), time.perf_counter
    objects = (text, ctypes.c_size_t(1), ctypes.c_uint32(0), solution, ref)
    ways = {
        "argtypes": (plain, (text, 1, 0, solution, ref)),
        "partial, ctypes objects": (partial(released, *objects), ()),
        "ready C values, CDLL": (released, arguments),
        "ready C values, PyDLL (as timed)": (function, arguments),
    }
    best = {"empty timed region": float("inf")} | {way: float("inf") for way in ways}
    for _ in range(5):
        regions = []
        for _ in itertools.repeat(None, calls // 10):
            start = clock()
            regions.append(clock() - start)
        best["empty timed region"] = min(best["empty timed region"], statistics.median(regions))
        for way, (call, args) in ways.items():
            start = clock()
            for _ in itertools.repeat(None, calls):
                call(*args)
            best[way] = min(best[way], (clock() - start) / calls)
    return {way: seconds * 1e6 for way, seconds in best.items()}


#: The three figures of a fidelity line: mean and median wall time, mean CPU time.
KINDS = ("mean", "median", "CPU")


def show(figures: tuple[float | None, ...]) -> str:
    """A fidelity line's figures, `-` for one a reference lacks."""
    return "  ".join(
        f"{kind} {'-':>7}" if x is None else f"{kind} {x:7.2f}"
        for kind, x in zip(KINDS, figures, strict=True)
    )


def within(measured: float, reference: float) -> bool:
    """The fidelity target: within 15% + 1 us."""
    return abs(measured - reference) <= 0.15 * reference + 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tdoku", type=Path, help="a checkout of t-dillon/tdoku to build")
    parser.add_argument("--puzzles", action="append", help="9x9 puzzles (repeatable; default "
                        "17clue:1-2000, or kaggle9999:1-2000 for the test library)")  # fmt: skip
    parser.add_argument("--limit", type=int, default=1, help="fidelity limit (default 1)")
    parser.add_argument("--solved", type=int, default=2000, help="solved grids for the floor")
    parser.add_argument("--seconds", type=int, default=5, help="run_benchmark's test time")
    parser.add_argument("--rounds", type=int, default=5, help="passes of the ctypes loop")
    opts = parser.parse_args()
    targets: list[tuple[str, bool, bool]] = []  # (what, met, counts for the exit code)
    with tempfile.TemporaryDirectory(prefix="sudokubench-lib-") as tmp:
        folder = Path(tmp)
        binary = None
        if opts.tdoku:
            library, binary = build_tdoku(opts.tdoku.resolve(), folder)
            default = ["17clue:1-2000"]
        else:
            library = build_test_library(folder)
            default = ["kaggle9999:1-2000"]
        name = f"lib:{library}"
        print(f"library {library.name}; {os.cpu_count()} CPUs, load average {load_average()}")
        costs = per_call_us(library, SOLVED.read_text().split()[0][:81])
        print(f"on a solved grid, us (load {load_average()}):")
        for way, us in costs.items():
            print(f"  {us:6.3f}  {way}")

        quiet = os.getloadavg()[0] < (os.cpu_count() or 1)
        print(f"\nfidelity at limit {opts.limit}, us per puzzle (target: within 15% + 1 us; "
              f"{'mean and median' if quiet else 'the median only, on this busy machine,'} "
              "decide)")  # fmt: skip
        for spec in opts.puzzles or default:
            label, path = puzzle_file(spec, folder)
            lines = path.read_text().split()
            walls, cpus = compare_times(path, [name], opts.limit, folder / "fidelity.sqlite")[name]
            mine = tuple(
                x * 1e6
                for x in (statistics.fmean(walls), statistics.median(walls), statistics.fmean(cpus))
            )
            refs = {"ctypes loop": ctypes_loop_us(library, lines, opts.limit, opts.rounds)}
            if binary is not None:
                refs["run_benchmark"] = run_benchmark_us(
                    binary, path, len(lines), opts.limit, opts.seconds
                )
            between = interleaved_us(library, lines, opts.limit, opts.rounds)
            print(f"  {label} (load {load_average()})")
            print(f"    {'compare':<14} {show(mine)}")
            print(f"    {'interleaved':<14} {show(between)}   (the worker's work between calls)")
            for ref, figures in refs.items():
                marks = []
                for kind, measured, reference in zip(KINDS, mine, figures, strict=True):
                    if reference is None:
                        continue
                    good = within(measured, reference)
                    if kind in ("mean", "median"):
                        decides = kind == "median" or quiet
                        low, high = max(0.0, 0.85 * reference - 1.0), 1.15 * reference + 1.0
                        what = f"fidelity {label}, {kind} vs {ref}: {measured:.2f} us"
                        targets.append((f"{what}, target {low:.2f}-{high:.2f}", good, decides))
                    marks.append(f"{kind} x{measured / reference:.2f} {'ok' if good else 'MISSED'}")
                print(f"    {ref:<14} {show(figures)}   " + ", ".join(marks))

        grids = folder / "solved.txt"
        with SOLVED.open() as source:
            grids.write_text("".join(itertools.islice(source, opts.solved)))
        floor = {b: t[0] for b, t in compare_times(
            grids, [name, "native"], 2, folder / "floor.sqlite"
        ).items()}  # fmt: skip
        print(f"\nfloor: median timed region on {opts.solved} solved grids, compare --jobs 1")
        for backend, target in ((name, 1.5), ("native", 3.0)):
            median = statistics.median(floor[backend]) * 1e6
            good = median <= target
            label = "lib:" if backend == name else backend
            targets.append((f"floor {label}: {median:.2f} us, target <= {target}", good, True))
            print(f"  {label:<8} {median:6.2f} us  target <= {target} us  "
                  f"{'ok' if good else 'MISSED'}  (load {load_average()})")  # fmt: skip
    print(f"\ntargets (load {load_average()}):")
    for what, met, decides in targets:
        note = "" if decides else "  (not decisive on this busy machine)"
        print(f"  {'met' if met else 'NOT MET':<8} {what}{note}")
    sys.exit(0 if all(met for _, met, decides in targets if decides) else 1)


if __name__ == "__main__":
    main()
