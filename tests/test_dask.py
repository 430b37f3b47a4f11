"""`compare` on a dask.distributed cluster: real scheduler and worker processes on 127.0.0.1,
nothing of dask mocked. A LocalCluster of 2 workers serves the module; every run on it is
compared with the same run through a LocalPool (verdicts, counts, the checks of the answers)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import HANG_S, MULTIPLE, TELEGRAM, Stopwatch, collection, stored, with_ctrl_c

pytest.importorskip("distributed")

from sudokubench.harness import CompareArgs, Interrupted, compare
from sudokubench.harness.pool import HOST, DaskExecutor
from sudokubench.harness.store import Store

SCRIPT = Path(sys.executable).with_name("sudokubench")
TESTS = Path(__file__).resolve().parent
SLOW = ("fake_backends:SlowHonest",)


@pytest.fixture(autouse=True)
def _from_the_puzzles_folder(tmp_path, monkeypatch):
    """Run from the folder of the puzzle files: their ids are their paths from there
    (`p.txt:1`), as a user who gives `p.txt` sees them."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of 2 worker processes on 127.0.0.1, as `--cluster local:2` starts."""
    with DaskExecutor.connect("local:2") as executor:
        yield executor


def worker_pids(executor: DaskExecutor) -> dict[str, int]:
    return executor.client.run(os.getpid)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def answers(report) -> dict[tuple[str, str, int], tuple]:
    """What each task answered and how the harness judged it, by (puzzle, backend, sample)."""
    return {
        (t.puzzle_id, t.backend, t.sample): (t.status, t.count, t.exhaustive, t.verdict, t.valid)
        for t in report.tasks
    }


def verdicts(report) -> dict[str, tuple]:
    """Each puzzle's cross-check: agreed, the consensus, the problems' kinds, who is blamed."""
    return {
        pid: (v.agreed, v.consensus, tuple(p.kind for p in v.problems), v.blamed)
        for pid, v in report.verdicts.items()
    }


def both_ways(args: CompareArgs, tmp_path: Path, cluster: DaskExecutor):
    """The same run through a LocalPool of 2 and on the cluster."""
    local = compare(args, db=tmp_path / "local.sqlite")
    remote = compare(args, db=tmp_path / "dask.sqlite", executor=cluster)
    return local, remote


@pytest.mark.slow
def test_a_cluster_run_equals_a_local_run(tmp_path, cluster):
    lines = [str(r.puzzle) for r in collection("kaggle9999", 150)]
    lines += [str(r.puzzle) for r in collection("multisolution5000", 50, step=7)]
    lines += [str(r.puzzle) for r in collection("top95", 40)]
    lines += [TELEGRAM, MULTIPLE]
    puzzles = write(tmp_path / "mix.txt", lines)
    args = CompareArgs(files=(str(puzzles),), backends=("fast", "dlx", "norvig"), jobs=2)
    local, remote = both_ways(args, tmp_path, cluster)
    assert len(remote.tasks) == 3 * len(lines) == len({t.task_id for t in remote.tasks})
    assert answers(remote) == answers(local)
    assert verdicts(remote) == verdicts(local)
    assert remote.ok and local.ok
    counts = {t.count for t in remote.tasks if t.puzzle_id.endswith(f":{len(lines)}")}
    assert counts == {2}  # MULTIPLE, with the default limit 2
    # every task row names the machine that ran it; the run names every worker
    assert {t.host for t in remote.tasks} == {HOST} == {t.host for t in local.tasks}
    # and each task's peak memory, measured in the worker that ran it
    assert all(type(t.peak_memory_bytes) is int for t in remote.tasks)
    assert min(t.peak_memory_bytes for t in remote.tasks) > 1_000_000
    workers = remote.run.machine["workers"]
    assert {w["worker"] for w in workers} == set(worker_pids(cluster))
    for w in workers:
        assert w["host"] == HOST and w["cpu_count"] == os.cpu_count()
        assert w["python"] == sys.version.split()[0]
        assert set(w["backends"]) == {"fast", "dlx", "norvig"}
    assert not any("hosts" in line for line in remote.warnings)


@pytest.mark.slow
def test_a_wrong_plugin_is_caught_as_on_a_local_run(tmp_path, cluster):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM, f"{MULTIPLE}:28"])
    backends = ("fast", "fake_backends:WrongSolution", "fake_backends:WrongCount")
    args = CompareArgs(files=(str(puzzles),), backends=backends, timeout=10)
    local, remote = both_ways(args, tmp_path, cluster)
    judged = {(t.puzzle_id, t.backend): (t.verdict, t.valid, t.problem) for t in remote.tasks}
    assert judged == {
        (t.puzzle_id, t.backend): (t.verdict, t.valid, t.problem) for t in local.tasks
    }
    verdict, valid, problem = judged[("p.txt:1", "fake_backends:WrongSolution")]
    assert verdict == ">=1" and not valid and problem.startswith("solution 1 is wrong: ")
    assert judged[("p.txt:1", "fast")] == ("=1", True, None)
    assert verdicts(remote) == verdicts(local)
    assert not remote.ok and remote.disagreement_count == local.disagreement_count > 0


@pytest.mark.slow
def test_a_hanging_backend_times_out_on_a_dask_worker_and_the_run_goes_on(tmp_path, cluster):
    pids = worker_pids(cluster)
    puzzles = write(tmp_path / "p.txt", [TELEGRAM, TELEGRAM.replace("8", ".", 1)])
    args = CompareArgs(
        files=(str(puzzles),), backends=("fast", "fake_backends:SleepForever"), timeout=0.5
    )
    report = compare(args, db=tmp_path / "r.sqlite", executor=cluster)
    got = {(t.puzzle_id, t.backend): t for t in report.tasks}
    for k in (1, 2):
        hung = got[(f"p.txt:{k}", "fake_backends:SleepForever")]
        # killed at its own deadline (its message), however late a loaded machine made it
        assert hung.status == "timeout" and 1.0 <= hung.wall_s < HANG_S, hung
        assert "killed after" in hung.message and hung.message.endswith("(timeout 0.5 s)")
        assert got[(f"p.txt:{k}", "fast")].status == "solved"
    assert worker_pids(cluster) == pids  # the solver process was killed, not the dask worker


@pytest.mark.slow
def test_the_memory_limit_holds_on_dask_workers(tmp_path, cluster):
    """With a memory limit, each dask worker's pool holds its process to it: the hog's tasks
    are ERROR "memory limit" (they solved, at 600 MB, before), fast's are solved, and the dask
    workers themselves live on."""
    from sudokubench.harness.pool.memory import parse_size

    pids = worker_pids(cluster)
    limit = parse_size("200M")
    capped = DaskExecutor(cluster.client, memory_limit=limit)  # (the client stays open)
    puzzles = write(tmp_path / "p.txt", [TELEGRAM, MULTIPLE])
    args = CompareArgs(files=(str(puzzles),), backends=("fast", "hostile_plugins:Hog"))
    report = compare(args, db=tmp_path / "r.sqlite", executor=capped)
    hog = [t for t in report.tasks if t.backend == "hostile_plugins:Hog"]
    assert len(hog) == 2
    for t in hog:
        assert t.status == "error" and t.message.startswith("memory limit: the worker resided")
        assert t.peak_memory_bytes > limit
    assert {t.status for t in report.tasks if t.backend == "fast"} == {"solved"}
    assert worker_pids(cluster) == pids


@pytest.mark.slow
def test_a_cluster_left_without_workers_interrupts_the_run(tmp_path):
    """Every worker leaves mid-run and none joins: the batches would wait for ever (the run
    hung); after `timeout` seconds without a worker the run is interrupted, saying so, with
    what finished stored, and `--resume` completes it here."""
    lines = [str(r.puzzle) for r in collection("kaggle9999", 30)]
    puzzles = write(tmp_path / "p.txt", lines)
    db = tmp_path / "r.sqlite"
    args = CompareArgs(files=(str(puzzles),), backends=SLOW)
    with DaskExecutor.connect("local:1", timeout=2, batch_size=2) as executor:
        address = executor.address

        def leave(progress) -> None:
            if progress.done == 2:
                executor._cluster.scale(0)  # (no worker comes back)

        with pytest.raises(Interrupted) as stopped:
            compare(args, db=db, executor=executor, progress=leave)
    assert stopped.value.reason.startswith(
        f"no dask worker of the scheduler at {address} could take the run's tasks "
        "for 2 s (the workers left)"
    )
    with Store(db, create=False) as store:
        assert store.run(1).status == "interrupted"
        assert 2 <= len(store.done_task_ids(1)) < 30
    compare(args, db=db, resume=1, trust_backends=True)
    with Store(db, create=False) as store:
        assert sorted(store.done_task_ids(1)) == list(range(30))


@pytest.mark.slow
def test_a_dask_worker_killed_mid_run_loses_no_task(tmp_path, cluster):
    lines = [str(r.puzzle) for r in collection("kaggle9999", 30)]
    puzzles = write(tmp_path / "p.txt", lines)
    args = CompareArgs(files=(str(puzzles),), backends=("fast", "fake_backends:SlowHonest"))
    undisturbed = compare(args, db=tmp_path / "calm.sqlite")
    victim = max(worker_pids(cluster).values())
    seen: list[int] = []

    def kill_one(progress) -> None:
        seen.append(progress.done)
        if progress.done == 10:
            os.kill(victim, signal.SIGKILL)

    report = compare(args, db=tmp_path / "r.sqlite", executor=cluster, progress=kill_one)
    assert victim not in worker_pids(cluster).values()
    assert seen == list(range(1, 61))  # every task came back once
    with Store(tmp_path / "r.sqlite", create=False) as store:
        assert sorted(store.done_task_ids(report.run.id)) == list(range(60))
    assert answers(report) == answers(undisturbed)
    assert verdicts(report) == verdicts(undisturbed) and report.ok


def group_gone(pgid: int, limit: float = 30) -> bool:
    """Whether every process of the group has ended within `limit` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow
def test_ctrl_c_on_the_command_line_stops_the_cluster_and_the_run_resumes_locally(tmp_path):
    lines = [str(r.puzzle) for r in collection("kaggle9999", 60)]
    puzzles = write(tmp_path / "p.txt", lines)
    db = tmp_path / "r.sqlite"
    env = dict(os.environ, PYTHONPATH=str(TESTS))
    proc = subprocess.Popen(
        [
            str(SCRIPT),
            "compare",
            str(puzzles),
            "-b",
            "fake_backends:SlowHonest",
            "--db",
            str(db),
            "--cluster",
            "local:2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own group, as a terminal's Ctrl-C reaches all of it
        preexec_fn=with_ctrl_c,  # (its SIGINT handled, even where this one's is ignored)
    )
    try:
        deadline = time.monotonic() + 120
        while stored(db) < 2:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no progress"
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)  # a second Ctrl-C while the cluster stops
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    # the clean lines are the last: no dask warning nor traceback after them
    *_, stopped, resume = err.splitlines()
    assert stopped == "interrupted: the finished tasks of run 1 are stored", err[-3000:]
    assert resume == f"resume with: sudokubench compare --resume 1 --db {db} --trust-backends"
    assert "Traceback" not in err and "distributed" not in err, err[-3000:]
    assert group_gone(proc.pid), "a dask or solver process outlived the run"
    with Store(db, create=False) as store:
        assert store.run(1).status == "interrupted"
        assert 2 <= len(store.done_task_ids(1)) < 60
    resumed = subprocess.run(
        # the run names a plug-in: resuming runs it only with the user's consent
        [str(SCRIPT), "compare", "--resume", "1", "--db", str(db), "-q", "--trust-backends"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    with Store(db, create=False) as store:
        assert sorted(store.done_task_ids(1)) == list(range(60))
        assert {t.status for t in store.tasks(1)} == {"solved"}


def stop(proc: subprocess.Popen) -> None:
    """Stop a dask process as Ctrl-C would (its worker process with it), else kill it."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.mark.slow
def test_ctrl_c_on_a_cluster_run_and_a_resume_on_another_executor(tmp_path, cluster):
    """A run stopped on the cluster resumes on a LocalPool, and the other way round; each
    equals an undisturbed run."""
    lines = [str(r.puzzle) for r in collection("kaggle9999", 20)]
    args = CompareArgs(files=(str(write(tmp_path / "p.txt", lines)),), backends=("fast", "dlx"))
    undisturbed = compare(args, db=tmp_path / "calm.sqlite")

    def stop_after(n: int):
        def progress(p) -> None:
            if p.done == n:
                raise KeyboardInterrupt

        return progress

    for first, then in ((cluster, None), (None, cluster)):
        db = tmp_path / f"{first is None}.sqlite"
        with pytest.raises(Interrupted) as stopped:
            compare(args, db=db, executor=first, progress=stop_after(5))
        run_id = stopped.value.run_id
        with Store(db, create=False) as store:
            assert store.run(run_id).status == "interrupted"
            assert 5 <= len(store.done_task_ids(run_id)) < 40
        resumed = compare(args, db=db, resume=run_id, executor=then)
        assert resumed.run.status == "complete" and len(resumed.tasks) == 40
        assert answers(resumed) == answers(undisturbed)
        assert verdicts(resumed) == verdicts(undisturbed)
        assert len(resumed.run.machine["workers"]) >= 2  # where each part ran


def listening(port: int, limit: float = 60) -> None:
    """Wait until something accepts connections on the port (a scheduler starting)."""
    deadline = time.monotonic() + limit
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_scheduler_is_one_line_and_exit_2(tmp_path):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM])
    # a port bound here and never listened on: connections to it are refused, and no other
    # process (another test's scheduler meanwhile) can take it while the command runs
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    address = f"tcp://127.0.0.1:{held.getsockname()[1]}"
    with held, Stopwatch() as watch:
        done = subprocess.run(
            [
                str(SCRIPT),
                "compare",
                str(puzzles),
                "-b",
                "fast",
                "--db",
                str(tmp_path / "r.sqlite"),
                "--cluster",
                address,
                "--cluster-timeout",
                "1",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"sudokubench: error: cannot reach the dask scheduler at {address}"
    )
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    watch.within(30)  # imports and a 1 s connect timeout
    assert not (tmp_path / "r.sqlite").exists()


def test_jobs_with_a_cluster_is_one_line_and_exit_2(tmp_path):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM])
    done = subprocess.run(
        [str(SCRIPT), "compare", str(puzzles), "--cluster", "local:2", "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith("sudokubench: error: --jobs sizes the local pool")


@pytest.mark.parametrize("spec", ["local:0", "local:two"])
def test_a_bad_local_cluster_is_one_line_and_exit_2(tmp_path, spec):
    puzzles = write(tmp_path / "p.txt", [TELEGRAM])
    done = subprocess.run(
        [str(SCRIPT), "compare", str(puzzles), "-b", "fast", "--cluster", spec],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"sudokubench: error: {spec!r}: expected local:N with N a number of workers, "
        "e.g. local:2\n",
    )


DASK = Path(sys.executable).with_name("dask")
#: The environment of a dask process started by hand: the test plug-ins not importable.
BARE = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def dask_scheduler(port: int) -> subprocess.Popen:
    """`dask scheduler` on 127.0.0.1:port, as the README starts it."""
    return subprocess.Popen(
        [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        env=BARE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def dask_worker(address: str, env: dict[str, str] = BARE) -> subprocess.Popen:
    """`dask worker` of one thread (a daemon, as dask makes it), joining `address`."""
    return subprocess.Popen(
        [
            str(DASK),
            "worker",
            address,
            "--host",
            "127.0.0.1",
            "--nthreads",
            "1",
            "--no-dashboard",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@pytest.mark.slow
def test_the_command_on_dask_workers_started_by_hand(tmp_path):
    """`dask scheduler` and `dask worker` as docs/harness.md starts them (the worker a daemon, as
    dask makes it): a scheduler with no worker, and a backend a worker cannot load, stop the run
    before it starts with one line; without them, `compare --cluster` runs."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = BARE
    procs = [dask_scheduler(port)]

    def worker() -> subprocess.Popen:
        procs.append(dask_worker(address))
        return procs[-1]

    puzzles = write(tmp_path / "p.txt", [TELEGRAM, MULTIPLE])
    db = tmp_path / "r.sqlite"

    def run(backends: str, *more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                str(SCRIPT),
                "compare",
                str(puzzles),
                "-b",
                backends,
                "--db",
                str(db),
                "--cluster",
                address,
                "-q",
                *more,
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**env, "PYTHONPATH": str(TESTS)},  # the plug-in is importable here only
        )

    try:
        listening(port)
        done = run("fast", "--cluster-timeout", "2")  # a scheduler without workers
        assert done.returncode == 2, done.stderr
        assert done.stderr == (
            f"sudokubench: error: no dask worker joined the scheduler at {address} within 2 s\n"
        )
        worker()
        done = run("fast,fake_backends:SlowHonest")
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(
            "sudokubench: error: backend 'fake_backends:SlowHonest' is missing on tcp://127.0.0.1:"
        )
        assert done.stderr.count("\n") == 1
        assert not db.exists()  # the run stopped before the database was touched
        done = run("fast,dlx", "--json")
        assert done.returncode == 0, done.stderr
    finally:
        for proc in reversed(procs):
            stop(proc)
    with Store(db, create=False) as store:
        run_row = store.run(1)
        rows = list(store.tasks(1))
    assert run_row.status == "complete" and len(rows) == 4
    assert {t.host for t in rows} == {HOST}
    [info] = run_row.machine["workers"]
    assert info["worker"].startswith("tcp://127.0.0.1:")
    assert set(info["backends"]) == {"fast", "dlx"}


@pytest.mark.slow
def test_a_worker_that_joins_late_without_a_backend_takes_no_task(tmp_path):
    """A worker that joins mid-run and cannot load the run's plug-in is probed as it joins
    and given no batch: every task is solved on the worker that can, and the late one is
    named with what it lacks (it took batches and ended them all in ERROR)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [dask_scheduler(port)]
    lines = [str(r.puzzle) for r in collection("kaggle9999", 40)]
    args = CompareArgs(files=(str(write(tmp_path / "p.txt", lines)),), backends=SLOW)
    try:
        listening(port)
        procs.append(dask_worker(address, dict(BARE, PYTHONPATH=str(TESTS))))
        with DaskExecutor.connect(address, timeout=60) as executor:

            def late_worker(progress) -> None:
                if progress.done == 2:  # the bare worker joins with 38 tasks to go
                    procs.append(dask_worker(address))
                    executor.client.wait_for_workers(2, timeout=120)

            report = compare(
                args, db=tmp_path / "r.sqlite", executor=executor, progress=late_worker
            )
            assert len(executor.client.nthreads()) == 2  # (it joined before the run ended)
            refused = executor.refused()
    finally:
        for proc in reversed(procs):
            stop(proc)
    assert [t.status for t in report.tasks] == ["solved"] * 40, report.tasks
    [(late, why)] = refused.items()
    assert late.startswith("tcp://127.0.0.1:") and why.startswith(f"{SLOW[0]}: ")
    assert [w["worker"] for w in report.run.machine["workers"]] != [late]


def started_on(address: str, command: list[str], env: dict[str, str], db: Path) -> subprocess.Popen:
    """`command` (a compare storing into `db`) started on the scheduler at `address`, once it
    has stored two tasks (it is then surely running on the cluster)."""
    run = subprocess.Popen(
        [*command, "--cluster", address, "--cluster-timeout", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 120
    while stored(db) < 2:
        assert run.poll() is None, run.communicate()
        assert time.monotonic() < deadline, "no progress"
        time.sleep(0.1)
    return run


@pytest.mark.slow
def test_a_lost_scheduler_interrupts_the_run_which_resumes_locally(tmp_path):
    """The scheduler killed mid-run: one line that says so, the run marked interrupted, the
    resume command, exit 3 (it said "batch cancelled" with a dask log line, exit 2, and left
    the run `running`); `--resume` completes it here."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(BARE, PYTHONPATH=str(TESTS))
    scheduler = dask_scheduler(port)
    procs = [scheduler]
    lines = [str(r.puzzle) for r in collection("kaggle9999", 40)]
    puzzles = write(tmp_path / "p.txt", lines)
    db = tmp_path / "r.sqlite"
    command = [str(SCRIPT), "compare", str(puzzles), "-b", SLOW[0], "--db", str(db)]
    try:
        listening(port)
        procs.append(dask_worker(address, env))
        run = started_on(address, command, env, db)
        procs.append(run)
        scheduler.kill()
        _, err = run.communicate(timeout=120)
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                stop(proc)
    assert run.returncode == 3, err
    *_, lost, resume = err.splitlines()
    assert lost.startswith(f"sudokubench: error: the dask scheduler at {address} was lost")
    assert resume == f"resume with: sudokubench compare --resume 1 --db {db} --trust-backends"
    assert "Traceback" not in err and "distributed" not in err, err
    with Store(db, create=False) as store:
        assert store.run(1).status == "interrupted"
        assert 2 <= len(store.done_task_ids(1)) < 40
    resumed = subprocess.run(
        [str(SCRIPT), *resume.split()[3:], "-q"], capture_output=True, text=True, env=env
    )
    assert resumed.returncode == 0, resumed.stderr
    with Store(db, create=False) as store:
        assert sorted(store.done_task_ids(1)) == list(range(40))
        assert {t.status for t in store.tasks(1)} == {"solved"}


def test_a_cluster_run_names_its_scheduler_and_workers(tmp_path, cluster):
    """The run records where it ran (each worker with the scheduler's address and its
    threads) and its headline shows it (it said "jobs 1"); resumed here, both are named."""
    from sudokubench.harness.report.lines import headline, machine_line

    args = CompareArgs(files=(str(write(tmp_path / "p.txt", [TELEGRAM])),), backends=("fast",))
    report = compare(args, db=tmp_path / "r.sqlite", executor=cluster)
    workers = report.run.machine["workers"]
    assert {(w["scheduler"], w["threads"]) for w in workers} == {(cluster.address, 1)}
    assert len(workers) == 2
    shown = headline(report)
    assert shown.endswith(f", dask {cluster.address} (2 workers, 2 threads)")
    assert "jobs" not in shown
    assert "cores, tasks on dask)" in machine_line(report)  # (it said "--jobs 1")
    from sudokubench.harness.report.lines import where

    local = {"workers": [{"host": HOST, "processes": 2}, *workers]}
    assert where(local, 2) == f"jobs 2, dask {cluster.address} (2 workers, 2 threads)"


def test_a_local_cluster_listens_on_loopback_only(cluster):
    """Nothing `local:N` starts (scheduler, its HTTP routes, nannies, workers) accepts
    connections from another machine (the scheduler's HTTP server was on 0.0.0.0)."""
    psutil = pytest.importorskip("psutil")
    me = psutil.Process()
    listening = [
        (process.pid, c.laddr)
        for process in [me, *me.children(recursive=True)]
        for c in process.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    ]
    assert len(listening) >= 4  # (the scheduler, and each of the 2 workers at least)
    assert {addr.ip for _, addr in listening} <= {"127.0.0.1", "::1"}, listening


@pytest.mark.slow
def test_compare_names_a_late_worker_it_kept_away(tmp_path):
    """On the command line, a worker that joined mid-run without the run's plug-in is named
    in a warning, and the run is complete and clean."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(BARE, PYTHONPATH=str(TESTS))
    procs = [dask_scheduler(port)]
    lines = [str(r.puzzle) for r in collection("kaggle9999", 80)]
    db = tmp_path / "r.sqlite"
    command = [str(SCRIPT), "compare", str(write(tmp_path / "p.txt", lines)), "-b", SLOW[0]]
    try:
        listening(port)
        procs.append(dask_worker(address, env))
        run = started_on(address, [*command, "--db", str(db)], env, db)
        procs.append(run)
        procs.append(dask_worker(address))
        _, err = run.communicate(timeout=300)
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                stop(proc)
    assert run.returncode == 0, err
    [warning] = [line for line in err.splitlines() if "dask worker" in line]
    assert re.fullmatch(
        r"warning: dask worker tcp://127\.0\.0\.1:\d+ was given no task: it joined during the "
        rf"run and cannot run {SLOW[0]}: .+",
        warning,
    )
    assert stored(db) == 80
