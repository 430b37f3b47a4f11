"""`native`: a bitset solver and counter compiled by numba, for any box shape up to 35 digits.

Algorithm: a 9x9 solve runs on the band kernel (`native_band.py`: per digit three 27-bit bands,
triads and box-line interactions by table lookups, bivalue branching). Every other shape,
`count_all` and `estimate` run on the general kernel (`native_kernel.py`, `native_search.py`,
`native_estimate.py`): int64 candidate bitsets, naked and hidden singles, box-line reduction
with the counting rule of a box-line segment (tdoku's triads) while more than `LAST_CELLS` cells
are open, fewest-candidates branching (when solving, the cell whose units have the most open
cells) on an explicit stack whose levels are blocks of one array; see those modules' docstrings.

Timing (the rule of `sudokubench.backend`): `prepare` loads the kernel and puts the givens
into its arrays; `run`, the timed region, is the kernel call (and more calls after a pause);
`answer` turns the rows the kernel wrote into grids.

Timeout: cooperative. The kernel returns to Python every `BUDGET` nodes (about a millisecond
on 9x9) with its whole state in arrays; the deadline is checked there and the search resumes,
so there is no clock in the hot loop. A timeout keeps the solutions found so far.

Stats: `nodes` (digits tried), `guesses` (branch points), `backtracks` (nodes that ended in a
contradiction), `max_depth` (deepest stack level), `hidden_singles`, `locked_eliminations`.

Compilation: `@njit(cache=True)` compiles each kernel function once per machine into numba's
on-disk cache (a `__pycache__` beside the kernel modules, or numba's per-user cache directory
when that one is not writable; `NUMBA_CACHE_DIR` overrides both). `warm()` (run by
`sudokubench backends --warm`, by `compare` before its workers start when the cache lacks it,
by `count_all` and `estimate`) compiles or loads all of it; `available()` compiles all of it
when the cache lacks it, else loads only the 9x9 band kernel (`ready`), and the first solve
of a shape loads its kernel function (`load`); the worker pool's fork server imports
`native_ready` (`preload`), which loads the band kernel's cached machine code once for every
worker forked from it. The band kernel's machine code is also kept as an object file beside
numba's cache (`native_object`, written by `warm`), which a process's first 9x9 Space loads
without importing numba (`band_object`): 9x9 Spaces run it, and numba is imported only when
another kernel is needed (another shape, `count_all`, `estimate`): a pool's worker loads it
before its first task of the shape (`load_shape`), outside that task's clock. `solve` never
times compilation: `encode_s` holds the one-off load (in `prepare`, when no `load_shape` came
first), `solve_s` the search. A cached
function is checked against its own file only: after editing `native_kernel.py`, clear the
cache (see that module's docstring).

Beyond the contract: `count_all` counts every solution of a grid at kernel speed keeping only
the first few as grids, and `estimate` runs Knuth's estimator for grids whose solutions are too
many to enumerate.

Limits: without numba the backend is not ready (`pip install 'sudokubench[native]'`).
Roads not taken: tdoku's band-of-three SIMD layout (numba does not vectorise this kind of
code on its own); the band kernel takes JCZSolve's and fsss2's per-digit bands instead, for 9x9
only, and one cell-major layout serves every other shape.
"""

from __future__ import annotations

import importlib.util
import math
import os
import struct
import sys
import threading
import time
from array import array
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

from sudokubench.backend import (
    BaseBackend,
    ContractError,
    Count,
    Deadline,
    SolveResult,
    Status,
    _error,
    applies_the_rule,
    package_version,
)
from sudokubench.grid import Grid, Shape

#: Nodes the kernel searches between two deadline checks (about 1 ms on 9x9 puzzles).
BUDGET = 4096
#: Solutions written by the kernel per call before Python turns them into grids.
ROWS = 256
#: Grids `count_all` keeps besides the count.
KEEP = 10
#: Probes per kernel call of the estimator, between two clock checks.
PROBES_PER_CALL = 256
#: The kernel's return codes (`native_kernel`'s, which needs numba to import).
FINISHED, LIMIT, PAUSED, FULL = 0, 1, 2, 3
#: Where the kernel's state array keeps its counters (`native_kernel`'s indices).
NODES, GUESSES, BACKTRACKS, MAX_DEPTH, HIDDEN, LOCKED, SAVED = 3, 4, 5, 6, 7, 8, 9
#: The statuses `answer` gives, as globals (an enum's attribute costs several times a global's).
_SOLVED, _UNSATISFIABLE, _TIMEOUT = Status.SOLVED, Status.UNSATISFIABLE, Status.TIMEOUT
#: `SolveResult.checked` and `MappingProxyType` as globals (`answer_timed`).
_checked, _proxy = SolveResult.checked, MappingProxyType
#: `object.__new__` and `object.__setattr__` as globals (`answer_timed` makes its grid as
#: `Grid._unchecked` does).
_new_object, _set_attribute = object.__new__, object.__setattr__
#: The band kernel's state layout (`native_band`'s `S_*` and `GIVENS_AT`: the general kernel's
#: 12 words of state, then the call's keep, limit, budget and drain, then the givens).
_S_LIMIT, _S_BUDGET, _S_DRAIN, _GIVENS_AT = 13, 14, 15, 16
#: Zeros after a band state's 81 givens, to a whole number of words.
_PAD = bytes(7)
#: Where a band state's bytes hold its head (the counters and the call: `band_head`) and
#: its givens, and where its counters from NODES to SAVED start (`Space.counters`).
_HEAD_END, _GIVENS_END, _COUNTERS_AT = 8 * _GIVENS_AT, 8 * _GIVENS_AT + 81, 8 * NODES
#: `time.perf_counter`, a global (`Native.solve`).
_perf_counter = time.perf_counter
#: Whether `available()` loads the kernel in this process. `compare`'s command turns it off
#: when numba's cache holds the kernel (`cli.native.ready_native(workers_only=True)`): its own
#: process never solves, and the workers' fork server loads the kernel anyway (`preload`), so
#: loading it there too cost the command most of a second of start-up.
load_on_available = True
#: The band kernel's kept machine code, once this process loaded it (`band_object`): new 9x9
#: Spaces then run it without numba (`native_object`); None until then, or when it is missing.
_band_object: Any = None


@dataclass(frozen=True)
class Tables:
    """What the kernel needs of one shape: one flat int32 table and the size of the work array.

    The table holds a header (`native_kernel.HEADER` entries: cells, N, peers per cell,
    segments, the widths of the segment tables, stack levels), then peers, units, the units
    of each cell, and the box-line segments: their cells, lengths, the other segments of their
    line and of their box (padded with a dummy empty segment), and the rest of their line and
    of their box (padded with -1). `native_kernel.unpack` reads it back as 2-D views.
    """

    shape: Shape
    table: Any  # numpy int32 array
    work_size: int  # int64 entries: candidate blocks, open cells, branches, queue, scratch


@cache
def tables(shape: Shape) -> Tables:
    """The kernel's table of `shape`."""
    import numpy as np

    from sudokubench.solvers.native_kernel import HEADER, LEAF_WORK

    n, cells = shape.n, shape.cells
    seg_cells: list[list[int]] = []
    seg_line: list[tuple[int, int]] = []
    seg_box: list[tuple[int, int]] = []
    lines_of = (shape.rows, shape.cols)
    for direction, lines in enumerate(lines_of):
        for line_no, line in enumerate(lines):
            for box_no, box in enumerate(shape.boxes):
                common = [k for k in line if k in set(box)]
                if common:
                    seg_cells.append(common)
                    seg_line.append((direction, line_no))
                    seg_box.append((direction, box_no))
    nseg = len(seg_cells)
    segs = range(nseg)
    line_others = [[o for o in segs if o != s and seg_line[o] == seg_line[s]] for s in segs]
    box_others = [[o for o in segs if o != s and seg_box[o] == seg_box[s]] for s in segs]
    line_rest = [
        [k for k in lines_of[seg_line[s][0]][seg_line[s][1]] if k not in seg_cells[s]] for s in segs
    ]
    box_rest = [[k for k in shape.boxes[seg_box[s][1]] if k not in seg_cells[s]] for s in segs]
    padded = [
        _pad(seg_cells, 0),
        _pad(line_others, nseg),  # segment `nseg` is an always-empty dummy
        _pad(box_others, nseg),
        _pad(line_rest, -1),
        _pad(box_rest, -1),
    ]
    npeers = len(shape.peers[0])
    levels = cells + 2
    header = [cells, n, npeers, nseg, *(len(p[0]) for p in padded), levels]
    header += [0] * (HEADER - len(header))
    parts = [
        header,
        [k for peers in shape.peers for k in sorted(peers)],
        [k for unit in shape.units for k in unit],
        [u for r, c, b in shape.cell_units for u in (r, n + c, 2 * n + b)],
        [k for row in padded[0] for k in row],
        [len(c) for c in seg_cells],
        *([k for row in p for k in row] for p in padded[1:]),
    ]
    table = np.array([x for part in parts for x in part], dtype=np.int32)
    work_size = levels * cells + 3 * levels + cells + 2 + 3 * n + nseg + 1 + LEAF_WORK + 2 * cells
    return Tables(shape, table, work_size)


def _pad(rows: list[list[int]], fill: int) -> list[list[int]]:
    """Rows padded with `fill` to one width (at least 1)."""
    width = max(1, *(len(r) for r in rows))
    return [r + [fill] * (width - len(r)) for r in rows]


class Run:
    """One resumable search of one puzzle: the kernel's arrays and a loop around it.

    The big arrays (a block of candidates per stack level, the rows for solutions) belong to
    the shape and the thread and are reused from run to run: a thread searches one puzzle at
    a time, and `prepare`, `run` and `answer` of one solve follow each other. The givens and
    the state are the run's own, but for the one 9x9 run a thread's `Native.solve` fills in
    place, solve after solve (`Space.run`).
    """

    __slots__ = ("band", "givens", "kernel", "shape", "sols", "space", "st")

    def __init__(self, puzzle: Grid, rows: int, band: bool = True, limit: int = 1) -> None:
        shape = puzzle.shape
        last = _local.__dict__.get("last")
        space = last[1] if last is not None and last[0] is shape else _space_of(shape)
        self.shape = shape
        self.space = space
        # 9x9 searches with the band kernel (`native_band`) unless `band` is off or more
        # rows are asked for than its work array holds; the estimator's probes and every
        # other shape use the general kernel.
        self.band = band and space.band is not None and rows <= ROWS
        if not self.band:
            space.general()
        self.kernel = space.kernel
        if self.band:  # the givens, rows, limit, budget in the state (`native_band.search`)
            self.givens = None
            self.st = space.words(
                space.band_state_join(
                    (space.band_head(rows, limit, BUDGET, 1), puzzle.digit_bytes(), _PAD)
                )
            )
            self.sols = space.band_views[rows]
        else:
            np = space.numpy
            self.givens = np.frombuffer(puzzle.digit_bytes(), np.uint8)
            self.st = space.state.copy()
            views = space.views
            self.sols = views[rows] if rows < len(views) else space.rows_of(rows)

    def step(self, limit: int, budget: int, drain: bool) -> int:
        """One call of the kernel: FINISHED, LIMIT, PAUSED or FULL."""
        return self.space.searches[self.band](*self.kernel_arguments(limit, budget, drain))

    def kernel_arguments(self, limit: int, budget: int, drain: bool) -> tuple[Any, ...]:
        """The arguments of `native_search.search` for this run; on the band kernel
        (`native_band.search`) the work array, which holds the tables and the rows, and the
        state, which holds the givens, the rows to fill, `limit`, `budget` and `drain`
        (written here)."""
        work, table = self.space.arrays[self.band]
        if table is None:
            st = self.st
            st[_S_LIMIT] = limit
            st[_S_BUDGET] = budget
            st[_S_DRAIN] = drain
            return work, st
        return (work, table, self.givens, self.st, self.sols, limit, budget, drain)

    @property
    def tab(self) -> Tables:
        """The general kernel's tables of the shape."""
        self.space.general()
        return self.space.tab

    def probe(self, rng: Any, acc: Any, count: int) -> None:
        """`count` more of Knuth's probes, folded into `acc`."""
        self.space.general()
        work, table = self.space.arrays[False]
        givens = self.givens
        if givens is None:  # a band run's: in its state
            np = self.space.numpy
            givens = np.frombuffer(self.st, np.uint8, self.shape.cells, 8 * _GIVENS_AT)
        self.space.probes(work, table, givens, self.st, rng, acc, count)

    def take(self) -> list[Grid]:
        """The grids written since the last `take`, and room for more."""
        st = self.st
        saved = int(st[SAVED])
        if not saved:
            return []
        st[SAVED] = 0
        return self.grids(saved)

    def grids(self, saved: int) -> list[Grid]:
        """The first `saved` rows the kernel wrote, as grids (`take` without making room)."""
        if not saved:
            return []
        shape = self.shape
        size = shape.cells
        # The kernel wrote digits 1..N into every cell: the checks of Grid() are not needed.
        # Each grid is made from its row's bytes, which it keeps (`Grid._from_bytes`: the
        # cells and the kept bytes from the same bytes), so that the worker's batch checks
        # and stores those bytes without making them again from the cells (`pool/batch.py`).
        sols = self.sols  # (a band run's: bytes of the work array; else numpy's rows)
        if sols.__class__ is not memoryview:
            sols = memoryview(sols).cast("B")
        if saved == 1:  # the common case (limit 1, or a unique puzzle): one row as bytes
            return [Grid._from_bytes(shape, bytes(sols[:size]))]
        rows = range(0, saved * size, size)
        return [Grid._from_bytes(shape, bytes(sols[k : k + size])) for k in rows]

    def stats(self, st: list[int] | None = None) -> dict[str, int | float]:
        """The kernel's counters under the contract's names (from `st`, the state array as a
        list, when the caller has read it already)."""
        if st is None:
            st = self.st.tolist()
        return {
            "nodes": st[NODES],
            "guesses": st[GUESSES],
            "backtracks": st[BACKTRACKS],
            "max_depth": st[MAX_DEPTH],
            "hidden_singles": st[HIDDEN],
            "locked_eliminations": st[LOCKED],
        }


class Space:
    """What the runs of one shape share (`_space`): the kernel's constants module, numpy, the
    general kernel's tables, a zeroed state to copy, for each kernel (index `band`: False the
    general one, True the band one, or the general one again when the shape has no band
    kernel) its entry and its (work, table) arrays (the band kernel's table None: its work
    array holds it), the probes' entry, and the rows for `ROWS` solutions with numpy's view
    of the first r rows for each r (`views`, the general kernel's; and the first row as a
    memoryview, read as bytes without numpy). On 9x9 the rows are bytes of the band kernel's
    work array, where it writes them (`rows`, a memoryview; `band_views`, its first r rows
    for each r); the general kernel writes its rows there too. On 9x9 also the run
    `Native.solve` fills in place (`shared`; `run` once the kernel's entry is loaded, None
    while a solve has it) and its `prepared` tuples by limit. A 9x9 Space made once the band
    kernel's kept machine code is loaded (`loaded`: `band_object`) runs it, through functions
    of no arguments bound to its buffers, and makes its general kernel's part on first need
    (`general`), importing numba, and numpy, only then: its work array and states are
    `bytearray`s seen as int64 words through memoryviews (`words`), numpy's arrays of the
    same bytes on numba's path."""

    __slots__ = (
        "arrays",
        "band",
        "band_head",
        "band_state_join",
        "band_views",
        "counters",
        "entry",
        "first",
        "first_cells",
        "kernel",
        "loaded",
        "numpy",
        "prepared",
        "probes",
        "rows",
        "run",
        "searches",
        "shape",
        "shared",
        "shared_arguments",
        "state",
        "state_bytes",
        "state_view",
        "tab",
        "views",
        "words",
    )

    def __init__(self, shape: Shape) -> None:
        self.shape = shape
        self.kernel = self.tab = self.state = self.probes = self.numpy = None
        self.words: Any = _words
        self.views: list[Any] = []
        self.band_views: list[memoryview] = []
        self.band = None
        self.band_head = self.band_state_join = self.state_bytes = self.shared = None
        self.state_view = None
        self.run = None
        self.prepared: dict[int, tuple] = {}
        self.loaded = None
        self.arrays: tuple[Any, Any] = (None, None)
        self.searches: tuple[Any, Any] = (None, None)
        if shape.box_rows == shape.box_cols == 3:
            from sudokubench.solvers import native_band_layout as layout

            # The band kernel from its kept machine code when it is kept (`band_object`,
            # `native_object`): no numba here until another kernel is needed.
            self.loaded = band_object()
            if self.loaded is None:  # numba's band kernel: numpy's arrays of the same bytes
                import numpy as np

                self.numpy = np
                self.words = _numpy_words
            # The work array: int64 words, the lookup tables in it as int32 values, then
            # the rows for solutions as bytes.
            work = bytearray(8 * layout.work_size(ROWS))
            lookup = memoryview(work)[8 * layout.TABLE_AT : 8 * layout.ROWS_AT].cast("i")
            lookup[: layout.TABLE_SIZE] = array("i", layout.band_table_values())
            rows_at = 8 * layout.ROWS_AT
            self.rows = memoryview(work)[rows_at : rows_at + ROWS * shape.cells]
            self.band_views = [self.rows[: shape.cells * r] for r in range(ROWS + 1)]
            self.band = (self.words(work), None)
            # a band run's state as bytes: 12 zero words, keep, limit, budget, drain (packed
            # by `band_head`), the givens and `_PAD`, joined into one writable buffer
            assert layout.GIVENS_AT == _GIVENS_AT and layout.S_LIMIT == _S_LIMIT
            assert (layout.S_BUDGET, layout.S_DRAIN) == (_S_BUDGET, _S_DRAIN)
            self.band_head = struct.Struct(f"<{8 * layout.S_KEEP}x4q").pack
            self.band_state_join = bytearray().join
            self.arrays = (None, self.band)
            # The band run `Native.solve` fills in place (`Space.run`, once the kernel's
            # entry is known): its state's bytes, their words (`words`), all the rows.
            self.state_bytes = bytearray(8 * layout.BAND_STATE_SIZE)
            self.state_view = memoryview(self.state_bytes)  # written through, in place
            shared = self.shared = _new_object(Run)
            shared.shape, shared.space, shared.kernel = shape, self, None
            shared.band, shared.givens, shared.sols = True, None, self.band_views[ROWS]
            shared.st = self.words(self.state_bytes)
            if self.loaded is not None:
                self.searches = (None, self.loaded.call)
            else:
                from sudokubench.solvers import native_band

                self.searches = (None, native_band.search)
        else:
            import numpy as np

            self.numpy = np
            self.rows = np.zeros((ROWS, shape.cells), dtype=np.uint8)
            self.views = [self.rows[:r] for r in range(ROWS + 1)]
        if self.loaded is None:  # numba's kernels: the general one now, as every shape has
            self.general()
        # a state's counters NODES..SAVED as ints, read in C (`Native.solve`)
        self.counters = struct.Struct(f"<{SAVED - NODES + 1}q").unpack_from
        self.first = memoryview(self.rows[0] if self.band is None else self.rows[: shape.cells])
        # The first row as a tuple of ints, read straight from `first`'s buffer in C (about
        # 0.4 of the time of `tuple(bytes(first))`, which goes through an iterator; a
        # memoryview exports its buffer with less work than the numpy array it views).
        self.first_cells = struct.Struct(f"{shape.cells}B").unpack_from
        # The compiled entry of the kernel `prepare` calls (`_kernel_entry`), set on the
        # shape's first solve: `warm` makes Spaces, so this one cannot ask for it here.
        # With the kept machine code, the shared run's own function of no arguments
        # (`native_object`), and `shared_arguments` empty.
        self.entry = None
        self.shared_arguments: tuple[Any, ...] = ()
        if self.shared is not None and self.loaded is None:
            self.shared_arguments = (self.band[0], self.shared.st)

    def general(self) -> None:
        """The general kernel's part of the Space (numba's: its tables, work array, zeroed
        state, search and probes), made on first need when the band kernel came from its kept
        machine code (`native_object`), else with the Space."""
        if self.kernel is not None:
            return
        import numpy as np

        from sudokubench.solvers import native_kernel
        from sudokubench.solvers.native_estimate import probes
        from sudokubench.solvers.native_search import search

        tab = tables(self.shape)
        work = np.zeros(tab.work_size, dtype=np.int64)
        native_kernel.prime(tab.table, work)
        self.tab = tab
        self.numpy = np
        if not self.views:  # 9x9's rows, in the band kernel's work array: numpy's view
            rows = np.frombuffer(self.rows, np.uint8).reshape(ROWS, self.shape.cells)
            self.views = [rows[:r] for r in range(ROWS + 1)]
        self.state = np.zeros(native_kernel.STATE_SIZE, dtype=np.int64)
        self.probes = probes
        general = (work, tab.table)
        self.arrays = (general, self.band if self.band is not None else general)
        band_search = self.searches[1] if self.band is not None else search
        self.searches = (search, band_search)
        if self.shared is not None:
            self.shared.kernel = native_kernel
        self.kernel = native_kernel  # (last: the mark that the rest is made)

    def rows_of(self, rows: int) -> Any:
        """Rows of its own for more than `ROWS` solutions (`count_all` keeping many)."""
        import numpy as np

        return np.zeros((rows, self.shape.cells), dtype=np.uint8)


def _words(data: bytearray) -> memoryview:
    """`data`'s bytes as int64 words, without numpy (a Space's buffers for the band kernel's
    kept machine code, which reads their addresses alone)."""
    return memoryview(data).cast("q")


def _numpy_words(data: bytearray) -> Any:
    """`data`'s bytes as numpy's int64 array (numba's band kernel takes numpy's arrays)."""
    import numpy as np

    return np.frombuffer(data, np.int64)


#: Each thread's `Space`s by shape (`spaces`) and the shape of its last run with its Space
#: (`last`: most threads solve one shape, and a Shape's hash costs more than the identity
#: check). A thread's own: two threads solving at once would otherwise write each other's
#: candidates and solutions (a search may pause and resume, and its answer is read after the
#: kernel returns, both places where the interpreter switches threads).
_local = threading.local()


def _space_of(shape: Shape) -> Space:
    """This thread's Space of `shape` (made on its first use), remembered as the last one."""
    spaces = _local.__dict__.setdefault("spaces", {})
    space = spaces.get(shape)
    if space is None:
        space = spaces[shape] = Space(shape)
    _local.last = shape, space
    return space


def forget_spaces() -> None:
    """Drop this thread's arrays of every shape (after a change of `ROWS`), and the last one
    remembered."""
    _local.__dict__.clear()


@dataclass(frozen=True)
class Estimate:
    """Knuth's estimate of a grid's number of solutions from `probes` random probes."""

    mean: float
    standard_error: float
    probes: int
    seconds: float

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval (normal approximation), clipped at 0."""
        half = 1.959964 * self.standard_error
        return max(0.0, self.mean - half), self.mean + half

    @property
    def relative_error(self) -> float:
        """The standard error relative to the estimate (inf for an estimate of 0)."""
        return self.standard_error / self.mean if self.mean else math.inf


def _run(prepared: Any, timeout: float | None) -> Any:
    """`Native.run`: the kernel, called again every `BUDGET` nodes until it ends, reaches the
    limit or the deadline passes; the kernel's last code when one call ended the search (the
    common case: every grid is in the kernel's rows), else the code and the grids taken so far.

    Up to `ROWS` solutions stay in the kernel's rows for `answer`. Beyond that the grids are
    made here, as the search goes (as before the rule): the Python side makes grids several
    times slower than the kernel finds them, so the deadline must bound that too.
    """
    started = time.perf_counter()
    run, limit, arguments, search = prepared
    code = search(*arguments)  # `run.step`, straight into the machine code
    if code < PAUSED:  # FINISHED or LIMIT: the common case, one call
        return code
    deadline = Deadline(timeout, started)
    found = run.take()
    while code >= PAUSED:  # PAUSED, or FULL: the rows were full (taken above)
        if deadline.expired():
            break
        code = run.step(limit, BUDGET, True)
        found += run.take()
    return code, found


#: Where a band state's bytes end the counters from NODES to SAVED, and hold SAVED's low byte.
_COUNTERS_END, _SAVED_LOW = 8 * (SAVED + 1), 8 * SAVED


class Lane(NamedTuple):
    """This thread's shared 9x9 band run (`Space.shared`, as `Native.solve` fills it) as a pool
    worker's lane of `native` tasks runs it (`pool.worker`), each part made once: per task the
    lane writes `heads[limit]` and the givens into `state`, calls `_run(prepared[limit],
    timeout)` (the timed region, `bind`'s), and copies `counters` (the state's words NODES to
    SAVED, 56 bytes: a view, read after each call) and `rows[saved]` (the first `saved` rows
    the kernel wrote, 81 bytes each), `saved` being the byte `state_bytes[saved_at]` (a limit
    below `ROWS`: the kernel keeps at most `limit` rows, so its high bytes are 0). `space`
    lends its run (`Space.run` None) while the lane has it."""

    shape: Shape
    space: Space
    state: memoryview  # the state's bytes, written in place (head, givens)
    state_bytes: bytearray  # the same bytes, read by index
    heads: list[bytes]  # a limit's state head (zeroed counters, rows to keep, limit, budget)
    prepared: list[tuple[Any, ...]]  # a limit's `prepared` for `_run`, as `Native.solve`'s
    counters: memoryview
    saved_at: int
    rows: list[memoryview]
    head_end: int  # where the head ends and the givens start in `state`
    givens_end: int


def lane(shape: Shape) -> Lane | None:
    """The `Lane` of this thread's 9x9 Space (`shape`: `Shape(3, 3)`), or None when it has no
    shared run ready (no band kernel, or no `prepare` yet loaded its entry: a worker's
    `load_shape` does)."""
    last = _local.__dict__.get("last")
    space = (
        last[1]
        if last is not None and last[0] is shape
        else _local.__dict__.get("spaces", {}).get(shape)
    )
    if space is None or space.run is None or space.entry is None:
        return None
    run = space.run
    heads = [b""] + [space.band_head(k, k, BUDGET, 1) for k in range(1, ROWS)]
    prepared: list[tuple[Any, ...]] = [()]
    for k in range(1, ROWS):
        made = space.prepared.get(k)
        if made is None:  # (as `Native.solve` makes it; the same for every solve)
            made = space.prepared[k] = (run, k, space.shared_arguments, space.entry)
        prepared.append(made)
    flat = memoryview(space.rows).cast("B")
    size = shape.cells
    return Lane(
        shape,
        space,
        space.state_view,
        space.state_bytes,
        heads,
        prepared,
        space.state_view[_COUNTERS_AT:_COUNTERS_END],
        _SAVED_LOW,
        [flat[: size * k] for k in range(ROWS)],
        _HEAD_END,
        _GIVENS_END,
    )


def lane_answer(shape: Shape, counters: Any, rows: bytes, code: int) -> SolveResult:
    """What `Native.answer` makes of an answer a `Lane` copied: `counters` the state's words
    NODES to SAVED, `rows` the rows the kernel wrote (81 bytes each, each grid keeping its
    own: `Run.grids`), `code` the kernel's (FINISHED or LIMIT, one call)."""
    size = shape.cells
    found = tuple(Grid._from_bytes(shape, rows[k : k + size]) for k in range(0, len(rows), size))
    stats = {
        "nodes": counters[0],
        "guesses": counters[GUESSES - NODES],
        "backtracks": counters[BACKTRACKS - NODES],
        "max_depth": counters[MAX_DEPTH - NODES],
        "hidden_singles": counters[HIDDEN - NODES],
        "locked_eliminations": counters[LOCKED - NODES],
    }
    status = _SOLVED if found else _UNSATISFIABLE
    return _checked(
        Native.name, status, found, len(found), code == FINISHED, _proxy(stats), 0.0, 0.0
    )


class Native(BaseBackend):
    """Bitsets, singles, box-line reduction, fewest-candidates branching, compiled by numba."""

    name = "native"
    practical_n: ClassVar[int] = 25
    handles_hard: ClassVar[bool] = True
    requires: ClassVar[str | None] = "numba"
    install_hint: ClassVar[str] = "pip install 'sudokubench[native]'"
    preload: ClassVar[str | None] = "sudokubench.solvers.native_ready"

    def available(self) -> bool:
        """Whether numba imports here; then also readies the kernel (`ready`: the whole of it
        compiled when numba's cache lacks it, else the 9x9 band kernel loaded), unless
        `load_on_available` is off in this process (whose workers load it): then whether
        numba is installed, without importing it.

        The harness asks every backend this before it times anything, in its own process and
        in each worker, so no timed call pays for compiling machine code, nor a 9x9 solve for
        loading it (another shape's kernel loads in its first untimed `prepare`).
        """
        if not load_on_available:  # (`compare`'s own process: its workers load the kernel)
            return importlib.util.find_spec("numba") is not None
        if _band_object is not None or (
            not ready.cache_info().currsize
            and importlib.util.find_spec("numba") is not None
            and band_object() is not None
        ):  # the band kernel's kept machine code: ready without importing numba
            ready()
            return True
        try:
            import numba  # noqa: F401
        except ImportError:
            return False
        ready()
        return True

    def version(self) -> str | None:
        """numba's version."""
        return package_version("numba")

    def load_shape(self, shape: Shape) -> None:
        """Untimed: what the first `prepare` of a `shape` puzzle in this thread loads, loaded
        now (the shape's Space, its tables and arrays, the kernel's entry; for any shape but
        9x9 with the band kernel's kept machine code, numba's import and set-up and the
        general kernel from its cache: 0.6-0.8 s of CPU). A pool's worker calls it before its
        first task of each shape, and starts that task's clock (and timeout) after it
        (`pool.worker`): the load counts against the backend's load limit, not the task's."""
        self.prepare(Grid.empty(shape), 1)

    @applies_the_rule
    def solve(self, puzzle: Grid, *, limit: int = 1, timeout: float | None = None) -> SolveResult:
        """`BaseBackend.solve` (`timed_solve`) with `prepare`, `bind` and `answer_timed` written
        out for the common call: a 9x9 `Grid` of a thread that has solved one before (the
        kernel loaded), a limit below `ROWS`. Every other call is `BaseBackend.solve`'s.

        `prepare` here fills the thread's shared band run (`Space.run`) in place, with no new
        array: its state's head (zeroed counters, rows to keep, limit, budget, drain) and the
        givens, into the bytes numpy's view of which the kernel reads. The timed region is
        the one `bind` gives, `_run(prepared, timeout)`, the same as `timed_call`'s; the
        counters are read from the state's bytes in C, and one solution found by one kernel
        call (`limit` 1, or a unique puzzle) is made into its result here, as `answer_timed`
        and `SolveResult.checked` make it (a SOLVED result with one solution, count 1 and its
        stats a mapping proxy passes every check); any other answer is `answer_timed`'s.

        The shared run is taken off its `Space` for the solve, so that a solve started inside
        another in the same thread (a signal handler's) makes a run of its own."""
        last = _local.__dict__.get("last")
        run = None if last is None else last[1].run
        if (
            run is None
            or type(limit) is not int
            or not 0 < limit < ROWS
            or (timeout is not None and not timeout >= 0)
            or puzzle.__class__ is not Grid
            or puzzle.shape is not last[0]
        ):
            return BaseBackend.solve(self, puzzle, limit=limit, timeout=timeout)
        space = last[1]
        space.run = None  # lent to this solve
        perf_counter = _perf_counter
        encode_s = solve_s = 0.0
        try:
            start = perf_counter()
            digits = puzzle.__dict__.get("_digit_bytes")  # `Grid.digit_bytes`, inline
            state = space.state_view  # (a bytearray's slice would copy the bytes in first)
            state[:_HEAD_END] = space.band_head(limit, limit, BUDGET, 1)
            state[_HEAD_END:_GIVENS_END] = bytes(puzzle.cells) if digits is None else digits
            prepared = space.prepared.get(limit)
            if prepared is None:  # (as `prepare` makes it; the same for every solve)
                prepared = (run, limit, space.shared_arguments, space.entry)
                space.prepared[limit] = prepared
            encode_s = perf_counter() - start
            start = perf_counter()
            try:
                raw = _run(prepared, timeout)  # the timed region: `bind`'s
            finally:
                solve_s = perf_counter() - start
            nodes, guesses, backtracks, depth, hidden, locked, saved = space.counters(
                state, _COUNTERS_AT
            )
            if saved != 1 or raw.__class__ is not int:  # more rows, or more than one call
                return self.answer_timed(prepared, raw, encode_s, solve_s)
            grid = _new_object(Grid)  # `Grid._unchecked`, inline
            _set_attribute(
                grid, "__dict__", {"shape": last[0], "cells": space.first_cells(space.first)}
            )
            stats = {
                "nodes": nodes,
                "guesses": guesses,
                "backtracks": backtracks,
                "max_depth": depth,
                "hidden_singles": hidden,
                "locked_eliminations": locked,
            }
            result = _new_object(SolveResult)  # `SolveResult.checked`, inline: SOLVED
            _set_attribute(
                result,
                "__dict__",
                {
                    "backend": self.name,
                    "status": _SOLVED,
                    "solutions": (grid,),
                    "count": 1,
                    "exhaustive": raw == FINISHED,
                    "encode_s": encode_s,
                    "solve_s": solve_s,
                    "stats": _proxy(stats),
                    "message": "",
                },
            )
            return result
        except (ContractError, KeyboardInterrupt):
            raise
        except Exception as exc:  # a backend failure is a result, as in `timed_call`
            return _error(self, exc, encode_s, solve_s)
        finally:
            space.run = run

    def prepare(self, puzzle: Grid, limit: int) -> Any:
        """Untimed: the kernel compiled or loaded (`warm`), the givens in its arrays.

        Unlike the other backends this does not ask `Grid.is_valid`: the kernel finds
        conflicting givens itself as it places them (a few dozen nanoseconds, timed), while
        `is_valid` in Python costs more than the kernel's whole solve of a 17-clue puzzle.
        """
        rows = limit if limit < ROWS else ROWS
        run = Run(puzzle, rows, limit=limit)
        space = run.space
        search = space.entry
        if search is None:  # which compiles or loads the kernel first (`warm`)
            if space.loaded is not None:  # the kept machine code's, for the shared run
                search = space.loaded.bound(space.band[0], space.shared.st)
            else:
                search = _kernel_entry(run.band)
            space.entry = search
            if run.band:  # `Native.solve`'s common call may now fill the shared run
                space.run = space.shared
        work, table = space.arrays[run.band]
        if table is None and space.loaded is not None:  # a function of this run's arrays
            return run, limit, (), space.loaded.bound(work, run.st)
        if table is None:  # the band kernel: tables and rows in `work`, the rest in `st`
            arguments = (work, run.st)
        else:
            arguments = (work, table, run.givens, run.st, run.sols, limit, BUDGET, True)
        return run, limit, arguments, search

    def run(self, prepared: Any, timeout: float | None) -> Any:
        """Timed: the kernel, called again every `BUDGET` nodes until it ends, reaches the
        limit or the deadline passes (`_run`)."""
        return _run(prepared, timeout)

    def bind(self, prepared: Any, timeout: float | None) -> tuple[Any, tuple]:
        """Untimed: the timed region, `run` as the plain function `_run` (no bound method
        made a solve, nor a method call in the region)."""
        return _run, (prepared, timeout)

    def answer(self, prepared: Any, raw: Any) -> SolveResult:
        """Untimed: the rows the kernel wrote as grids, its counters as stats."""
        return self.answer_timed(prepared, raw, 0.0, 0.0)

    def answer_timed(self, prepared: Any, raw: Any, encode_s: float, solve_s: float) -> SolveResult:
        """`answer` with the rule's times in the result (`timed_solve`: what `stamp` would
        make of `answer`'s result, without its copy)."""
        run = prepared[0]
        if raw.__class__ is int:  # one kernel call ended the search: no grid taken yet
            code, found = raw, ()
        else:
            code, found = raw
        st = run.st.tolist()  # one read of the state: the rows saved and the counters
        saved = st[SAVED]
        # Each grid keeps its row's bytes (`Run.grids`, `Grid._from_bytes`).
        if found:
            found = (*found, *run.grids(saved))
        elif saved == 1:  # the common case (limit 1, or a unique puzzle): the first row
            space = run.space
            digits = bytes(space.first)
            grid = _new_object(Grid)  # `Grid._from_bytes`, inline: a call fewer
            _set_attribute(
                grid,
                "__dict__",
                {"shape": run.shape, "cells": space.first_cells(digits), "_digit_bytes": digits},
            )
            found = (grid,)
        else:  # every grid is still in the kernel's rows
            found = tuple(run.grids(saved))
        status = _TIMEOUT if code >= PAUSED else _SOLVED if found else _UNSATISFIABLE
        stats = {  # `run.stats(st)`, inline: a method call fewer
            "nodes": st[NODES],
            "guesses": st[GUESSES],
            "backtracks": st[BACKTRACKS],
            "max_depth": st[MAX_DEPTH],
            "hidden_singles": st[HIDDEN],
            "locked_eliminations": st[LOCKED],
        }
        return _checked(
            self.name, status, found, len(found), code == FINISHED, _proxy(stats), encode_s, solve_s
        )

    def count_all(
        self,
        puzzle: Grid,
        *,
        timeout: float | None = None,
        limit: int | None = None,
        keep: int = KEEP,
    ) -> Count:
        """Count the solutions of `puzzle` up to `limit` (None: all) until `timeout`, keeping
        only the first `keep` as grids: the kernel counts a node's last open cells without
        making a grid per solution (`native_search`)."""
        warm()
        start = time.perf_counter()
        deadline = Deadline(timeout, start)
        run = Run(puzzle, keep, band=False)  # the general kernel counts leaves by enumeration
        while True:  # conflicting givens end the search at once, with no solution
            code = run.step(sys.maxsize if limit is None else limit, BUDGET * 16, False)
            if code != PAUSED or deadline.expired():
                break
        solve_s = time.perf_counter() - start
        count = int(run.st[run.kernel.COUNT])
        if code == PAUSED:
            status = Status.TIMEOUT
        else:
            status = Status.SOLVED if count else Status.UNSATISFIABLE
        first = tuple(run.take())
        return Count(self.name, count, code == FINISHED, first, solve_s, run.stats(), status=status)

    def estimate(
        self,
        puzzle: Grid,
        *,
        seconds: float | None = 10.0,
        probes: int | None = None,
        seed: int = 1,
    ) -> Estimate:
        """Knuth's estimate of the number of solutions from random probes (seeded by `seed`),
        until `seconds` have passed or `probes` are done, whichever comes first."""
        import numpy as np

        warm()
        start = time.perf_counter()
        deadline = Deadline(seconds, start)
        run = Run(puzzle, 1)  # conflicting givens: every probe dies at the root, estimate 0
        rng = np.array([(seed * 0x9E3779B97F4A7C15 + 1) & 0x7FFFFFFFFFFFFFFF], dtype=np.int64)
        acc = np.zeros(3, dtype=np.float64)
        while probes is None or acc[0] < probes:
            batch = PROBES_PER_CALL if probes is None else min(PROBES_PER_CALL, probes - acc[0])
            run.probe(rng, acc, int(batch))
            if deadline.expired():
                break
        done = int(acc[0])
        variance = acc[2] / (done - 1) if done > 1 else 0.0
        return Estimate(
            float(acc[1]), math.sqrt(variance / done), done, time.perf_counter() - start
        )


@cache
def _kernel_entry(band: bool = False) -> Any:
    """`native_search.search`'s (`band`: `native_band.search`'s) compiled machine code for the
    argument types `Run` passes (after `warm`), called without numba's dispatch: the
    dispatcher works out the types of the arguments (eight, two on the band kernel) and
    picks the compiled version on every call, about a fifth of the timed call on an
    already-solved grid (0.3-0.45 us of 1.7-2.4, side by side, load 13). The dispatcher
    itself where numba does not expose the entry."""
    import numba

    load(band)
    run = Run(Grid.empty(Shape(3, 3) if band else Shape(2, 2)), 1)
    arguments = run.kernel_arguments(1, BUDGET, True)
    search = run.space.searches[run.band]
    try:
        return search.overloads[tuple(map(numba.typeof, arguments))].entry_point
    except (AttributeError, KeyError):
        return search


@cache
def warm() -> float:
    """Compile (first time on this machine) or load (from numba's cache) the whole kernel;
    seconds.

    A 4x4 search, count and probe and a 9x9 search go through every kernel function once, so
    later calls in this process run machine code straight away; the tables of the 16x16 shape
    are built too (a few milliseconds that would otherwise land on its first solve). The band
    kernel's machine code is kept for loading without numba (`keep_band_object`: compiled
    when missing), and the 9x9 search then runs on it here too (`band_object`), as in every
    process that loads it.
    """
    import numpy as np

    start = time.perf_counter()
    load(False)
    _numba_band_search()
    keep_band_object()  # (so that the 9x9 kernel loads as every process that solves loads it)
    band_object()
    load(True)
    run = Run(Grid.empty(Shape(2, 2)), 1)
    run.step(sys.maxsize, BUDGET, False)
    run.probe(np.array([1], dtype=np.int64), np.zeros(3, dtype=np.float64), 1)
    _space_of(Shape(4, 4))
    return time.perf_counter() - start


def _numba_band_search() -> None:
    """numba's own band kernel (`native_band.search`) compiled for the arrays a Run passes, and
    cached: a process whose kept object does not load (`band_object` None) takes that path,
    and must find it in numba's cache rather than compile it (30 s of CPU, past a worker's
    load limit on a busy machine). The kept object's compile (`compile_entry`) calls `search`
    from a C callback, which does not make this version."""
    from numba import types

    from sudokubench.solvers import native_band

    array = types.Array(types.int64, 1, "C")
    native_band.search.compile((array, array))


def keep_band_object() -> bool:
    """Make sure the band kernel's machine code is kept for loading without numba
    (`native_object`): compiled (`native_band.compile_entry`, 1-2 s of CPU) and saved when
    no valid one loads, and linked into the kept library when that is missing or stale
    (`native_object.link_kept`); whether the object is kept now. Never raises: without it
    numba's path serves."""
    from sudokubench.solvers import native_object

    try:
        if native_object.load() is not None:
            native_object.link_kept()
            return True
        from sudokubench.solvers import native_band

        saved = native_object.save(*native_band.compile_entry())
    except Exception:
        return False
    native_object.load.cache_clear()
    return saved is not None


@cache
def load(band: bool) -> float:
    """Compile or load the kernel function a solve runs on, and no other; seconds.

    `band`: the 9x9 band kernel (`native_band.search`, with the general kernel's table
    primer the 9x9 arrays need), else the general search (`native_search.search`). Loading
    one costs 20-30 ms of CPU once numba is set up; numba's own set-up on a process's first
    load (its typing and target registries, about 0.3 s) is paid once, by whichever comes
    first. What `warm` loads besides (the count, the estimator's probe, the 16x16 tables)
    loads on its first use.
    """
    start = time.perf_counter()
    Run(Grid.empty(Shape(3, 3) if band else Shape(2, 2)), 1).step(1, BUDGET, True)
    return time.perf_counter() - start


@cache
def ready() -> float:
    """What a process that solves needs before its first timed call (`available`); seconds.

    When the band kernel's machine code is kept (`band_object`), it loaded without numba and
    run once (`load`). Else, when numba's cache holds the kernel (`numba_cached`), the 9x9
    band kernel loaded from it (`load`: the usual solve's). Either way a 9x9 `count_all` or
    `estimate`, or another shape, loads the general kernel on its first use, outside any timed
    call: in the worker pool before that task's clock starts (`Native.load_shape`), so numba's
    set-up (0.6-0.8 s of CPU, seconds on a busy machine) never counts against a task's
    timeout. Else the whole kernel compiled, as `warm` does: a first compile makes every
    function once, so no later call compiles.
    """
    start = time.perf_counter()
    if band_object() is not None:
        load(True)
        return time.perf_counter() - start
    if numba_cached():
        return load(True)
    return warm()


def band_object() -> Any:
    """The band kernel's kept machine code loaded into this process (`native_object.load`,
    once), which 9x9 Spaces run without numba (any solve's, `ready`'s); None when there is
    none that loads (missing, stale, corrupt: numba's `native_band.search` then serves)."""
    global _band_object
    if _band_object is None:
        from sudokubench.solvers import native_object

        _band_object = native_object.load()
    return _band_object


def kernel_cached_beside() -> bool:
    """Whether numba's cache beside the kernel's sources (`__pycache__`, where numba keeps it
    unless `NUMBA_CACHE_DIR` names another place or that folder is not writable) holds the
    index of each of its entry points, as `kernel_cached` finds it; looked at without
    importing numba (0.3-0.5 s of CPU), which `compare`'s own process then never needs.
    False when it cannot tell (`kernel_cached` then asks numba)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    here = os.path.dirname(os.path.abspath(__file__))
    cache = os.path.join(here, "__pycache__")
    if not os.access(cache, os.W_OK):
        return False
    # numba's index: MODULE.QUALNAME-LINE.pyXY[ABIFLAGS].nbi, LINE the function's first line
    # (`co_firstlineno`: its first decorator's)
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}{sys.abiflags}"
    for module in ("native_search", "native_band"):
        try:
            with open(os.path.join(here, f"{module}.py"), encoding="utf-8") as source:
                lines = source.read().split("\n")
        except OSError:
            return False
        at = next((k for k, line in enumerate(lines) if line.startswith("def search(")), None)
        if at is None:
            return False
        while at and lines[at - 1].startswith("@"):
            at -= 1
        if not os.path.exists(os.path.join(cache, f"{module}.search-{at + 1}.{tag}.nbi")):
            return False
    return True


def kernel_cached() -> bool | None:
    """Whether numba's on-disk cache holds the kernel (`numba_cached`) and the band kernel's
    machine code is kept beside it for loading without numba (`native_object.present`), so
    that `warm()` compiles nothing (False when the latter is missing; None when numba's cache
    cannot be looked at). Seen without importing numba when numba's cache is beside the
    sources (`kernel_cached_beside`)."""
    from sudokubench.solvers import native_object

    cached = numba_cached()
    if cached and not native_object.present():
        return False
    return cached


def numba_cached() -> bool | None:
    """Whether numba's on-disk cache holds the kernel, so that `warm()` loads it rather than
    compiling it (None when numba's cache cannot be looked at: numba missing, or its layout
    changed). A cache made from older sources counts as there: numba recompiles it quietly.
    One beside the sources is seen without importing numba (`kernel_cached_beside`).
    """
    if kernel_cached_beside():
        return True
    try:
        from sudokubench.solvers import native_band, native_search

        return all(
            os.path.exists(f._cache._cache_file._index_path)
            for f in (native_search.search, native_band.search)
        )
    except (ImportError, AttributeError):  # (numba's cache files are not public API)
        return None
