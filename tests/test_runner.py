"""The worker pool with real processes: timeouts, crashes, batches, parallel workers."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from support import HANG_S, MULTIPLE, TELEGRAM, Stopwatch, collection, wait_for

from sudokubench.grid import Grid, Shape, is_solution
from sudokubench.harness.pool import LocalPool, Outcome, Task, describe_exit, run_task
from sudokubench.solvers import get_backend

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SHIDOKU = [r.puzzle for r in collection("shidoku4x4")]
UNSAT_SHIDOKU = 8  # line 9 of shidoku4x4 has no solution


def task(task_id: int, backend: str, puzzle: str = TELEGRAM, **kw: object) -> Task:
    """A task with test defaults: limit 2, timeout 5 s, measured sample 0."""
    fields: dict = {"limit": 2, "timeout": 5.0, "sample": 0, "box": None} | kw
    return Task(task_id, f"test:{task_id}", puzzle, backend=backend, **fields)


def by_id(outcomes: list[Outcome]) -> dict[int, Outcome]:
    """Outcomes keyed by task id; fails on a task reported twice."""
    found = {o.task.task_id: o for o in outcomes}
    assert len(found) == len(outcomes), "a task was reported twice"
    return found


def assert_solved_telegram(outcome: Outcome) -> None:
    """The outcome holds the one solution of TELEGRAM, proved unique."""
    puzzle = Grid.parse(TELEGRAM)
    assert (outcome.status, outcome.count, outcome.exhaustive) == ("solved", 1, True)
    assert is_solution(Grid.parse(outcome.solutions[0]), puzzle)


@pytest.fixture
def pool():
    """A one-worker pool with a short grace, closed after the test."""
    with LocalPool(jobs=1, grace=0.5) as p:
        yield p


def test_sleep_forever_is_killed_close_to_the_limit_and_the_run_goes_on(pool):
    tasks = [
        task(0, "backtracking"),
        task(1, "fake_backends:SleepForever", timeout=0.5),
        task(2, "backtracking"),
        task(3, "backtracking"),
    ]
    with Stopwatch() as watch:
        outcomes = by_id(list(pool.run(tasks)))
    slept = outcomes[1]
    assert slept.status == "timeout" and slept.count == 0 and not slept.exhaustive
    # killed at its own deadline, timeout 0.5 + grace 0.5 (how late after it depends on the
    # machine's load: no wall-clock bound but a hang's)
    assert 1.0 <= slept.wall_s < HANG_S, slept.wall_s
    assert "killed after" in slept.message and slept.message.endswith("(timeout 0.5 s)")
    for k in (0, 2, 3):
        assert_solved_telegram(outcomes[k])
    watch.within(10)
    # the plug-in runs in a worker of its own (killed); the one slot goes to backtracking's
    # worker (two tasks, a batch of half the queue), the plug-in's, then backtracking's again
    assert pool.started_workers == 3


def test_a_backend_that_forks_for_its_timeout_runs_in_process_and_is_killed_at_the_deadline(
    pool,
):
    """pycosat counts in a forked child when given a timeout; the worker calls it without one
    (no child per puzzle) and enforces the deadline by killing the worker."""
    empty = "." * 81  # counting every 9x9 grid cannot finish
    tasks = [
        task(0, "pycosat:optimized", MULTIPLE, limit=100),
        task(1, "pycosat:optimized", empty, limit=10**9, timeout=0.5),
        task(2, "pycosat:optimized", TELEGRAM),
    ]
    outcomes = by_id(list(pool.run(tasks)))
    counted = outcomes[0]
    assert (counted.status, counted.count, counted.exhaustive) == ("solved", 28, True)
    assert counted.stats.get("child_process", 0) == 0
    assert all(is_solution(Grid.parse(s), Grid.parse(MULTIPLE)) for s in counted.solutions)
    endless = outcomes[1]
    assert endless.status == "timeout" and "killed after" in endless.message
    assert endless.message.endswith("(timeout 0.5 s)")
    assert 1.0 <= endless.wall_s < HANG_S, endless.wall_s  # timeout 0.5 + grace 0.5
    assert_solved_telegram(outcomes[2])


@pytest.mark.parametrize(
    ("fake", "expected"),
    [("KillSelf", "worker died: exit 3"), ("Segfault", "worker died: signal 11 (SIGSEGV)")],
)
def test_a_worker_that_dies_is_an_error_and_the_rest_of_its_batch_still_runs(pool, fake, expected):
    tasks = [task(k, "backtracking") for k in range(3)]
    tasks.insert(1, task(9, f"fake_backends:{fake}"))
    outcomes = by_id(list(pool.run(tasks)))
    assert set(outcomes) == {0, 1, 2, 9}
    assert outcomes[9].status == "error" and outcomes[9].message == expected
    for k in range(3):
        assert_solved_telegram(outcomes[k])


@pytest.mark.parametrize(
    ("fake", "status", "message"),
    [("DieOn4x4", "error", "worker died: exit 3"), ("HangOn4x4", "timeout", "killed after")],
)
def test_quick_answers_held_by_a_worker_that_dies_are_neither_lost_nor_blamed(
    pool, fake, status, message
):
    # Almost solved: the answers come in microseconds, so the worker holds them to send
    # together, and then dies (or hangs) on the 4x4 task (in the same batch of 5) with those
    # answers unsent.
    solution = str(get_backend("backtracking").solve(Grid.parse(TELEGRAM)).solutions[0])
    almost = "." + solution[1:]
    name = f"fake_backends:{fake}"
    tasks = [task(k, name, almost) for k in range(10)]
    tasks[3] = task(3, name, str(SHIDOKU[0]), timeout=0.5)
    outcomes = by_id(list(pool.run(tasks)))
    assert set(outcomes) == set(range(10))
    assert outcomes[3].status == status and message in outcomes[3].message
    # its own timeout 0.5 s + grace 0.5 s, not the others' 5 s (+ grace, the least time a
    # kill at their deadline would take, whatever the load)
    assert outcomes[3].wall_s < 5.0
    for k in set(range(10)) - {3}:
        assert (outcomes[k].status, outcomes[k].solutions) == ("solved", (solution,))


def test_an_exception_in_solve_is_an_error_and_the_worker_survives(pool):
    outcomes = by_id(list(pool.run([task(0, "fake_backends:Crash"), task(1, "backtracking")])))
    assert outcomes[0].status == "error"
    assert outcomes[0].message == "RuntimeError: fake crash inside solve"
    assert_solved_telegram(outcomes[1])
    assert pool.started_workers == 2  # the plug-in in a worker of its own, which survived


def test_wrong_answers_are_passed_on_as_returned_with_the_check_saying_what_is_wrong(pool):
    tasks = [task(0, "fake_backends:WrongSolution"), task(1, "fake_backends:WrongCount")]
    outcomes = by_id(list(pool.run(tasks)))
    wrong = outcomes[0]
    assert wrong.status == "solved" and wrong.count == 1
    assert not is_solution(Grid.parse(wrong.solutions[0]), Grid.parse(TELEGRAM))
    assert wrong.checked and wrong.problem.startswith("solution 1 is wrong: ")
    assert outcomes[1].checked and outcomes[1].problem is None  # wrong, but only the vote shows it
    # WrongCount drops the one solution and claims an exhaustive count of 0
    assert (outcomes[1].status, outcomes[1].count, outcomes[1].exhaustive) == (
        "unsatisfiable",
        0,
        True,
    )


def test_outcome_carries_counts_solutions_timings_and_stats(pool):
    multiple = Grid.parse(MULTIPLE)
    [outcome] = pool.run([task(0, "backtracking", MULTIPLE, limit=100, sample=-1)])
    assert outcome.task.sample == -1
    assert (outcome.status, outcome.count, outcome.exhaustive) == ("solved", 28, True)
    assert len(set(outcome.solutions)) == 28
    assert all(is_solution(Grid.parse(s), multiple) for s in outcome.solutions)
    assert outcome.wall_s >= outcome.solve_s > 0
    assert outcome.stats["nodes"] > 0


def test_a_bad_puzzle_or_an_unloadable_backend_is_an_error_not_a_crash(pool):
    tasks = [task(0, "backtracking", "12x4"), task(1, "fake_backends:NoSuchThing")]
    outcomes = by_id(list(pool.run(tasks)))
    assert outcomes[0].status == "error" and "cannot read the puzzle" in outcomes[0].message
    assert outcomes[1].status == "error" and "cannot load the backend" in outcomes[1].message


def test_forced_box_shape_is_used():
    # an empty 4x4 grid read with 1x4 boxes (rows) is a Latin square problem; the first
    # solution in lexicographic order breaks the usual 2x2 boxes, so the shape must be the one
    # the task asked for
    empty = "." * 16
    outcome = run_task(get_backend("backtracking"), task(0, "backtracking", empty, box="1x4"))
    assert outcome.status == "solved"
    line = outcome.solutions[0]
    assert is_solution(Grid.parse(line, Shape(1, 4)), Grid.parse(empty, Shape(1, 4)))
    assert not is_solution(Grid.parse(line), Grid.parse(empty))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_thousand_fast_tasks_all_complete_once(jobs):
    tasks = [task(k, "backtracking", str(SHIDOKU[k % len(SHIDOKU)]), limit=2) for k in range(1000)]
    with LocalPool(jobs=jobs) as pool:
        outcomes = by_id(list(pool.run(tasks)))
        assert pool.started_workers == jobs
    assert set(outcomes) == set(range(1000))
    for k, outcome in outcomes.items():
        puzzle = SHIDOKU[k % len(SHIDOKU)]
        if k % len(SHIDOKU) == UNSAT_SHIDOKU:
            assert outcome.status == "unsatisfiable"
        else:
            assert outcome.status == "solved", outcome
            assert all(is_solution(Grid.parse(s), puzzle) for s in outcome.solutions)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_first_batches_go_out_before_the_window_of_tasks_is_taken(jobs, monkeypatch):
    from sudokubench.harness.pool.handle import WorkerHandle

    taken = 0
    at_first_send: list[int] = []
    send = WorkerHandle.send

    def counting_send(self, batch, grace):
        at_first_send.append(taken)
        return send(self, batch, grace)

    def tasks():
        nonlocal taken
        for k in range(3000):
            taken += 1
            yield task(k, "backtracking", str(SHIDOKU[k % len(SHIDOKU)]), limit=1)

    monkeypatch.setattr(WorkerHandle, "send", counting_send)
    with LocalPool(jobs=jobs, batch_size=16) as pool:
        outcomes = by_id(list(pool.run(tasks())))
    assert set(outcomes) == set(range(3000))
    assert at_first_send[0] <= 2 * jobs * 16  # (the old pool took all 3,000 first)


def test_two_workers_run_side_by_side(tmp_path, monkeypatch):
    # one worker is held (by a file, removed once the 20 others are in) while the other solves
    # everything else; were they not side by side, the held task would end first, at its
    # timeout (a hang's length: no load makes the others take that long)
    hold = tmp_path / "hold"
    hold.touch()
    # (spawned workers inherit the variable; forked ones would have the environment of this
    # session's fork server, started before it was set)
    monkeypatch.setenv("SUDOKUBENCH_TEST_HOLD", str(hold))
    tasks = [task(0, "fake_backends:Held", MULTIPLE, timeout=HANG_S)]
    tasks += [task(k, "backtracking") for k in range(1, 21)]
    order = []
    with LocalPool(jobs=2, batch_size=1, grace=0.5, start_method="spawn") as pool:
        for outcome in pool.run(tasks):
            order.append(outcome.task.task_id)
            if len(order) == 20:
                hold.unlink(missing_ok=True)
    hold.unlink(missing_ok=True)
    assert sorted(order) == list(range(21))
    assert order[-1] == 0  # the 20 others finished while the held task kept its worker


def test_a_run_abandoned_midway_leaves_the_pool_usable(pool):
    first = pool.run([task(k, "backtracking") for k in range(100)])
    assert next(first).status == "solved"
    first.close()  # the rest of that batch is stale: its worker is replaced
    outcomes = by_id(list(pool.run([task(k, "backtracking") for k in range(500, 505)])))
    assert set(outcomes) == set(range(500, 505))
    for outcome in outcomes.values():
        assert_solved_telegram(outcome)


def test_exec_backend_times_out_by_itself_without_killing_the_worker(pool, tmp_path):
    script = tmp_path / "hang.py"
    script.write_text("import sys, time\nfor line in sys.stdin:\n    time.sleep(60)\n")
    solver = f"exec:{sys.executable} {EXAMPLES / 'exec_solver.py'}"
    hang = f"exec:{sys.executable} {script}"
    tasks = [task(0, hang, timeout=0.5), task(1, solver), task(2, hang, timeout=0.5)]
    outcomes = by_id(list(pool.run(tasks)))
    for k in (0, 2):
        # timed out by the backend itself (its message; the worker's kill at timeout + grace
        # says "killed after" and would have started a third worker)
        assert outcomes[k].status == "timeout" and "no answer within 0.5 s" in outcomes[k].message
        assert 0.5 <= outcomes[k].wall_s < HANG_S
    assert outcomes[1].status == "solved"
    assert is_solution(Grid.parse(outcomes[1].solutions[0]), Grid.parse(TELEGRAM))
    assert pool.started_workers == 2  # one per program, neither killed


def test_describe_exit():
    assert describe_exit(2) == "exit 2"
    assert describe_exit(-9) == "signal 9 (SIGKILL)"
    assert describe_exit(None) == "unknown exit"


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="jobs"):
        LocalPool(jobs=0)
    with pytest.raises(ValueError, match="batch_size"):
        LocalPool(batch_size=0)


def test_preload_names_the_modules_of_registered_backends_only():
    from sudokubench.harness.pool.local import _modules

    names = ["pycosat:minimal", "backtracking", "exec:./solver", "fake_backends:Crash"]
    assert _modules(names) == [
        "sudokubench.solvers.backtracking",
        "sudokubench.solvers.pycosat_backend",
    ]
    with LocalPool(preload=["backtracking"]) as pool:
        [outcome] = pool.run([task(0, "backtracking")])
    assert_solved_telegram(outcome)


def _hold(pid: int) -> int | None:
    """A pidfd of process `pid` (Linux 5.3+), None where there is none or it is gone: it names
    that very process, so its end is seen and a signal through it reaches no later process
    given the same pid (pids are reused, and other programs start processes meanwhile)."""
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _alive(pid: int, fd: int | None) -> bool:
    """Whether the process runs: by its pidfd (readable once it has ended, zombie or reaped),
    else by /proc, where a zombie is dead too and a failed read means gone (the process may
    go between any two reads)."""
    if fd is not None:
        return not select.select([fd], [], [], 0)[0]
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] not in "ZX"
    except (OSError, IndexError):
        return False


def _running(argument: str) -> list[int]:
    """The processes with `argument` as one of their command line's arguments."""
    pids = []
    for p in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if argument in Path(f"/proc/{p}/cmdline").read_text().split("\0"):
                pids.append(int(p))
    return pids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_the_run_leaves_no_worker_or_program_running(tmp_path):
    program = tmp_path / "hang.py"  # (found by its command line: it may not write files)
    program.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(600)\n")
    exec_name = f"exec:{sys.executable} {program}"
    run = f"""
import sys, threading, time
from sudokubench.harness.pool import LocalPool, Task
pool = LocalPool(jobs=2, batch_size=1)
tasks = [
    Task(0, "x:1", {TELEGRAM!r}, None, "fake_backends:SleepForever", 1, 600.0, 0),
    Task(1, "x:2", {TELEGRAM!r}, None, {exec_name!r}, 1, 600.0, 0),
]
threading.Thread(target=lambda: list(pool.run(tasks)), daemon=True).start()
deadline = time.monotonic() + {HANG_S}
while not (len(pool._workers) == 2 and all(w.tasks for w in pool._workers)):
    if time.monotonic() > deadline:
        sys.exit("the two workers did not start")
    time.sleep(0.05)
print(" ".join(str(w.process.pid) for w in pool._workers), flush=True)
time.sleep(600)
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen(
        [sys.executable, "-c", run], stdout=subprocess.PIPE, env=env, text=True
    )
    held: dict[int, int | None] = {}
    try:
        # (a bounded wait for its one line: a child that hangs before printing fails the test)
        assert select.select([child.stdout], [], [], HANG_S)[0], "the run did not start"
        workers = [int(pid) for pid in child.stdout.readline().split()]
        assert len(workers) == 2, child.returncode
        held |= {pid: _hold(pid) for pid in workers}
        wait_for(lambda: _running(str(program)), "the exec: program starting")
        held |= {pid: _hold(pid) for pid in _running(str(program))}
        assert len(held) == 3 and all(_alive(pid, fd) for pid, fd in held.items())
        child.kill()
        child.wait()
        # each ends once the kernel runs it again, later on a busy machine
        wait_for(
            lambda: not any(_alive(pid, fd) for pid, fd in held.items()),
            f"the workers and the program ending after a kill -9 of the run ({held})",
        )
    finally:  # leave nothing behind, even when the test fails, and never signal a stranger
        child.kill()
        child.wait()
        for fd in held.values():
            if fd is not None:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                os.close(fd)


@pytest.mark.slow  # starts a dask cluster (a few seconds)
def test_dask_executor_has_the_same_semantics():
    pytest.importorskip("distributed")
    from sudokubench.harness.pool import DaskExecutor

    tasks = [task(k, "backtracking") for k in range(6)]
    tasks += [
        task(10, "fake_backends:SleepForever", timeout=0.5),
        task(11, "fake_backends:KillSelf"),
        task(12, "fake_backends:Crash"),
    ]
    with DaskExecutor.connect("local:2", batch_size=2, grace=0.5) as executor:
        outcomes = by_id(list(executor.run(tasks)))
    assert set(outcomes) == {0, 1, 2, 3, 4, 5, 10, 11, 12}
    for k in range(6):
        assert_solved_telegram(outcomes[k])
    # killed at its own deadline (its message), however late a loaded machine made it
    assert outcomes[10].status == "timeout" and 1.0 <= outcomes[10].wall_s < HANG_S
    assert outcomes[10].message.endswith("(timeout 0.5 s)")
    assert (outcomes[11].status, outcomes[11].message) == ("error", "worker died: exit 3")
    assert outcomes[12].message == "RuntimeError: fake crash inside solve"


def test_a_worker_killed_while_idle_is_replaced_and_nothing_is_lost(pool):
    [first] = pool.run([task(0, "backtracking")])
    assert_solved_telegram(first)
    idle = pool._workers[0].process
    os.kill(idle.pid, 9)
    idle.join(HANG_S)  # (it ends when the kernel next runs it: later on a busy machine)
    assert not idle.is_alive()
    outcomes = by_id(list(pool.run([task(k, "backtracking") for k in range(1, 6)])))
    assert set(outcomes) == set(range(1, 6))
    for outcome in outcomes.values():
        assert_solved_telegram(outcome)
    assert pool.started_workers == 2


def test_a_backend_that_returns_something_else_is_an_error():
    class Chatty:
        def solve(self, puzzle, *, limit=1, timeout=None):
            return "solved it!"

    outcome = run_task(Chatty(), task(0, "chatty"))
    assert outcome.status == "error"
    assert outcome.message == "solve returned str, not a SolveResult"


def test_workers_ignore_ctrl_c_which_is_the_parents_to_handle(pool):
    # Ctrl-C in a terminal signals the whole foreground process group, workers included
    assert [o.status for o in pool.run([task(0, "fake_backends:SlowHonest")])] == ["solved"]
    worker = pool._workers[0].process
    # SIGINT lands while the worker sleeps inside the next SlowHonest solve (0.2 s)
    timer = threading.Timer(0.1, os.kill, (worker.pid, signal.SIGINT))
    timer.start()
    outcomes = list(
        pool.run([task(1, "fake_backends:SlowHonest"), task(2, "fake_backends:SlowHonest")])
    )
    timer.join()
    assert sorted((o.task.task_id, o.status) for o in outcomes) == [(1, "solved"), (2, "solved")]
    assert worker.is_alive() and pool.started_workers == 1


def test_a_worker_checks_each_answer_as_compare_would():
    from fake_backends import WrongSolution

    from sudokubench.harness.verify import check_answer

    good = run_task(get_backend("fast"), task(0, "fast", MULTIPLE))
    assert (good.checked, good.verdict, good.problem) == (True, ">=2", None)
    assert len(set(good.solutions)) == 2
    assert all(is_solution(Grid.parse(s), Grid.parse(MULTIPLE)) for s in good.solutions)
    bad = run_task(WrongSolution(), task(1, "fake_backends:WrongSolution"))
    assert bad.checked and bad.status == "solved" and bad.verdict == ">=1"  # as claimed
    expected = check_answer(
        "x",
        Grid.parse(TELEGRAM),
        status="solved",
        count=1,
        exhaustive=False,
        solutions=bad.solutions,
        limit=2,
    )
    assert bad.problem == expected.problem and bad.problem.startswith("solution 1 is wrong: ")


PLAIN_POOL_SCRIPT = """\
import sys
from sudokubench.harness.pool import LocalPool, Task
print("top level ran", file=sys.stderr)
tasks = [Task(i, str(i), {puzzle!r}, None, "fast", 2, 5.0, 0) for i in range(6)]
with LocalPool(jobs=2, start_method={method!r}) as pool:
    print(sorted(o.solutions[0] for o in pool.run(tasks))[0])
"""


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_workers_do_not_run_the_callers_unguarded_script(tmp_path, method):
    """A script without a `__main__` guard runs once: its workers never import it."""
    if method not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip(f"{method} is not available on this platform")
    script = tmp_path / "plain.py"
    script.write_text(PLAIN_POOL_SCRIPT.format(puzzle=TELEGRAM, method=method))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == "top level ran\n"
    assert is_solution(Grid.parse(done.stdout.strip()), Grid.parse(TELEGRAM))


def test_the_parent_looks_less_often_while_the_worker_has_work_in_flight():
    """The pace the parent follows is the worker's real time per task, and the pause between
    its looks at the pipes grows to LONG_TICK only while the work in flight lasts longer."""
    from sudokubench.harness.pool.handle import LONG_TICK, TICK, pause

    tasks = [task(i, "norvig") for i in range(200)]  # about 5 ms each
    with LocalPool(jobs=1) as pool:
        assert pause(pool._workers) == TICK  # no worker yet
        outcomes = pool.run(tasks)
        seen = [next(outcomes) for _ in range(60)]
        (worker,) = pool._workers
        # An average over the last few looks of the worker's real time per task: at least
        # about its tasks' (which run one after another), at most theirs plus the harness's
        # share; bounded by the fastest and slowest of these 60, not by their mean, which
        # one task preempted on a busy machine moves (each look finds what the worker held).
        fastest, slowest = min(o.wall_s for o in seen), max(o.wall_s for o in seen)
        assert fastest / 2 <= worker.pace < slowest + 0.05, (fastest, worker.pace, slowest)
        assert len(worker.tasks) * worker.pace >= 2 * LONG_TICK  # plenty in flight ...
        assert pause(pool._workers) == LONG_TICK  # ... so the parent sleeps longer
        seen += list(outcomes)
        assert not worker.tasks and pause(pool._workers) == TICK  # nothing in flight
    assert sorted(o.task.task_id for o in seen) == list(range(200))
    for outcome in seen:
        assert_solved_telegram(outcome)
