"""`native`'s first compile and cache load at several git revisions, alternated.

Each revision's `sudokubench` package is exported (`git archive`, its bytecode compiled before
any timing) and run in fresh processes: the first with an empty numba cache (a new
`NUMBA_CACHE_DIR`: the compile), the second with the cache the first filled (the load). The
revisions take turns, in an order reversed every round, so that a change in the machine's load
hits them alike. Each line is one process's CPU time (user + system, of the process and the
children it waited for) and its wall time, with the load average before it; the summary gives
each revision's median and range of CPU.

    python benchmarks/native_compile.py a904820 main HEAD
    python benchmarks/native_compile.py main HEAD --rounds 5 --command compare

`--command warm` (the default) times `import` and `native.warm()`, what `sudokubench backends
--warm` and every other command pay before their first native solve; `--command compare` the
README's first command restricted to `native` (`sudokubench compare -b native`: the built-in
showcase, 4x4, 9x9 and 16x16 puzzles, its workers loading the kernel from the cache it fills).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS = {
    "warm": ["-c", "from sudokubench.solvers import native; native.warm()"],
    "compare": ["-m", "sudokubench", "compare", "-b", "native", "--db", "{db}"],
}


def export(revision: str, folder: Path) -> Path:
    """`revision`'s package under `folder/<commit>/sudokubench`, compiled to bytecode; the
    folder to put on PYTHONPATH."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", revision], cwd=ROOT, capture_output=True, text=True
    )
    if commit.returncode:
        sys.exit(f"not a revision: {revision!r}")
    target = folder / commit.stdout.strip()
    archive = subprocess.run(
        ["git", "archive", commit.stdout.strip(), "sudokubench"], cwd=ROOT, capture_output=True
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    (target / "sudokubench" / "puzzles").symlink_to(ROOT / "puzzles")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(target)], check=True)
    where = subprocess.run(
        [sys.executable, "-c", "import sudokubench; print(sudokubench.__file__)"],
        cwd=target,
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True,
        text=True,
    )
    if not where.stdout.startswith(str(target)):  # an installed sudokubench came first
        sys.exit(f"the export of {revision} is not the one imported: {where.stdout}")
    return target


def timed(arguments: list[str], path: Path, cache: str) -> tuple[float, float]:
    """CPU and wall seconds of one process running `arguments` on the package at `path`."""
    env = {**os.environ, "PYTHONPATH": str(path), "NUMBA_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Run from the export's folder: `python -c` and `-m` put the working directory first on
    # sys.path, where a checkout's own package would shadow the export.
    done = subprocess.run(
        [sys.executable, *arguments], cwd=path, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{' '.join(arguments)} failed:\n{done.stderr}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu, wall


def main() -> None:
    """Parse the options, export the revisions, time them in turn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions")
    parser.add_argument("--rounds", type=int, default=3, help="compiles and loads per revision")
    parser.add_argument("--command", choices=sorted(COMMANDS), default="warm")
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {r: [] for r in args.revisions}
    with tempfile.TemporaryDirectory(prefix="native-compile-") as scratch:
        folder = Path(scratch)
        paths = {revision: export(revision, folder) for revision in args.revisions}
        width = max(map(len, args.revisions))
        print(f"{args.command}: CPU s (wall s) of a fresh process, load average before it")
        for round_no in range(args.rounds):
            order = args.revisions if round_no % 2 == 0 else args.revisions[::-1]
            for revision in order:
                cache = tempfile.mkdtemp(dir=folder, prefix="cache-")
                arguments = [a.format(db=f"{cache}.db") for a in COMMANDS[args.command]]
                load = os.getloadavg()[0]
                compile_cpu, compile_wall = timed(arguments, paths[revision], cache)
                load_cpu, load_wall = timed(arguments, paths[revision], cache)
                results[revision].append((compile_cpu, load_cpu))
                print(
                    f"round {round_no + 1}  {revision:<{width}}  load {load:4.1f}  "
                    f"empty cache {compile_cpu:6.2f} ({compile_wall:6.2f})  "
                    f"filled {load_cpu:5.2f} ({load_wall:5.2f})",
                    flush=True,
                )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    for revision, runs in results.items():
        compiles = [c for c, _ in runs]
        loads = [lo for _, lo in runs]
        print(
            f"{revision:<{width}}  empty cache median {statistics.median(compiles):.2f} s CPU "
            f"({min(compiles):.2f}-{max(compiles):.2f})  filled median "
            f"{statistics.median(loads):.2f} s ({min(loads):.2f}-{max(loads):.2f})"
        )


if __name__ == "__main__":
    main()
