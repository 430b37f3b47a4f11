"""Memory of the harness: the parent's peak RSS of `compare` by the number of tasks, and of
`report` in every format on the largest run.

    python benchmarks/memory.py                              # 50,000 and 200,000 tasks
    python benchmarks/memory.py --tasks 50000,200000,1000000 --jobs 2    # a million: minutes
    python benchmarks/memory.py --tasks 100000 --backends fast,dlx       # two backends

The puzzles are distinct valid puzzles made from the 49,158 of `17clue`: the k-th round over
the collection relabels the digits of every puzzle with its own permutation (a relabelled
puzzle is valid and unique as the original is), so any number of tasks has as many different
puzzles as tasks per backend. Each `compare` and `report` runs in a subprocess of its own that
reads its own peak RSS (VmHWM: the parent alone, not its workers) when the command ends.
Target (issue 12): the parent of `compare` at most 150 MB at a million tasks, flat in the
number of tasks; `report` at most 300 MB in every format at 200,000 tasks.
"""

from __future__ import annotations

import argparse
import gzip
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from sudokubench.formats import collection_path

#: Run in a subprocess: the command line of `sudokubench` in-process, then the process's own
#: peak RSS in kB written to the file named first: VmHWM on Linux (the high-water mark of this
#: program's memory; `ru_maxrss` would also count the process it was forked from, since
#: Linux keeps it across exec), else `ru_maxrss`.
_MEASURED = """
import resource, sys
from sudokubench.cli import main
try:
    main(sys.argv[2:])
    code = 0
except SystemExit as stop:
    code = stop.code
try:
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open(sys.argv[1], "w") as out:
    out.write(str(peak))
sys.exit(code)
"""

#: `report` outputs measured: the five formats, and the per-task exports.
REPORTS = (
    ("table",),
    ("markdown",),
    ("csv",),
    ("json",),
    ("html",),
    ("csv", "--per-task"),
    ("json", "--per-task"),
)


def distinct_puzzles(count: int) -> Iterator[str]:
    """`count` different valid puzzles: 17clue's, then each round relabelled anew."""
    with gzip.open(collection_path("17clue"), "rt", encoding="utf-8") as f:
        base = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    made = 0
    for k in range(count // len(base) + 1):
        digits = list("123456789")
        if k:
            random.Random(k).shuffle(digits)
            while digits == list("123456789"):
                digits = digits[1:] + digits[:1]
        table = str.maketrans("123456789", "".join(digits))
        for line in base:
            if made == count:
                return
            yield line.translate(table)
            made += 1


def measured(args: list[str], folder: Path) -> tuple[float, float, int]:
    """Run `sudokubench ARGS` in a subprocess: its wall seconds, peak RSS (MB), exit code."""
    rss = folder / "rss.txt"
    rss.unlink(missing_ok=True)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, str(rss), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"sudokubench {' '.join(args)} failed: {done.stderr.strip()}")
    return wall, int(rss.read_text()) / 1024, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", default="50000,200000", help="run sizes, comma-separated")
    parser.add_argument("--backends", default="fast", help="the backends of every run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-report", action="store_true", help="measure compare only")
    opts = parser.parse_args()
    sizes = sorted(int(x) for x in opts.tasks.split(","))
    backends = [b for b in opts.backends.split(",") if b]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"compare -b {opts.backends} --jobs {opts.jobs}: the parent's peak RSS")
        print(f"{'tasks':>10} {'puzzles':>10} {'wall s':>8} {'peak MB':>8}")
        peaks = []
        for tasks in sizes:
            puzzles = folder / f"p{tasks}.txt"
            n = tasks // len(backends)
            with puzzles.open("w", encoding="utf-8") as out:  # a line at a time
                out.writelines(f"{p}\n" for p in distinct_puzzles(n))
            db = folder / f"r{tasks}.sqlite"
            wall, peak, _ = measured(
                ["compare", str(puzzles), "-b", opts.backends, "--jobs", str(opts.jobs),
                 "--db", str(db)],
                folder,
            )  # fmt: skip
            peaks.append(peak)
            print(f"{n * len(backends):>10,} {n:>10,} {wall:>8.1f} {peak:>8.1f}")
            puzzles.unlink()
        print(
            f"growth from {sizes[0]:,} to {sizes[-1]:,} tasks: {peaks[-1] - peaks[0]:+.1f} MB "
            f"({(peaks[-1] - peaks[0]) / max(sizes[-1] - sizes[0], 1) * 1e6:.0f} bytes per task)"
        )
        if opts.no_report:
            return
        at = max((s for s in sizes if s <= 200_000), default=sizes[0])
        print(f"\nreport of the {at:,}-task run: peak RSS by format")
        print(f"{'format':<16} {'wall s':>8} {'peak MB':>8}")
        for fmt in REPORTS:
            wall, peak, _ = measured(
                ["report", "--db", str(folder / f"r{at}.sqlite"), "--format", *fmt], folder
            )
            print(f"{' '.join(fmt):<16} {wall:>8.1f} {peak:>8.1f}")


if __name__ == "__main__":
    main()
