"""`compare`'s start-up: whole commands of git revisions run alternately, and a timeline of one.

    python benchmarks/command_start.py main HEAD                 # 17clue:..20 and ..20000, 5 rounds
    python benchmarks/command_start.py main . --counts 20 --rounds 10
    python benchmarks/command_start.py . --timeline              # where one command's time goes
    python benchmarks/command_start.py main HEAD --server --rounds 10   # the fork server's CPU

Each revision's `sudokubench` package and puzzles are exported (`git archive`; `.` is the
working tree as it is) into the temporary directory, kept for the next run, so numba's cache
beside the kernel is warm after the first (`backends --warm`, not timed); every command runs
in that folder, so that Python imports its package and no other. A round runs
`python -m sudokubench compare 17clue:..N -b native --jobs 2 -q --db FILE` once for each
revision and count, the revisions' order reversed every other round. Printed for each: the
medians of the whole command's wall time (as the shell sees it) and of the run's own
(`machine.noise.wall_s`), and the median of each round's ratio to the first revision's (a
pair measured seconds apart); the load average is printed with every round.

`--timeline` runs the command once with a tracer (a `sitecustomize` on `PYTHONPATH`, which a
fork server and resource tracker started as new Pythons load too, and those forked from the
command and the workers inherit) and prints, in seconds since the command's process
started, each process's start, the start and end of the imports and calls that make up the
start-up, the first task solved in each worker and the run's end, with each process's CPU
seconds at that moment.

`--server` times, in CPU seconds, a process that imports what each revision's fork server
imports for `-b native` (the worker's modules, numba, the kernel's cached code): the work
between the server's start and its first worker, alternately.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The tracer of `--timeline`: loaded by every Python process started with its folder on
#: `PYTHONPATH` (the command, its fork server and resource tracker; workers are forked).
TRACER = r"""
import functools, importlib.abc, os, sys, time

LOG = os.environ.get("COMMAND_START_LOG")


def log(what):
    with open(LOG, "a") as f:
        f.write(f"{time.time():.4f} {os.getpid()} {time.process_time():.3f} {what}\n")


def _began():
    with open("/proc/self/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f:
        up = float(f.read().split()[0])
    return time.time() - (up - ticks / os.sysconf("SC_CLK_TCK"))


IMPORTS = {
    "typer", "numpy", "numba", "sudokubench.cli.app", "sudokubench.harness.run",
    "sudokubench.harness.pool.worker", "sudokubench.solvers.native_ready",
}
CALLS = {
    "sudokubench.harness.pool.boot": ["boot_fork_server", "_child"],
    "sudokubench.harness.pool.local": ["boot_fork_server", "LocalPool.close"],
    "sudokubench.cli.native": ["ready_native"],
    "sudokubench.solvers.native": ["warm", "load", "ready"],
    "sudokubench.harness.run": [
        "resolve_args", "load_puzzle_lists", "_Run.go", "_record_noise", "finish_report",
    ],
    "sudokubench.harness.report.render": ["write"],
    "sudokubench.harness.pool.worker": ["worker_main", "run_task"],
}
ONCE = {"run_task"}


def wrap(module, name):
    owner, *path = [module, *name.split(".")]
    for part in path[:-1]:
        owner = getattr(owner, part)
    f = getattr(owner, path[-1], None)
    if f is None or getattr(f, "_traced", False):
        return
    calls = [0]

    @functools.wraps(f)
    def traced(*a, **k):
        if name == "_child":  # a helper forked from the command: its start, named by its main
            log(f"start {_began():.4f} forked: {a[0].__module__}")
            return f(*a, **k)
        calls[0] += 1
        say = name not in ONCE or calls[0] == 1
        if say:
            log(f"call {name}")
        try:
            return f(*a, **k)
        finally:
            if say:
                log(f"end  {name}")

    traced._traced = True
    setattr(owner, path[-1], traced)


class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in IMPORTS and fullname not in CALLS:
            return None
        for finder in sys.meta_path:
            if finder is not self and hasattr(finder, "find_spec"):
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        else:
            return None
        run = spec.loader.exec_module

        def exec_module(module):
            log(f"import {fullname}")
            run(module)
            for name in CALLS.get(fullname, ()):
                wrap(module, name)
            log(f"imported {fullname}")

        spec.loader.exec_module = exec_module
        return spec


if LOG:
    log(f"start {_began():.4f} {' '.join(sys.orig_argv[1:4])[:90]}")
    sys.meta_path.insert(0, Finder())
    import atexit

    atexit.register(log, "exit")
"""


def export(revision: str) -> Path:
    """A folder holding `revision`'s `sudokubench` package and puzzles (`.`: this tree)."""
    if revision == ".":
        return ROOT
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", revision],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = Path(tempfile.gettempdir()) / f"sb-command-start-{commit}"
    if not (folder / "sudokubench").is_dir():
        archive = subprocess.run(
            ["git", "archive", "--format=tar", commit, "sudokubench", "puzzles"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
    return folder


def command(count: int, db: Path) -> list[str]:
    """The command timed."""
    return [
        sys.executable, "-m", "sudokubench", "compare", f"17clue:..{count}",
        "-b", "native", "--jobs", "2", "-q", "--db", str(db),
    ]  # fmt: skip


def run_once(folder: Path, count: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    """One command of the code in `folder`: its wall seconds and the run's `wall_s`."""
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "run.sqlite"
        env = {**os.environ, **(env or {})}
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (env.get("PYTHONPATH_FIRST"), str(folder)) if p
        )
        start = time.perf_counter()
        done = subprocess.run(
            command(count, db), env=env, cwd=folder, capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"{folder}: exit {done.returncode}\n{done.stderr[-2000:]}")
        with sqlite3.connect(db) as conn:
            (machine,) = conn.execute("SELECT machine FROM runs").fetchone()
        return wall, json.loads(machine)["noise"]["wall_s"]


def timeline(folder: Path, count: int) -> None:
    """One command traced: its processes' events in order."""
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "sitecustomize.py").write_text(TRACER)
        log = Path(scratch) / "events"
        wall, run_wall = run_once(
            folder, count, {"PYTHONPATH_FIRST": scratch, "COMMAND_START_LOG": str(log)}
        )
        rows = [line.split(None, 3) for line in log.read_text().splitlines()]
    began = {r[1]: float(r[3].split()[1]) for r in rows if r[3].startswith("start ")}
    origin = min(began.values())
    names: dict[str, str] = {}
    for r in rows:
        what = r[3]
        if r[1] not in names:
            if "forkserver" in what:
                names[r[1]] = "server"
            elif "resource_tracker" in what:
                names[r[1]] = "tracker"
            elif not names:
                names[r[1]] = "command"
            else:
                names[r[1]] = f"worker {sum(n.startswith('worker') for n in names.values()) + 1}"
    print(f"{'s':>7}  {'process':<9} {'cpu s':>6}  event")
    for stamp, pid, cpu, what in sorted(rows, key=lambda r: float(r[0])):
        if what.startswith("start "):
            at = began[pid] - origin
            what = f"process started at {at:.3f} s ({what.split(None, 2)[2]})"
        print(f"{float(stamp) - origin:7.3f}  {names[pid]:<9} {cpu:>6}  {what}")
    print(f"whole command {wall:.2f} s, the run's wall_s {run_wall:.2f} s, load {_load()}")


def server_modules(folder: Path) -> tuple[list[str], dict[str, str]]:
    """The modules `folder`'s fork server imports for `compare -b native`, and what it adds
    to its environment for them (`boot.server_environment`, where the revision has it)."""
    code = (
        "import json, os\n"
        "from sudokubench.harness.pool import boot\n"
        "from sudokubench.harness.pool.local import WORKER_MODULES, _modules\n"
        "modules = [*WORKER_MODULES, *_modules(['native'])]\n"
        "added = getattr(boot, 'server_environment', lambda environ: {})(os.environ)\n"
        "print(json.dumps([modules + ([boot.SERVER_BOOTED] if added else []), added]))"
    )
    env = {**os.environ, "PYTHONPATH": str(folder)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=folder, capture_output=True, text=True
    )
    modules, added = json.loads(done.stdout)
    return modules, added


def server_cpu(folder: Path, modules: tuple[list[str], dict[str, str]]) -> float:
    """CPU seconds of a process that imports what `folder`'s fork server does (`python -B`,
    as multiprocessing starts it, in its environment): the server's work before it forks its
    first worker."""
    modules, added = modules
    env = {**os.environ, **added, "PYTHONPATH": str(folder)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = f"import {', '.join(modules)}"
    subprocess.run([sys.executable, "-B", "-c", code], env=env, cwd=folder, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def servers(folders: dict[str, Path], rounds: int) -> None:
    """`--server`: each revision's fork server's CPU seconds, alternately."""
    modules = {rev: server_modules(folder) for rev, folder in folders.items()}
    got: dict[str, list[float]] = {rev: [] for rev in folders}
    for round_no in range(rounds):
        for rev in list(folders) if round_no % 2 == 0 else list(reversed(folders)):
            got[rev].append(server_cpu(folders[rev], modules[rev]))
    print(f"the fork server's imports, CPU s (load {_load()}):")
    first = next(iter(folders))
    for rev, cpu in got.items():
        ratio = statistics.median(a / b for a, b in zip(cpu, got[first], strict=True))
        each = ", ".join(f"{c:.2f}" for c in cpu)
        print(f"  {rev:<12} median {statistics.median(cpu):.3f} ({ratio:.2f}); each: {each}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revisions", nargs="+", help="git revisions; `.`: the working tree")
    parser.add_argument("--counts", default="20,20000", help="puzzles of 17clue, comma-separated")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--timeline", action="store_true", help="trace one command of each")
    parser.add_argument(
        "--server", action="store_true", help="time each fork server's imports alone"
    )
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    folders = {rev: export(rev) for rev in args.revisions}
    for folder in folders.values():  # numba's cache of each warm first (not timed)
        env = {**os.environ, "PYTHONPATH": str(folder)}
        warm = [sys.executable, "-m", "sudokubench", "backends", "--warm", "--json"]
        subprocess.run(warm, env=env, cwd=folder, capture_output=True, check=False)
        where = [sys.executable, "-c", "import sudokubench; print(sudokubench.__file__)"]
        found = subprocess.run(where, env=env, cwd=folder, capture_output=True, text=True)
        if not found.stdout.startswith(str(folder)):  # (an installed copy taken instead)
            sys.exit(f"{folder}: python imports {found.stdout.strip()}")
    if args.server:
        servers(folders, args.rounds)
        return
    if args.timeline:
        for rev, folder in folders.items():
            for count in counts:
                print(f"\n{rev}, 17clue:..{count}")
                timeline(folder, count)
        return
    walls: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for round_no in range(args.rounds):
        order = list(folders) if round_no % 2 == 0 else list(reversed(folders))
        for count in counts:
            for rev in order:
                walls.setdefault((rev, count), []).append(run_once(folders[rev], count))
        print(f"round {round_no + 1}: load {_load()}", flush=True)
    first = args.revisions[0]
    for count in counts:
        print(f"\n17clue:..{count}: median s (each round's ratio to {first}: median)")
        for rev in args.revisions:
            got = walls[rev, count]
            base = walls[first, count]
            cmd = statistics.median(w for w, _ in got)
            run = statistics.median(r for _, r in got)
            ratio_cmd = statistics.median(a[0] / b[0] for a, b in zip(got, base, strict=True))
            ratio_run = statistics.median(a[1] / b[1] for a, b in zip(got, base, strict=True))
            each = ", ".join(f"{w:.2f}/{r:.2f}" for w, r in got)
            print(
                f"  {rev:<12} command {cmd:.2f} ({ratio_cmd:.2f}), run {run:.2f} "
                f"({ratio_run:.2f}); each command/run: {each}"
            )


if __name__ == "__main__":
    main()
