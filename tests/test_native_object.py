"""The band kernel's machine code kept as an object file and loaded without numba
(`native_object`): the same answers as numba's dispatch, refused when stale or corrupt (numba's
path then serves), and a process that only solves 9x9 never imports numba. Its shared library
loads without llvmlite, and a stale, corrupt or unlinkable one leaves the object serving."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, collection

from sudokubench import Grid, Shape, Status, is_solution
from sudokubench.solvers import native, native_object

pytest.importorskip("numba", reason="the native backend needs numba")


@pytest.fixture(scope="module")
def kept() -> native_object._Loaded:
    """The kernel warmed (its object kept) and the object loaded."""
    native.warm()
    assert native_object.present()
    loaded = native_object.load()
    assert loaded is not None
    return loaded


def _arrays() -> object:
    """A fresh band work array with its tables, as a Space makes it."""
    import numpy as np

    from sudokubench.solvers import native_band, native_band_layout

    work = np.zeros(native_band_layout.work_size(native.ROWS), dtype=np.int64)
    lookup = work[native_band.TABLE_AT : native_band.ROWS_AT].view(np.int32)
    lookup[: native_band_layout.TABLE_SIZE] = native_band.band_tables()
    return work


@pytest.mark.parametrize("budget", [native.BUDGET, 7])
def test_the_kept_object_searches_as_numbas_dispatch(
    kept: native_object._Loaded, budget: int
) -> None:
    """On top95, 17clue's first 300 and the 28-solution grid, at limits 1, 2 and 30 (rows for
    5, drained), each call of the kept object returns the code numba's `native_band.search`
    returns and leaves the same state (counters, givens, position) and rows; with a budget of
    7 nodes they pause and resume hundreds of times (and with the full budget, the 28-solution
    grid's rows fill)."""
    from sudokubench.solvers import native_band

    puzzles = [r.puzzle for r in collection("top95", 95) + collection("17clue", 300)]
    puzzles.append(Grid.parse(MULTIPLE))
    numba_work, kept_work = _arrays(), _arrays()
    paused = 0
    for puzzle in puzzles:
        for limit, keep in ((1, 1), (2, 2), (30, 5)):
            states = [
                native_band.state(puzzle.digit_bytes(), keep, limit, budget, True) for _ in "ab"
            ]
            call = kept.bound(kept_work, states[1])
            while True:
                code = native_band.search(numba_work, states[0])
                assert call() == code
                assert (states[0] == states[1]).all()
                saved = int(states[0][native.SAVED])
                rows = slice(native_band.ROWS_AT * 8, native_band.ROWS_AT * 8 + 81 * saved)
                assert (
                    numba_work.view("uint8")[rows].tobytes()
                    == kept_work.view("uint8")[rows].tobytes()
                )
                if code < native.PAUSED:
                    break
                paused += 1
                states[0][native.SAVED] = states[1][native.SAVED] = 0
    assert paused > (300 if budget == 7 else 0)


def test_solve_answers_from_the_kept_object_as_from_numba(kept: native_object._Loaded) -> None:
    """A thread whose 9x9 Space runs the kept object (`Space.loaded`) answers `solve` with the
    results (status, count, exhaustive, stats, solutions) of one running numba's kernel."""
    import threading

    puzzles = [r.puzzle for r in collection("top95", 95) + collection("17clue", 100)]
    puzzles.append(Grid.parse(MULTIPLE))
    backend = native.Native()
    answers: dict[str, list] = {}

    def solve_all(name: str) -> None:
        native.forget_spaces()
        answers[name] = [
            (r.status, r.count, r.exhaustive, dict(r.stats), r.solutions)
            for p in puzzles
            for r in (backend.solve(p, limit=limit) for limit in (1, 2, 40))
        ]
        answers[name + " loaded"] = [native._space_of(Shape(3, 3)).loaded is not None]

    assert native.band_object() is kept
    thread = threading.Thread(target=solve_all, args=("kept",))
    thread.start()
    thread.join()
    saved = native.band_object
    native.band_object = lambda: None  # new Spaces: numba's kernel
    try:
        thread = threading.Thread(target=solve_all, args=("numba",))
        thread.start()
        thread.join()
    finally:
        native.band_object = saved
    assert answers["kept loaded"] == [True] and answers["numba loaded"] == [False]
    assert answers["kept"] == answers["numba"]
    assert all(a[0] == Status.SOLVED for a in answers["kept"])


def _corrupted(tmp_path: Path, how: str) -> Path:
    """A copy of the kept file, spoiled: `how` a flipped byte of the object, of the key, a
    truncated file, or another file's magic."""
    data = bytearray(Path(native_object.path()).read_bytes())
    if how == "object":
        data[-100] ^= 1
    elif how == "key":
        data[len(native_object.MAGIC) + 10] ^= 1
    elif how == "truncated":
        data = data[: len(data) // 2]
    else:
        data[:4] = b"\x7fELF"
    spoiled = tmp_path / "spoiled.o"
    spoiled.write_bytes(bytes(data))
    return spoiled


@pytest.mark.parametrize("how", ["object", "key", "truncated", "magic"])
def test_a_stale_or_corrupt_object_is_refused_and_numba_serves(
    kept: native_object._Loaded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A spoiled file (its object's hash, its key, cut short, not ours) is not loaded: `load`
    gives None, `band_object` too, and a new 9x9 Space runs numba's kernel, solving right."""
    spoiled = _corrupted(tmp_path, how)
    from llvmlite import binding

    assert native_object.read(native_object.path(), binding) is not None
    assert native_object.read(str(spoiled), binding) is None
    monkeypatch.setattr(native_object, "path", lambda: str(spoiled))
    monkeypatch.setattr(native, "_band_object", None)
    native_object.load.cache_clear()
    native.forget_spaces()
    try:
        assert native_object.load() is None
        assert native.band_object() is None
        puzzle = Grid.parse(TELEGRAM)
        result = native.Native().solve(puzzle, limit=2)
        space = native._space_of(Shape(3, 3))
        from sudokubench.solvers import native_band

        assert space.loaded is None and space.searches[True] is native_band.search
        assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1, True)
        assert is_solution(result.solutions[0], puzzle)
    finally:
        native_object.load.cache_clear()
        native.forget_spaces()


def test_the_key_follows_the_sources_versions_and_settings(
    kept: native_object._Loaded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The file's name changes with numba's settings (`NUMBA_*`) and with a kernel source's
    bytes; `NUMBA_CACHE_DIR` moves it as it moves numba's cache."""
    here = native_object.path()
    monkeypatch.setenv("NUMBA_OPT", "1")
    assert native_object.path() != here
    monkeypatch.delenv("NUMBA_OPT")
    assert native_object.path() == here
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    moved = native_object.path()
    assert moved is not None and moved.startswith(str(tmp_path))
    assert os.path.basename(moved) == os.path.basename(here)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    sources = tmp_path / "sources"
    sources.mkdir()
    for name in native_object.SOURCES:
        (sources / name).write_bytes((Path(native_object.__file__).parent / name).read_bytes())
    monkeypatch.setattr(native_object, "_source_dir", lambda: str(sources))
    same = native_object.file_key()
    (sources / "native_band_layout.py").write_text(
        (sources / "native_band_layout.py").read_text() + "\n# an edit\n"
    )
    assert native_object.file_key() != same


#: A fresh process that does what the worker pool's fork server does (`native_ready`), then
#: what a worker does (`available()`, solves of 9x9 puzzles at limits 1 and 2), and prints
#: whether numba or numpy's kernel modules were imported, the grids checked and the stats.
SERVER = """
import sys
import sudokubench.solvers.native_ready
from sudokubench.grid import Grid, is_solution
from sudokubench.solvers import native
backend = native.Native()
print(backend.available(), native._band_object is not None)
for line in LINES:
    puzzle = Grid.parse(line)
    for limit in (1, 2):
        r = backend.solve(puzzle, limit=limit)
        print(r.status.value, r.count, is_solution(r.solutions[0], puzzle), dict(r.stats))
print(sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite.ir")))
"""


def test_the_fork_servers_path_imports_no_numba(kept: native_object._Loaded) -> None:
    """With the object kept, the fork server's preload and a worker's solves never import
    numba, and answer as numba's kernel does here."""
    lines = ["".join(map(str, r.puzzle.cells)) for r in collection("top95", 10)]
    code = SERVER.replace("LINES", repr(lines))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout.splitlines()
    assert out[0] == "True True"
    assert out[-1] == "[]"
    expected = []
    saved = native.band_object
    native.band_object = lambda: None
    native.forget_spaces()
    try:
        for line in lines:
            puzzle = Grid.parse(line)
            for limit in (1, 2):
                r = native.Native().solve(puzzle, limit=limit)
                assert native._space_of(Shape(3, 3)).loaded is None
                expected.append(f"{r.status.value} {r.count} True {dict(r.stats)}")
    finally:
        native.band_object = saved
        native.forget_spaces()
    assert out[1:-1] == expected


def test_loading_leaves_numbas_own_helpers_in_place(kept: native_object._Loaded) -> None:
    """llvmlite's symbols are the process's: loading the object binds numba's helpers to its
    stub only where no one registered them, so numba's real ones (its exception helpers, NRT's
    memory functions, registered when numba sets up) are never replaced for numba's later code."""
    from llvmlite import binding

    stub = ctypes.cast(native_object._stub, ctypes.c_void_p).value
    before = {name: binding.address_of_symbol(name) for name in native_object.HELPERS}
    assert native_object.load_object() is not None
    after = {name: binding.address_of_symbol(name) for name in native_object.HELPERS}
    assert all(after[name] == (before[name] or stub) for name in before)
    assert any(address and address != stub for address in before.values())  # numba's, kept


def test_a_solve_in_any_process_runs_the_kept_object(kept: native_object._Loaded) -> None:
    """`backend.solve` in a fresh process that never asked `available()` loads the kept object
    for its 9x9 Space, and imports no numba."""
    code = (
        "import sys\n"
        "from sudokubench import Grid, get_backend, is_solution\n"
        f"puzzle = Grid.parse({TELEGRAM!r})\n"
        "result = get_backend('native').solve(puzzle, limit=2)\n"
        "print(result.count, result.exhaustive, is_solution(result.solutions[0], puzzle),\n"
        "      'numba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.stdout.split() == ["1", "True", "True", "False"], done.stderr[-2000:]


#: A fresh process that readies `native` as the fork server does (`native_ready`), solves
#: `CASES` (line, limit) by `backend.solve`, then runs them as one batch through a worker's
#: loop (`_serve`: its lane), and prints as JSON whether numpy was imported by then, the tasks
#: the lane took, and both answers (status, count, exhaustive, solutions, stats).
LANE = """
import json, pickle, sys
from collections import deque
import sudokubench.solvers.native_ready
from sudokubench.grid import Grid
from sudokubench.harness.pool import Task, worker
from sudokubench.solvers import native


class Fed:
    def __init__(self, batch):
        self.batches = [pickle.dumps(batch)]
        self.sent = []

    def recv(self):
        return pickle.loads(self.batches.pop()) if self.batches else None

    def send(self, message):
        self.sent.append(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))


def answer(status, count, exhaustive, solutions, stats):
    clocks = ("cpu_s", "cpu_wait_s")
    return [status.value, count, exhaustive, list(map(str, solutions)),
            {k: v for k, v in stats.items() if k not in clocks}]


backend = native.Native()
backend.available()
direct = []
for line, limit in CASES:
    r = backend.solve(Grid.parse(line), limit=limit)
    direct.append(answer(r.status, r.count, r.exhaustive, r.solutions, r.stats))
tasks = [Task(k, f"t:{k}", line, None, "native", limit, 10.0, 0)
         for k, (line, limit) in enumerate(CASES)]
laned = []
made = worker.lane_columns


def counted(shape, held, *rest):
    laned.extend(t.task_id for t in held)
    return made(shape, held, *rest)


worker.lane_columns = counted
conn = Fed([tuple(t) for t in tasks])
worker._serve(conn, None, False, None)
numpy_seen = "numpy" in sys.modules
from sudokubench.harness.pool.batch import KIND, take_batch
from sudokubench.harness.pool.wire import take_outcomes

due, outcomes = deque(tasks), []
for message in map(pickle.loads, conn.sent):
    if type(message) is tuple and message[0] == KIND:
        outcomes += take_batch(due, message, strict=False).outcomes()
    elif type(message) is list:
        take_outcomes(due, message, outcomes)
lane = [answer(o.status, o.count, o.exhaustive, o.solutions, o.stats) for o in outcomes]
print(json.dumps([numpy_seen, laned, direct, lane]))
"""


def test_the_kept_objects_path_imports_no_numpy_and_answers_as_numba(
    kept: native_object._Loaded,
) -> None:
    """With the object kept, a process that readies `native` as the fork server does, solves
    9x9 puzzles by `backend.solve` and runs them on a worker's lane never imports numpy (the
    band kernel's buffers are bytearrays), and both answer as numba's band kernel (on numpy's
    arrays) does here: TELEGRAM's one solution, MULTIPLE's 28, none for conflicting givens
    and for an unsatisfiable grid without them."""
    conflict = "11" + TELEGRAM[2:]
    unsatisfiable = "12345678." + "........9" + "." * 63
    lines = [str(r.puzzle) for r in collection("17clue", 3)]
    cases = [(TELEGRAM, 2), (MULTIPLE, 100), (conflict, 2), (unsatisfiable, 2)]
    cases += [(line, limit) for line in lines for limit in (1, 2)]
    code = LANE.replace("CASES", repr(cases))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    numpy_seen, laned, direct, lane = json.loads(done.stdout.splitlines()[-1])
    assert numpy_seen is False
    assert laned == list(range(len(cases)))  # (every task on the lane)
    saved = native.band_object
    native.band_object = lambda: None  # new Spaces: numba's kernel
    native.forget_spaces()
    expected = []
    try:
        for line, limit in cases:
            r = native.Native().solve(Grid.parse(line), limit=limit)
            assert native._space_of(Shape(3, 3)).loaded is None
            stats = json.loads(json.dumps(dict(r.stats)))
            solutions = [str(g) for g in r.solutions]
            expected.append([r.status.value, r.count, r.exhaustive, solutions, stats])
    finally:
        native.band_object = saved
        native.forget_spaces()
    assert direct == expected and lane == expected
    assert [e[:3] for e in expected[:4]] == [
        ["solved", 1, True],
        ["solved", 28, True],
        ["unsatisfiable", 0, True],
        ["unsatisfiable", 0, True],
    ]
    assert expected[0][3] == [TELEGRAM_SOLUTION]
    assert len(set(expected[1][3])) == 28


#: A fresh process that readies the backend as the fork server does (`native_ready`), solves
#: the telegram puzzle (limit 2) and counts the 28-solution grid, and prints what the kernel
#: was loaded from, the answers and whether llvmlite or numba were imported.
LIBRARY = """
import sys
import sudokubench.solvers.native_ready
from sudokubench import Grid, get_backend
from sudokubench.solvers import native
backend = get_backend("native")
one = backend.solve(Grid.parse(TELEGRAM), limit=2)
many = backend.solve(Grid.parse(MULTIPLE), limit=100)
print(type(native._band_object.keeper).__name__, one.count, one.exhaustive, one.solutions[0])
print(many.count, many.exhaustive, len(set(many.solutions)))
print("llvmlite" in sys.modules, "numba" in sys.modules)
"""


def test_the_kept_library_loads_and_solves_without_llvmlite(kept: native_object._Loaded) -> None:
    """`backends --warm` keeps the library beside the object; a fresh process loads it through
    ctypes, never imports llvmlite (nor numba), and answers the telegram puzzle with its one
    solution and the 28-solution grid with 28 different solutions."""
    assert native_object.read_library(native_object.library_path()) is not None
    code = LIBRARY.replace("TELEGRAM", repr(TELEGRAM)).replace("MULTIPLE", repr(MULTIPLE))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        f"PyDLL 1 True {Grid.parse(TELEGRAM_SOLUTION)}",
        "28 True 28",
        "False False",
    ]


def _answers() -> list:
    """The results (status, count, exhaustive, solutions) of a new 9x9 Space on the telegram
    puzzle and the 28-solution grid, and what it runs: the kept code's keeper, numba's kernel."""
    native.forget_spaces()
    backend = native.Native()
    answers = [
        (r.status, r.count, r.exhaustive, r.solutions)
        for line in (TELEGRAM, MULTIPLE)
        for r in (backend.solve(Grid.parse(line), limit=limit) for limit in (1, 2, 100))
    ]
    loaded = native._space_of(Shape(3, 3)).loaded
    native.forget_spaces()
    return [type(loaded.keeper).__name__ if loaded else None, *answers]


def _spoiled_library(tmp_path: Path, how: str) -> Path:
    """A copy of the kept object and library in `tmp_path`, the library spoiled: `how` a byte
    flipped in its machine code, in its key, the library cut short, or linked on another CPU."""
    source = Path(native_object.path())
    kept_object = tmp_path / source.name
    kept_object.write_bytes(source.read_bytes())
    data = bytearray(Path(native_object.library_path()).read_bytes())
    if how == "code":
        data[len(data) // 3] ^= 0x40
    elif how == "key":
        data[-len(native_object.LIBRARY_MAGIC) - 12 - 200] ^= 1
    elif how == "truncated":
        data = data[: len(data) - 10]
    (tmp_path / (source.name[: -len(".o")] + ".so")).write_bytes(bytes(data))
    return kept_object


@pytest.mark.parametrize("how", ["code", "key", "truncated", "cpu"])
def test_a_stale_or_corrupt_library_leaves_the_object_serving(
    kept: native_object._Loaded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A spoiled library (a flipped byte of its code or key, cut short, kept on another CPU) is
    never loaded: the kept object loads with llvmlite instead and answers as the library does."""
    monkeypatch.setattr(native, "_band_object", None)
    native_object.load.cache_clear()
    from_library = _answers()
    kept_object = _spoiled_library(tmp_path, how)
    monkeypatch.setattr(native_object, "path", lambda: str(kept_object))
    if how == "cpu":
        cpu = native_object._host_cpu()
        monkeypatch.setattr(native_object, "_host_cpu", lambda: cpu.replace(b"flags", b"flag"))
    native_object.load.cache_clear()
    try:
        assert native_object.read_library(native_object.library_path()) is None
        assert native_object.load_library() is None
        loaded = native_object.load()
        assert loaded is not None and type(loaded.keeper).__name__ == "ExecutionEngine"
        monkeypatch.setattr(native, "_band_object", None)
        assert from_library[0] == "PyDLL"
        assert _answers() == ["ExecutionEngine", *from_library[1:]]
    finally:
        native_object.load.cache_clear()
    assert from_library[6][1:3] == (28, True)
    assert from_library[1][3] == (Grid.parse(TELEGRAM_SOLUTION),)


def test_without_a_compiler_the_object_is_kept_and_serves(
    kept: native_object._Loaded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no `cc` on PATH the kernel's first compile (`keep_band_object`, as `warm` calls
    it) still keeps the object, links no library, and the object serves with the same answers;
    a compiler back on PATH links the library from the kept object on the next warm-up."""
    monkeypatch.setattr(native, "_band_object", None)
    native_object.load.cache_clear()
    from_library = _answers()
    kept_object = tmp_path / os.path.basename(native_object.path())
    monkeypatch.setattr(native_object, "path", lambda: str(kept_object))
    path = os.environ["PATH"]
    monkeypatch.setenv("PATH", str(tmp_path / "no-compiler"))
    native_object.load.cache_clear()
    try:
        assert native.keep_band_object()
        assert kept_object.exists() and not os.path.exists(native_object.library_path())
        assert native_object.link_kept() is None
        monkeypatch.setattr(native, "_band_object", None)
        assert _answers() == ["ExecutionEngine", *from_library[1:]]
        monkeypatch.setenv("PATH", path)
        native_object.load.cache_clear()
        assert native.keep_band_object()
        assert native_object.load_library() is not None
    finally:
        native_object.load.cache_clear()


#: `backends --warm` in a fresh process whose kept files go to the folder KEPT and whose PATH
#: has no compiler: the first compile of the entry, its object kept, no library.
WARM = """
import os
from sudokubench.cli import main
from sudokubench.solvers import native_object
native_object.path = lambda: os.path.join(KEPT, "native_band.entry.o")
try:
    main(["backends", "--warm"])
except SystemExit as done:
    assert not done.code, done.code
print(sorted(os.listdir(KEPT)))
"""


def test_the_first_compile_works_when_the_link_fails(
    kept: native_object._Loaded, tmp_path: Path
) -> None:
    """`backends --warm` compiles and keeps the object where no library links (no `cc` on
    PATH), and says the backend is ready."""
    code = WARM.replace("KEPT", repr(str(tmp_path)))
    environment = {**os.environ, "PATH": str(tmp_path / "no-compiler")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=environment
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "['native_band.entry.o']"
    assert "native" in done.stdout
