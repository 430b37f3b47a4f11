"""The `native` backend beyond the agreement suite: exact counts, resuming, timeouts, counting
without grids, Knuth's estimator, the command-line options, and the path without numba.

Known counts: the `multiple` grid has 28 solutions, the empty 4x4 grid 288, the 6x6 grid with
only its first row given 39,168 (28,200,960 6x6 grids / 720 relabellings of the first row),
the empty 6x6 grid 28,200,960 and the empty 9x9 grid 6,670,903,752,021,072,936,960
(Felgenhauer and Jarvis).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, Stopwatch, collection

from sudokubench import Grid, Shape, Status, get_backend, is_solution
from sudokubench.formats import collection_path
from sudokubench.solvers import native

pytest.importorskip("numba", reason="the native backend needs numba")

SCRIPT = str(Path(sys.executable).with_name("sudokubench"))
FIRST_ROW_6X6 = Grid(Shape(2, 3), (1, 2, 3, 4, 5, 6) + (0,) * 30)
EMPTY_9X9 = Grid.empty(Shape(3, 3))


@pytest.fixture(scope="module")
def backend() -> native.Native:
    """The native backend, warmed."""
    found = get_backend("native")
    assert isinstance(found, native.Native)
    native.warm()
    return found


@pytest.mark.parametrize(
    ("puzzle", "expected"),
    [
        (Grid.parse(MULTIPLE), 28),
        (Grid.empty(Shape(2, 2)), 288),
        (FIRST_ROW_6X6, 39_168),
    ],
    ids=["multiple", "empty-4x4", "6x6-first-row"],
)
def test_exact_counts(backend: native.Native, puzzle: Grid, expected: int) -> None:
    """count_all and solve give the known counts; solve's solutions are distinct and valid."""
    counted = backend.count_all(puzzle)
    assert (counted.count, counted.exhaustive) == (expected, True)
    assert len(counted.first) == min(expected, native.KEEP)
    result = backend.solve(puzzle, limit=expected + 1)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, expected, True)
    assert len(set(result.solutions)) == expected
    assert all(is_solution(s, puzzle) for s in result.solutions[:: max(1, expected // 500)])
    assert set(counted.first) <= set(result.solutions)


@pytest.mark.parametrize("line", [1, 6, 26, 34])
def test_count_all_agrees_with_the_solutions_of_solve(backend: native.Native, line: int) -> None:
    """count_all (which counts a node's last open cells by enumeration) and solve (which
    searches to every solution) agree on grids of the multi-solution collection."""
    puzzle = collection("multisolution5000", line)[-1].puzzle
    result = backend.solve(puzzle, limit=100_000)
    counted = backend.count_all(puzzle)
    assert counted.exhaustive and result.exhaustive
    assert counted.count == result.count >= 2
    assert set(counted.first) <= set(result.solutions)


@pytest.mark.slow
def test_count_every_6x6_grid(backend: native.Native) -> None:
    """The empty 6x6 grid: 28,200,960 solutions, exact, well within 30 s."""
    counted = backend.count_all(Grid.empty(Shape(2, 3)), timeout=120)
    assert (counted.count, counted.exhaustive) == (28_200_960, True)


def test_resuming_after_every_node_changes_nothing(
    backend: native.Native, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a budget of one node per kernel call the search pauses and resumes at every node,
    and with two rows for solutions it hands them over every two: same count, same set."""
    expected = set(backend.solve(Grid.parse(MULTIPLE), limit=100).solutions)
    monkeypatch.setattr(native, "BUDGET", 1)
    monkeypatch.setattr(native, "ROWS", 2)
    native.forget_spaces()
    try:
        result = backend.solve(Grid.parse(MULTIPLE), limit=100)
        assert (result.count, result.exhaustive) == (28, True)
        assert set(result.solutions) == expected
        assert backend.count_all(FIRST_ROW_6X6).count == 39_168
    finally:
        native.forget_spaces()


def test_the_band_kernels_counters_survive_its_pauses(
    backend: native.Native, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The band kernel keeps its counters in registers during a call and writes them back on
    every return: paused and resumed at every node, each top95 puzzle at limit 2 has the
    stats of one call, and the file's totals are the known ones."""
    puzzles = [r.puzzle for r in collection("top95")]
    whole = [dict(backend.solve(p, limit=2).stats) for p in puzzles]
    monkeypatch.setattr(native, "BUDGET", 1)
    native.forget_spaces()
    try:
        paused = [dict(backend.solve(p, limit=2).stats) for p in puzzles]
    finally:
        native.forget_spaces()
    assert paused == whole
    totals = {k: sum(s[k] for s in whole) for k in whole[0]}
    known = {"nodes": 1424, "guesses": 711, "backtracks": 713, "max_depth": 236}
    known |= {"hidden_singles": 16471, "locked_eliminations": 22854}
    assert {k: totals[k] for k in known} == known


def test_a_contradiction_at_the_root_is_no_backtrack(backend: native.Native) -> None:
    """Givens that do not conflict but leave a cell with no candidate (row 1 holds 1-8, its
    last column a 9): the root's propagation ends the search, no node tried or undone."""
    row = "12345678."
    puzzle = Grid.parse(row + "." * 18 + "........9" + "." * 45)
    assert puzzle.is_valid()
    result = backend.solve(puzzle, limit=2)
    assert (result.status, result.count, result.exhaustive) == (Status.UNSATISFIABLE, 0, True)
    assert (result.stats["nodes"], result.stats["backtracks"]) == (0, 0)


def test_limit_is_a_lower_bound(backend: native.Native) -> None:
    """Stopping at `limit` keeps exactly `limit` distinct solutions, not exhaustive."""
    result = backend.solve(FIRST_ROW_6X6, limit=1000)
    assert (result.status, result.count, result.exhaustive) == (Status.SOLVED, 1000, False)
    assert len(set(result.solutions)) == 1000


def test_stats_count_the_search(backend: native.Native) -> None:
    """Hard puzzles need guesses and backtracks; every node is within the cells' depth."""
    results = [backend.solve(r.puzzle, limit=2) for r in collection("top95", 20)]
    assert sum(r.stats["guesses"] for r in results) > 0
    assert sum(r.stats["backtracks"] for r in results) > 0
    for r in results:
        assert r.stats["nodes"] >= r.stats["guesses"]
        assert r.stats["nodes"] >= r.stats["backtracks"]
        assert 0 <= r.stats["max_depth"] <= 81
    empty = backend.solve(EMPTY_9X9, limit=1).stats  # nothing to propagate: guesses only
    assert empty["guesses"] >= 1 and empty["nodes"] >= 1


def test_count_all_timeout_keeps_what_it_counted(backend: native.Native) -> None:
    """Counting the empty 9x9 grid with 0.3 s: stopped on time with a count, not exhaustive."""
    with Stopwatch() as watch:
        counted = backend.count_all(EMPTY_9X9, timeout=0.3)
    assert not counted.exhaustive
    assert counted.count >= 1
    watch.within(0.8)
    assert all(is_solution(g, EMPTY_9X9) for g in counted.first)


def test_solve_timeout_on_a_huge_search(backend: native.Native) -> None:
    """solve with no practical limit on the empty 9x9 grid: TIMEOUT within 0.3 + 0.5 s."""
    with Stopwatch() as watch:
        result = backend.solve(EMPTY_9X9, limit=10**12, timeout=0.3)
    assert (result.status, result.exhaustive) == (Status.TIMEOUT, False)
    assert result.count >= 1
    watch.within(0.8)


@pytest.mark.parametrize("keep", [0, 3])
def test_count_keeps_only_what_it_is_asked_to(keep: int) -> None:
    """`count(..., keep=k)`: the exact count, the first k grids (valid, distinct); at a limit,
    a lower bound that is SOLVED; the same through the kernel and through a plain solve."""
    from sudokubench import count

    counted = count(FIRST_ROW_6X6, backend="native", limit=10**6, keep=keep)
    assert (counted.count, counted.exhaustive, counted.status) == (39_168, True, Status.SOLVED)
    assert len(set(counted.first)) == len(counted.first) == keep
    assert all(is_solution(g, FIRST_ROW_6X6) for g in counted.first)
    for backend in ("native", "fast"):
        bounded = count(FIRST_ROW_6X6, backend=backend, limit=1000, keep=keep)
        assert (bounded.count, bounded.exhaustive, bounded.status) == (1000, False, Status.SOLVED)
        assert len(bounded.first) == keep
    with pytest.raises(ValueError, match="keep must be"):
        count(FIRST_ROW_6X6, backend="native", keep=-1)


def test_count_all_of_no_solution_is_unsatisfiable(backend: native.Native) -> None:
    counted = backend.count_all(Grid.parse(MULTIPLE).with_value(3, 8), keep=2)
    assert (counted.count, counted.exhaustive, counted.status) == (0, True, Status.UNSATISFIABLE)


def test_the_timed_call_goes_straight_to_the_machine_code(backend: native.Native) -> None:
    """`run` calls the compiled search without numba's dispatch, with the same answers."""
    from sudokubench.solvers.native_search import search

    entry = native._kernel_entry()
    assert entry is not search and callable(entry)
    result = backend.solve(Grid.parse(MULTIPLE), limit=100)
    assert (result.count, result.exhaustive) == (28, True)


def test_the_band_kernel_solves_9x9_as_the_general_kernel_does(backend: native.Native) -> None:
    """9x9 searches run on the band kernel (`native_band`); on hard and 17-clue puzzles and a
    grid with 28 solutions its counts at limit 2 and 100 equal the general kernel's, every
    solution checked."""
    puzzles = [r.puzzle for r in collection("top95", 95) + collection("17clue", 200)]
    puzzles.append(Grid.parse(MULTIPLE))
    for puzzle in puzzles:
        assert native.Run(puzzle, 1).band and not native.Run(puzzle, 1, band=False).band
        general = native.Run(puzzle, 100, band=False)
        assert general.step(100, 1 << 40, True) == native.FINISHED
        expected = int(general.st[general.kernel.COUNT])
        for limit in (2, 100):
            result = backend.solve(puzzle, limit=limit)
            assert result.count == min(limit, expected)
            assert result.exhaustive == (expected < limit)
            assert all(is_solution(s, puzzle) for s in result.solutions)
        assert set(result.solutions) == set(general.take())
    assert not native.Run(FIRST_ROW_6X6, 1).band  # other shapes: the general kernel


def test_a_band_run_keeps_its_givens_and_call_in_its_state() -> None:
    """The band kernel's two arguments: a run's state holds the givens, the rows to fill, the
    limit, the budget and `drain` where `native_band.search` reads them."""
    from sudokubench.solvers import native_band

    puzzle = Grid.parse(MULTIPLE)
    run = native.Run(puzzle, 3, limit=5)
    assert run.band and len(run.kernel_arguments(5, native.BUDGET, True)) == 2
    expected = native_band.state(puzzle.digit_bytes(), 3, 5, native.BUDGET, True)
    assert run.st.tolist() == expected.tolist()
    assert run.st[native_band.S_BUDGET] == native.BUDGET and run.st[native_band.S_DRAIN] == 1
    givens_at = 8 * native_band.GIVENS_AT
    assert bytes(memoryview(run.st).cast("B")[givens_at : givens_at + 81]) == puzzle.digit_bytes()


def test_the_column_counts_without_bmi2_spread_each_bit() -> None:
    """`native_band._spread_nine`'s steps where the CPU lacks `pdep`: bit c of a row's nine
    moves to bit 4c, for every row."""
    from sudokubench.solvers.native_band import SPREAD_STEPS

    for v in range(512):
        x = v
        for shift, mask in SPREAD_STEPS:
            x = (x | x << shift) & mask
        assert x == sum(1 << 4 * c for c in range(9) if v >> c & 1)


def _band_samples() -> list[int]:
    """27-bit bands of a digit: every band of one to four cells at a few hundred places, and
    random ones of each density (a fixed seed)."""
    import random

    rng = random.Random(26)
    bands = [0, (1 << 27) - 1]
    for cells in range(1, 28):
        for _ in range(300):
            bands.append(sum(1 << p for p in rng.sample(range(27), cells)))
    return bands


def test_a_bands_row_and_box_singles_come_from_the_mask_and_t_units() -> None:
    """`native_band._unit_alone` and `T_UNITS` (the digit update's hidden singles in a row or a
    box of a band): the cells of the band alone in their row or their box, counted cell by
    cell, for every sample band."""
    from numba import njit

    from sudokubench.solvers import native_band
    from sudokubench.solvers.native_band_layout import T_UNITS

    @njit
    def alone(x, t):
        return x & t[T_UNITS + native_band._unit_alone(x)]

    table = native_band.band_tables()
    units = [sum(1 << p for p in range(27) if p // 9 == r) for r in range(3)]
    units += [sum(1 << p for p in range(27) if p % 9 // 3 == k) for k in range(3)]
    for x in _band_samples():
        expected = 0
        for unit in units:
            if bin(x & unit).count("1") == 1:
                expected |= x & unit
        assert alone(x, table) == expected, hex(x)


def test_a_digits_column_singles_come_from_one_vector() -> None:
    """`native_band._column_singles`: the columns where a digit's three bands hold exactly one
    cell, counted cell by cell over the nine rows."""
    import random

    from numba import njit

    from sudokubench.solvers import native_band

    @njit
    def single(x0, x1, x2):
        return native_band._column_singles(x0, x1, x2)

    rng = random.Random(9)
    samples = _band_samples()
    for _ in range(3000):
        x = [rng.choice(samples) for _ in range(3)]
        expected = 0
        for c in range(9):
            held = sum(b >> (9 * r + c) & 1 for b in x for r in range(3))
            expected |= (held == 1) << c
        assert single(*x) == expected, [hex(b) for b in x]


def test_t_shrink_keeps_the_cells_of_the_bands_placements() -> None:
    """`T_SHRINK` (a band's triads -> cells): ANDed with a band, the cells where the digit can
    still stand in a placement of the band (one cell in each row, each in another box),
    found by trying every placement; 0 exactly when there is none."""
    from sudokubench.solvers import native_band
    from sudokubench.solvers.native_band_layout import T_SHRINK

    table = native_band.band_tables()
    placements = [
        1 << a | 1 << b | 1 << c
        for a in range(9)
        for b in range(9, 18)
        for c in range(18, 27)
        if len({a % 9 // 3, b % 9 // 3, c % 9 // 3}) == 3
    ]
    assert len(placements) == 27 * 6
    for x in _band_samples():
        y = x | x >> 1 | x >> 2  # triad i (row i // 3, box i % 3): bits 3i to 3i + 2
        triads = sum(1 << i for i in range(9) if y >> 3 * i & 1)
        expected = 0
        for cells in placements:
            if x & cells == cells:
                expected |= cells
        assert x & int(table[T_SHRINK + triads]) == expected, hex(x)


def test_start_places_the_givens_found_by_their_mask_as_the_cell_loop_did() -> None:
    """`native_band._given_cells` (a band's given cells from one vector compare) against the
    givens read byte by byte, the 7 bytes after the 81 cells not zero; and `start` (the givens
    placed in that mask's order) against the loop over the 81 cells it replaced, on top95,
    hardest and each with one given copied into its row (a conflict): the same answer and,
    without a conflict, the same level 0, word for word."""
    import random

    import numpy as np
    from numba import njit

    from sudokubench.formats import read_puzzles
    from sudokubench.solvers import native_band
    from sudokubench.solvers.native_band_layout import BAND

    @njit
    def given_cells(givens, b):
        return native_band._given_cells(givens, b)

    @njit
    def cell_loop(f, t, givens):
        for i in range(30):
            f[i] = BAND
        for k in range(81):
            g = givens[k]
            if g:
                b = k // 27
                bit = 1 << (k - 27 * b)
                if f[3 * (g - 1) + b] & bit == 0:
                    return False
                native_band.place(f, 0, t, g - 1, b, bit, 0)
        return True

    rng = random.Random(81)
    table = native_band.band_tables()
    puzzles = [
        r.puzzle for name in ("top95", "hardest") for r in read_puzzles(collection_path(name))
    ]
    cases = []
    for puzzle in puzzles:
        digits = bytearray(puzzle.digit_bytes())
        cases.append(bytes(digits))
        k = rng.choice([k for k in range(81) if digits[k]])
        other = [j for j in range(9 * (k // 9), 9 * (k // 9) + 9) if not digits[j]]
        digits[rng.choice(other)] = digits[k]
        cases.append(bytes(digits))
    conflicts = 0
    for digits in cases:
        givens = np.frombuffer(digits + bytes(rng.randrange(1, 256) for _ in range(7)), np.uint8)
        for b in range(3):
            expected = sum(1 << p for p in range(27) if digits[27 * b + p])
            assert given_cells(givens, b) == expected
        ours, theirs = np.zeros(32, np.int64), np.zeros(32, np.int64)
        placed = native_band.start(ours, table, givens)
        assert placed == cell_loop(theirs, table, givens)
        conflicts += not placed
        if placed:
            assert ours.tolist() == theirs.tolist()
    assert conflicts == len(puzzles)


@pytest.mark.slow
def test_the_band_kernel_compiled_without_bmi2_agrees(tmp_path: Path) -> None:
    """Compiled for a generic x86-64 CPU (no `pdep` or `pext`: `_spread_nine`'s and
    `_pack_triads`' shifts; the vectors of `_seen`, `_unit_alone` and `_column_singles` in SSE2
    registers), the
    band kernel gives the same counts and stats as the host's build on top95 at limit 2."""
    script = (
        "import json\n"
        "from sudokubench import get_backend\n"
        "from sudokubench.formats import collection_path, read_puzzles\n"
        "from sudokubench.solvers import native_band\n"
        "native = get_backend('native')\n"
        "records = read_puzzles(collection_path('top95'))\n"
        "out = [native.solve(r.puzzle, limit=2) for r in records]\n"
        "print(json.dumps([native_band._has_bmi2(), [(r.count, dict(r.stats)) for r in out]]))\n"
    )
    runs = []
    for generic in (True, False):  # the second with this process's cache (the host's build)
        env = dict(os.environ)
        if generic:
            env.pop("NUMBA_CPU_FEATURES", None)
            env.update(NUMBA_CPU_NAME="generic", NUMBA_CACHE_DIR=str(tmp_path))
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=900
        )
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    assert runs[0][0] is False
    assert runs[0][1] == runs[1][1]
    assert all(count == 1 for count, _ in runs[0][1])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["top1465", "top95", "17clue"])
def test_the_band_kernel_agrees_with_fast_on_whole_collections(
    backend: native.Native, name: str
) -> None:
    """Every puzzle of the collection (17clue: all 49,158) at limits 1 and 2: the band
    kernel's count equals `fast`'s, each solution passes `is_solution`, and at limit 2 the
    solutions are `fast`'s. The band kernel's changes are judged on these files."""
    fast = get_backend("fast")
    for record in collection(name):
        puzzle = record.puzzle
        reference = fast.solve(puzzle, limit=2)
        for limit in (1, 2):
            result = backend.solve(puzzle, limit=limit)
            assert result.count == min(limit, reference.count), f"{record.id} limit {limit}"
            assert result.exhaustive == reference.exhaustive or limit == 1, f"{record.id}"
            assert all(is_solution(s, puzzle) for s in result.solutions), f"{record.id}"
        assert set(result.solutions) == set(reference.solutions), f"{record.id}"


def test_native_reads_the_kernels_own_return_codes() -> None:
    from sudokubench.solvers import native_kernel as nk

    codes = (native.FINISHED, native.LIMIT, native.PAUSED, native.FULL)
    assert codes == (nk.FINISHED, nk.LIMIT, nk.PAUSED, nk.FULL)
    indices = (native.NODES, native.GUESSES, native.BACKTRACKS, native.MAX_DEPTH)
    indices += (native.HIDDEN, native.LOCKED, native.SAVED)
    expected = (nk.NODES, nk.GUESSES, nk.BACKTRACKS, nk.MAX_DEPTH, nk.HIDDEN, nk.LOCKED, nk.SAVED)
    assert indices == expected


def test_conflicting_givens_found_by_the_kernel(backend: native.Native) -> None:
    """The kernel itself proves conflicting givens unsatisfiable (solve skips is_valid)."""
    result = backend.solve(Grid.parse(MULTIPLE).with_value(3, 8), limit=2)
    assert (result.status, result.exhaustive) == (Status.UNSATISFIABLE, True)
    assert backend.count_all(Grid.parse(MULTIPLE).with_value(3, 8)).count == 0


# -- Knuth's estimator ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("puzzle", "expected"),
    [(Grid.parse(MULTIPLE), 28), (Grid.empty(Shape(2, 2)), 288)],
    ids=["multiple", "empty-4x4"],
)
def test_estimate_agrees_with_small_exact_counts(
    backend: native.Native, puzzle: Grid, expected: int
) -> None:
    """On small counts the 95% interval contains the exact count and is tight (a fixed number
    of probes, no clock: the default 10 s ends a loaded machine's estimate early)."""
    est = backend.estimate(puzzle, probes=20_000, seconds=None, seed=7)
    low, high = est.interval
    assert low <= expected <= high
    assert abs(est.mean - expected) / expected < 0.02
    assert est.probes == 20_000


def test_estimate_of_no_solution_is_zero(backend: native.Native) -> None:
    """A grid without solutions: every probe dies, the estimate is 0 with no spread."""
    unsat = collection("shidoku4x4")[8].puzzle
    est = backend.estimate(unsat, probes=100)
    assert (est.mean, est.standard_error, est.interval) == (0.0, 0.0, (0.0, 0.0))


def _check_published(backend: native.Native, puzzle: Grid, truth: int, probes: int) -> None:
    """A fixed number of probes, however long they take (no clock: the test is deterministic
    and holds on a busy machine)."""
    est = backend.estimate(puzzle, probes=probes, seconds=None, seed=1)
    assert est.probes == probes, f"only {est.probes} probes"
    low, high = est.interval
    assert low <= truth <= high, f"{est}"
    assert abs(est.mean - truth) / truth <= 0.02, f"{est}"


@pytest.mark.slow
def test_estimate_of_every_6x6_grid(backend: native.Native) -> None:
    """The empty 6x6 grid: 28,200,960 inside the interval, within 2%."""
    _check_published(backend, Grid.empty(Shape(2, 3)), 28_200_960, 20_000)


@pytest.mark.slow
def test_estimate_of_every_9x9_grid(backend: native.Native) -> None:
    """The empty 9x9 grid: Felgenhauer and Jarvis's count inside, within 2%."""
    _check_published(backend, EMPTY_9X9, 6_670_903_752_021_072_936_960, 30_000)


# -- the command line -------------------------------------------------------------------------


def run_cli(*args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """The sudokubench command (or `code` run by this interpreter with the args)."""
    command = [SCRIPT, *args] if code is None else [sys.executable, "-c", code, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_cli_count_all_and_estimate(backend: native.Native) -> None:
    """`count --all` counts exactly; `count --estimate` says it is an estimate."""
    done = run_cli("count", MULTIPLE, "--all", "--json")
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert (row["count"], row["exhaustive"], row["backend"]) == (28, True, "native")
    assert len(row["first_solutions"]) == native.KEEP
    done = run_cli("count", MULTIPLE, "--estimate", "--timeout", "0.5", "--json")
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["estimate"] is True
    # Exactly the estimator's figures for the probes it made in 0.5 s: how many depends on
    # the machine's load, and a 95% interval of a few hundred probes may miss 28 (seen on a
    # loaded machine; the estimator's accuracy is tested with fixed probe counts above).
    assert row["probes"] >= 1
    est = backend.estimate(Grid.parse(MULTIPLE), probes=row["probes"], seconds=None)
    assert (row["count"], row["interval"]) == (est.mean, list(est.interval))
    done = run_cli("count", MULTIPLE, "--all", "--backend", "cpsat")
    assert done.returncode == 2
    assert done.stderr.startswith("sudokubench: error: ")


def test_cli_backends_warm() -> None:
    """`backends --warm` loads the kernel, then lists native as ready."""
    done = run_cli("backends", "--warm")
    assert done.returncode == 0, done.stderr
    assert "native: kernel ready in" in done.stdout
    assert any(line.split()[:2] == ["native", "yes"] for line in done.stdout.splitlines())


#: Runs the command line with `import numba` failing, as on a machine without numba.
WITHOUT_NUMBA = (
    "import sys; sys.modules['numba'] = None; sys.argv[0] = 'sudokubench'; "
    "from sudokubench.cli import main; main()"
)


def test_without_numba_the_backend_is_not_ready() -> None:
    """No numba: `backends` says how to install it; using native is one error line, exit 2."""
    done = run_cli("backends", "--json", code=WITHOUT_NUMBA)
    assert done.returncode == 0, done.stderr
    rows = {row["name"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert rows["native"]["available"] is False
    assert "pip install 'sudokubench[native]'" in rows["native"]["note"]
    assert rows["fast"]["available"] is True
    for args in (["solve", MULTIPLE, "-b", "native"], ["count", MULTIPLE, "--all"]):
        done = run_cli(*args, code=WITHOUT_NUMBA)
        assert done.returncode == 2, done.stdout
        assert done.stderr.count("\n") == 1, done.stderr
        assert "numba" in done.stderr and "Traceback" not in done.stderr


#: What `native_ready` loaded: each kernel entry's compiled versions, `warm`'s and `load`'s
#: calls cached, and whether a 9x9 solve then needs any load of its own (the grid solved is
#: checked, and how many versions the band kernel has after it); first whether numba was
#: imported. `NUMBA_ONLY`: as if no machine code were kept (`native_object.path` finds none).
PRELOADED = """
import sys
from sudokubench.solvers import native_object
if NUMBA_ONLY:
    native_object.path = lambda: None
import sudokubench.solvers.native_ready
from sudokubench.grid import Grid, is_solution
from sudokubench.solvers import native
print('numba' in sys.modules, native.warm.cache_info().currsize, native.load.cache_info().currsize)
from sudokubench.solvers import native_band, native_estimate, native_search
print(len(native_band.search.signatures), len(native_search.search.signatures),
      len(native_estimate.probes.signatures))
puzzle = Grid.parse(PUZZLE)
result = native.Native().solve(puzzle)
print(is_solution(result.solutions[0], puzzle), len(native_band.search.signatures),
      native.load.cache_info().currsize)
"""


@pytest.mark.parametrize("numba_only", [False, True], ids=["kept-object", "numba"])
def test_the_fork_server_preloads_the_kernel(backend: native.Native, numba_only: bool) -> None:
    """The pool's fork server imports `native_ready` (the backend's `preload`): a fresh process
    that imports it has the 9x9 band kernel loaded, so a worker forked from it needs no load of
    its own under the load limit, and nothing else of the kernel (each part of it costs the
    start of every run 20-30 ms): the general search, the estimator's probe. From the kept
    machine code (`native_object`) it imports no numba and numba compiles nothing; without it,
    numba's cache serves the band kernel alone."""
    from sudokubench.harness.pool.local import _modules

    assert backend.preload in _modules(["native", "fast"])
    code = PRELOADED.replace("PUZZLE", repr(TELEGRAM)).replace("NUMBA_ONLY", str(numba_only))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    expected = ["True", "0", "1", "1", "0", "0", "True", "1", "1"]
    if not numba_only:  # (numba imported only by the lines that ask for its modules)
        expected = ["False", "0", "1", "0", "0", "0", "True", "0", "1"]
    assert done.stdout.split() == expected, done.stderr[-2000:]


def test_the_fork_server_does_not_compile_a_cold_cache(
    backend: native.Native, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With numba's cache empty, importing `native_ready` (what the fork server does, maybe
    while the command compiles the kernel itself) compiles nothing: no second, unannounced
    compile; the cache stays empty and the kernel unloaded."""
    code = (
        "import sudokubench.solvers.native_ready\n"
        "from sudokubench.solvers.native import kernel_cached, warm\n"
        "print(warm.cache_info().currsize, kernel_cached())\n"
    )
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.stdout.split() == ["0", "False"], done.stderr[-2000:]
    assert not any(tmp_path.rglob("*.nbi")), "the fork server wrote a cache"


def test_the_cache_is_seen_where_numba_keeps_it(
    backend: native.Native, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After warm() the cache holds the kernel; an empty cache directory does not."""
    assert native.kernel_cached() is True
    code = "from sudokubench.solvers.native import kernel_cached; print(kernel_cached())"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.stdout.split() == ["False"], done.stderr[-2000:]


#: Compiles the kernel into an empty cache (`warm()`), then prints the number of helpers inlined
#: by LLVM (`native_kernel.inlined`), those compiled for a literal argument type (a second
#: compile of the same code), those with no compiled version, and those the entry points'
#: machine code still calls (LLVM did not inline them).
COMPILE_REPORT = r"""
import json
import re
from numba.core.dispatcher import Dispatcher
from numba.core.types import Literal
from sudokubench.solvers import native, native_band, native_estimate, native_kernel, native_search
native.warm()
modules = (native_kernel, native_search, native_estimate, native_band)
helpers = [
    (m.__name__.rpartition(".")[2], name, f)
    for m in modules
    for name, f in vars(m).items()
    if isinstance(f, Dispatcher) and f.__module__ == m.__name__
    and f.targetoptions.get("forceinline")
]
literal = [n for _, n, f in helpers if any(isinstance(t, Literal) for s in f.signatures for t in s)]
unused = [n for _, n, f in helpers if not f.signatures]
code = "".join(
    ir
    for entry in (native_search.search, native_band.search, native_estimate.probes)
    for ir in entry.inspect_llvm().values()
)
called = [n for m, n, _ in helpers if re.search(f"call [^\n]*{len(m)}{m}{len(n)}{n}B", code)]
print(json.dumps([len(helpers), literal, unused, called]))
"""


@pytest.mark.slow
def test_a_first_compile_compiles_each_helper_once_and_inlines_it(tmp_path: Path) -> None:
    """With an empty cache every helper of the kernels is compiled for its plain argument types
    only (a constant at a call site is not a type of its own, which compiled `settle` four
    times), and the entry points' machine code calls none of them: LLVM inlined them all."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_REPORT], capture_output=True, text=True, env=env, timeout=900
    )
    assert done.returncode == 0, done.stderr[-2000:]
    count, literal, unused, called = json.loads(done.stdout.splitlines()[-1])
    assert count >= 15
    assert (literal, unused, called) == ([], [], [])


def test_a_first_compile_is_announced(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A compile (numba's cache without the kernel) is announced on stderr before it starts;
    quiet, or loading a cached kernel, it is not."""
    from sudokubench.cli import native as cli_native

    said = []
    monkeypatch.setattr(native, "warm", lambda: said.append(capsys.readouterr().err) or 0.0)
    monkeypatch.setattr(native, "kernel_cached", lambda: False)
    assert cli_native.ready_native() is True
    assert said == [cli_native.NOTICE + "\n"]  # said before the compile, not after
    assert cli_native.ready_native(quiet=True) is True
    monkeypatch.setattr(native, "kernel_cached", lambda: True)
    assert cli_native.ready_native() is True
    assert said[1:] == ["", ""] and capsys.readouterr().err == ""


def test_compare_leaves_a_cached_kernel_to_its_workers(
    backend: native.Native, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """`compare` (`workers_only`) does not load a cached kernel in its own process, and
    `available()` there then does not either; a cold cache is still compiled there, once,
    announced."""
    from sudokubench.cli import native as cli_native

    loads = []
    monkeypatch.setattr(native, "warm", lambda: loads.append("warm") or 0.0)
    monkeypatch.setattr(native, "ready", lambda: loads.append("ready") or 0.0)
    monkeypatch.setattr(native, "load_on_available", True)
    monkeypatch.setattr(native, "kernel_cached", lambda: False)
    assert cli_native.ready_native(workers_only=True) is True
    assert loads == ["warm"] and capsys.readouterr().err == cli_native.NOTICE + "\n"
    assert native.load_on_available is True
    monkeypatch.setattr(native, "kernel_cached", lambda: True)
    assert cli_native.ready_native(workers_only=True) is True
    assert native.load_on_available is False
    assert backend.available() is True
    assert loads == ["warm"]  # neither call loaded it here
    monkeypatch.setattr(native, "load_on_available", True)
    assert backend.available() is True and loads == ["warm", "ready"]


def test_ready_loads_the_band_kernel_or_compiles_all(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ready` (what `available()` does in a process that solves): with the band kernel's
    machine code kept, that loaded and the band kernel run on it (`load(True)`); else with
    numba's cache holding the kernel, the 9x9 band kernel alone loaded from it (`load(True)`);
    a cold cache (or one it cannot look at) compiled whole (`warm`), so no later call of
    another part compiles."""
    cases = (
        (object(), None, [("load", True)]),
        (None, True, [("load", True)]),
        (None, False, ["warm"]),
        (None, None, ["warm"]),
    )
    for kept, cached, expected in cases:
        loads: list = []
        monkeypatch.setattr(native, "warm", lambda loads=loads: loads.append("warm") or 0.0)
        monkeypatch.setattr(native, "load", lambda band, loads=loads: loads.append(("load", band)))
        monkeypatch.setattr(native, "band_object", lambda kept=kept: kept)
        monkeypatch.setattr(native, "numba_cached", lambda cached=cached: cached)
        native.ready.cache_clear()
        native.ready()
        native.ready()  # (once a process)
        assert loads == expected
    native.ready.cache_clear()


def test_compare_solves_with_the_kernel_its_workers_load(tmp_path: Path) -> None:
    """`compare -b native --jobs 2` with a cached kernel: every puzzle solved and checked by
    workers that loaded the kernel themselves."""
    done = run_cli(
        "compare", str(collection_path("easy50")), "-b", "native", "--jobs", "2",
        "--db", str(tmp_path / "run.sqlite"), "--json", "-q",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]["native"]
    assert (summary["solved"], summary["wrong"], summary["error"]) == (50, 0, 0)


def test_two_threads_solving_at_once_keep_their_own_answers(backend: native.Native) -> None:
    """Each thread searches in arrays of its own: two threads solving different puzzles at
    the same time (the interpreter switching between them every microsecond, so one's
    search runs between the other's call and its answer) each get their own puzzle's
    solution, never the other's."""
    import threading

    sets = [
        [r.puzzle for r in collection("top95", 40)],
        [r.puzzle for r in collection("17clue", 400)],
    ]
    wrong: list[str] = []

    def solve_all(puzzles: list[Grid]) -> None:
        for _ in range(3):
            for puzzle in puzzles:
                result = backend.solve(puzzle, limit=2)
                if result.count != 1 or not is_solution(result.solutions[0], puzzle):
                    wrong.append(str(puzzle))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=solve_all, args=(s,)) for s in sets]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not wrong, f"{len(wrong)} wrong answers, e.g. {wrong[0]}"


def test_solve_builds_the_result_that_stamp_would(backend: native.Native) -> None:
    """`backend.solve` hands the rule's times to `answer_timed`: its result is, field for
    field, `stamp(timed_call(...))`'s but for the two times, which are the rule's (> 0), and
    the backend's own `answer` (the harness's) still carries none."""
    from dataclasses import fields

    from sudokubench.backend import stamp, timed_call

    conflicting = Grid.parse(MULTIPLE).with_value(3, 8)
    puzzles = [r.puzzle for r in collection("17clue", 20)] + [Grid.parse(MULTIPLE), conflicting]
    for puzzle in puzzles:
        for limit in (1, 2, 100):
            direct = backend.solve(puzzle, limit=limit)
            timed = timed_call(backend, puzzle, limit, cpu=False)
            stamped = stamp(timed)
            assert type(direct) is type(stamped)
            for f in fields(direct):
                if f.name not in ("encode_s", "solve_s"):
                    assert getattr(direct, f.name) == getattr(stamped, f.name), f.name
            assert direct.encode_s > 0 and direct.solve_s > 0
            assert timed.answer.encode_s == timed.answer.solve_s == 0.0
            assert all(is_solution(s, puzzle) for s in direct.solutions)
    assert backend.solve(Grid.parse(MULTIPLE), limit=100).count == 28
    assert backend.solve(conflicting, limit=2).status is Status.UNSATISFIABLE


def _six_by_six_with(cells: tuple[int, ...]) -> Grid:
    """The 6x6 grid with 1..6 in `cells` (a unit) and nothing else."""
    digits = [0] * 36
    for d, k in enumerate(cells, 1):
        digits[k] = d
    return Grid(Shape(2, 3), tuple(digits))


@pytest.mark.parametrize(
    "cells", [(0, 1, 2, 3, 4, 5), (0, 6, 12, 18, 24, 30), (0, 1, 2, 6, 7, 8)], ids=str
)
@pytest.mark.parametrize("limit", [None, 10**6])
def test_counting_a_given_unit_of_6x6(backend: native.Native, cells: tuple, limit: int) -> None:
    """A 6x6 grid with one unit given has 28,200,960 / 720 = 39,168 completions (relabelling
    the digits of the unit), whatever the unit and the limit above it: the counting leaves
    (enumeration, memo) and the search agree."""
    counted = backend.count_all(_six_by_six_with(cells), limit=limit, keep=1)
    assert (counted.count, counted.exhaustive, counted.status) == (39_168, True, Status.SOLVED)


@pytest.mark.parametrize("limit", [1, 7, 64, 65, 1000, 39_167, 39_168, 39_169])
def test_count_all_stops_at_the_limit_inside_a_leaf(backend: native.Native, limit: int) -> None:
    """The leaves' enumeration stops at the limit itself: exactly min(limit, 39,168), exact
    only when the limit is above the count (at 64 and 65 a leaf sets up its memo)."""
    counted = backend.count_all(FIRST_ROW_6X6, limit=limit, keep=0)
    assert (counted.count, counted.exhaustive) == (min(limit, 39_168), limit > 39_168)


def test_leaf_memo_across_pauses(backend: native.Native, monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget of one node a call pauses the leaves (and their memo) every few hundred steps:
    the counts of the given units and of the multi-solution grids are unchanged, and agree
    with the band kernel's solve (another search)."""
    puzzles = [_six_by_six_with(c) for c in ((0, 6, 12, 18, 24, 30), (0, 1, 2, 6, 7, 8))]
    multi = [r.puzzle for r in collection("multisolution5000", 40)]
    expected = [backend.count_all(p).count for p in multi]
    monkeypatch.setattr(native, "BUDGET", 1)
    assert [backend.count_all(p).count for p in puzzles] == [39_168, 39_168]
    assert [backend.count_all(p, limit=10**6).count for p in multi] == expected
    assert expected == [backend.solve(p, limit=10_000).count for p in multi]


def test_solve_fills_one_shared_run_and_answers_as_timed_call(backend: native.Native) -> None:
    """`Native.solve`'s common call (9x9, limit below `ROWS`) fills the thread's shared band
    run in place: the same state array every solve, given back after each; its answers are
    `stamp(timed_call(...))`'s, field for field but the times, on 17clue and top95 at limits
    1, 2 and 3, every solution checked; the harness still times it around `run`."""
    from dataclasses import fields

    from sudokubench.backend import BaseBackend, _phased, stamp, timed_call

    assert type(backend).solve is not BaseBackend.solve and _phased(type(backend))
    puzzles = [r.puzzle for r in collection("17clue", 30) + collection("top95", 30)]
    for _ in range(2):  # the thread's space, with the kernel's entry, and its last shape
        backend.solve(puzzles[0])
    space = native._local.last[1]
    shared = space.run
    assert shared is space.shared and shared is not None
    state = shared.st
    for puzzle in puzzles:
        for limit in (1, 2, 3):
            direct = backend.solve(puzzle, limit=limit)
            assert space.run is shared and shared.st is state
            stamped = stamp(timed_call(backend, puzzle, limit, cpu=False))
            for f in fields(direct):
                if f.name not in ("encode_s", "solve_s"):
                    assert getattr(direct, f.name) == getattr(stamped, f.name), f.name
            assert direct.count == 1 and is_solution(direct.solutions[0], puzzle)
            assert direct.encode_s > 0 and direct.solve_s > 0
    givens_at = 8 * native._GIVENS_AT
    assert bytes(memoryview(state).cast("B")[givens_at : givens_at + 81]) == (
        puzzles[-1].digit_bytes()
    )


def test_a_solve_inside_a_solve_makes_its_own_run(
    backend: native.Native, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A solve started in the same thread while another has the shared run (as a signal
    handler's would) gets a run of its own: both answers are their puzzles' own."""
    outer, inner = (r.puzzle for r in collection("17clue", 2))
    for _ in range(2):  # the thread's space, with the kernel's entry, and its last shape
        backend.solve(outer)
    timed = native._run
    inside: list = []

    def nested(prepared: object, timeout: float | None) -> object:
        if not inside:  # the outer solve's timed region, on the shared run: `inner` first
            assert prepared[0] is native._local.last[1].shared  # type: ignore[index]
            inside.append(None)
            inside[0] = backend.solve(inner, limit=2)
        return timed(prepared, timeout)

    monkeypatch.setattr(native, "_run", nested)
    result = backend.solve(outer, limit=2)
    assert result.count == 1 and is_solution(result.solutions[0], outer)
    assert inside[0].count == 1 and is_solution(inside[0].solutions[0], inner)
    assert result.solutions[0] != inside[0].solutions[0]
    assert native._local.last[1].run is native._local.last[1].shared


def test_a_failed_solve_gives_the_shared_run_back(backend: native.Native) -> None:
    """A failure inside the common call (here givens of the wrong length, which the state's
    view refuses) is an ERROR result, and the next solve has the shared run again."""
    puzzle = collection("17clue", 1)[0].puzzle
    for _ in range(2):  # the thread's space, with the kernel's entry, and its last shape
        backend.solve(puzzle)
    broken = Grid._from_bytes(puzzle.shape, puzzle.digit_bytes() + b"\0")
    result = backend.solve(broken)
    assert result.status is Status.ERROR and "ValueError" in result.message
    assert native._local.last[1].run is native._local.last[1].shared
    assert is_solution(backend.solve(puzzle).solutions[0], puzzle)
