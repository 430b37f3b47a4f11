"""Planning a run: its arguments (`CompareArgs`), reading the input puzzles with their
collections and expected answers (`load_puzzles`), the backends (`resolve_backends`), the task
list in its fixed order (`plan`) and where the run happens (`machine_info`).

An input is any PUZZLE|FILE|- argument `catalog.resolve_input` reads: a file, a shipped
collection by name with an optional subset (`top95:1-20`), `-` (stdin) or a puzzle written
out. Puzzle ids select their puzzle again (`catalog`): `top95:7`, `path/file.txt:7`,
`stdin:7` (K counting puzzles, not lines), `argument` (`argument:N`, N the argument's
position, when several puzzles are written out). A `# collection: NAME` comment
line in an input file puts the puzzles below it in that collection, otherwise the file's stem
(`stdin`, `argument`) is the collection. Tasks are numbered in a fixed order
(puzzle, then backend, then warm-ups and samples), so a task id is stable across `--resume`.
"""

from __future__ import annotations

import functools
import itertools
import os
import platform
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from sudokubench._version import __version__
from sudokubench.backend import MAX_TIMEOUT
from sudokubench.catalog import ARGUMENT_ID, Source, resolve_input
from sudokubench.errors import ArgumentError, InputError, StoreError, UnknownBackendError
from sudokubench.grid import Shape
from sudokubench.harness.plugins import probe
from sudokubench.harness.pool.guard import plain_text
from sudokubench.harness.pool.memory import SMALLEST, default_memory_limit
from sudokubench.harness.pool.probe import HOST
from sudokubench.harness.pool.task import Task
from sudokubench.harness.records import PuzzleRow
from sudokubench.processes import MAX_WORKERS
from sudokubench.solvers import DEFAULT_BACKEND, backend_names, canonical_name

__all__ = [
    "SHOWCASE",
    "SHOWCASE_TIMEOUT",
    "CompareArgs",
    "available_backends",
    "backend_shapes",
    "input_sources",
    "load_puzzle_lists",
    "load_puzzles",
    "machine_info",
    "plan",
    "puzzle_tasks",
    "resolve_args",
    "resolve_backends",
    "skipped_backends",
    "stored_shapes",
    "takes_all",
    "task_combos",
    "tasks_per_puzzle",
]

#: `tuple.__new__`: a named tuple made from its fields' tuple, all of them given.
_new_tuple = tuple.__new__

#: The built-in collection `compare` runs when no file is given.
SHOWCASE = "showcase"
#: The showcase's short defaults: enough to show every verdict in about a minute.
SHOWCASE_TIMEOUT = 2.0
#: Most samples (and warm-ups) per puzzle and backend: more is a typo, not a measurement.
MAX_REPEAT = 1000
#: Most worker processes (`processes.MAX_WORKERS`).
MAX_JOBS = MAX_WORKERS
#: Most solutions a task looks for: each is kept, stored and checked, so a limit past this is
#: memory a run cannot have (SQLite itself stops at 2**63).
MAX_LIMIT = 1_000_000


@dataclass(frozen=True)
class CompareArgs:
    """Everything that defines a run; stored as JSON so `--resume` can plan it again.

    `files` are PUZZLE|FILE|- arguments (see the module docstring); empty means the built-in
    showcase. `timeout` None means 10 s, or the showcase's
    short `SHOWCASE_TIMEOUT`. `baseline` None means `fast` (the default backend) when it
    runs, else the first backend.
    """

    files: tuple[str, ...] = ()
    backends: tuple[str, ...] = ("all",)
    limit: int = 2
    timeout: float | None = None
    jobs: int = 1
    repeat: int = 1
    warmup: int = 0
    box: str | None = None
    baseline: str | None = None
    warm_up: bool = True  # each worker's first call of each backend is untimed
    #: Bytes a worker may reside in (`pool/memory.py`); None: three quarters of the
    #: machine's memory shared among the jobs, resolved here so the run stores the number.
    memory_limit: int | None = None

    def __post_init__(self) -> None:
        if self.timeout is None:
            object.__setattr__(self, "timeout", 10.0 if self.files else SHOWCASE_TIMEOUT)
        if self.memory_limit is None:
            object.__setattr__(self, "memory_limit", default_memory_limit(self.jobs))
        if not 1 <= self.limit <= MAX_LIMIT:
            raise ArgumentError(f"limit must be 1 to {MAX_LIMIT:,}, got {self.limit}")
        if not 0 < self.timeout <= MAX_TIMEOUT:  # type: ignore[operator]  # (NaN fails too)
            raise ArgumentError(
                f"timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, "
                f"got {self.timeout}"
            )
        if not 1 <= self.jobs <= MAX_JOBS:
            raise ArgumentError(f"jobs must be 1 to {MAX_JOBS}, got {self.jobs}")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise ArgumentError(f"repeat must be 1 to {MAX_REPEAT}, got {self.repeat}")
        limit = self.memory_limit
        if limit is not None and (type(limit) is not int or limit < SMALLEST):
            raise ArgumentError(f"memory limit must be at least {SMALLEST} bytes, got {limit}")
        if not 0 <= self.warmup <= MAX_REPEAT:
            raise ArgumentError(f"warmup must be 0 to {MAX_REPEAT}, got {self.warmup}")

    def to_json(self) -> dict[str, Any]:
        """Plain data for the runs table."""
        data = asdict(self)
        data["files"] = list(self.files)
        data["backends"] = list(self.backends)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CompareArgs:
        """Read stored arguments back; StoreError when they are not what `to_json` writes."""
        try:
            data = dict(data)
            data["files"] = tuple(data.get("files", ()))
            data["backends"] = tuple(data.get("backends", ()))
            kinds = {"limit": int, "jobs": int, "repeat": int, "warmup": int}
            for name, kind in kinds.items():
                if name in data and type(data[name]) is not kind:
                    raise TypeError(f"{name} is not an integer")
                if name in data and not 0 <= data[name] < 2**63:  # (SQLite's integers)
                    raise ValueError(f"{name} {data[name]} is out of range")
            if not all(isinstance(x, str) for x in (*data["files"], *data["backends"])):
                raise TypeError("a file or backend is not text")
            return cls(**data)
        except (TypeError, ValueError, InputError) as exc:
            raise StoreError(f"the stored arguments of a run are damaged: {exc}") from None


def available_backends() -> list[str]:
    """Every registered backend (and variant) whose library is installed here."""
    return [name for name in backend_names() if probe(name).available]


def resolve_backends(names: Iterable[str]) -> tuple[str, ...]:
    """Expand `all`, check that every name resolves and is available (UnknownBackendError if
    not); names in canonical form (`cpsat` -> `cpsat:integer`), each once. A plug-in is
    loaded and asked in a child process (`probe`), never here."""
    resolved: list[str] = []
    for name in names:
        name = name.strip()
        if not name:
            continue
        if name == "all":
            resolved.extend(available_backends())
            continue
        found = probe(name)
        if not found.available:
            why = found.reason or "not available here"
            raise UnknownBackendError(f"backend {name!r} is not available: {why}")
        resolved.append(canonical_name(name))
    unique = tuple(dict.fromkeys(resolved))
    if not unique:
        raise UnknownBackendError("no backend to run (the list of backends is empty)")
    return unique


def input_sources(args: CompareArgs) -> list[Source]:
    """The inputs: each argument resolved (GridFormatError when one names nothing), or the
    built-in showcase."""
    if not args.files:
        return [resolve_input(SHOWCASE)]
    return [resolve_input(arg) for arg in args.files]


def _puzzle_id(source: Source, record_id: str, position: int, written_out: int) -> str:
    """`argument` for the one puzzle written out, `argument:N` when there are several."""
    if source.kind == "puzzle" and written_out > 1:
        return f"{ARGUMENT_ID}:{position}"
    return record_id


def load_puzzles(args: CompareArgs) -> Iterator[PuzzleRow]:
    """Read every input puzzle with its collection and expected answer, one at a time (the
    first is read at once: an error in the arguments, or no puzzle at all, raises here)."""
    return itertools.chain.from_iterable(load_puzzle_lists(args))


def load_puzzle_lists(args: CompareArgs) -> Iterator[list[PuzzleRow]]:
    """`load_puzzles` in lists, as the input is read (a large chunk of a file's plain lines
    at a time, `formats.read_texts`): what `compare` stores and plans. The first list is
    read at once."""
    shape = Shape.parse(args.box) if args.box else None
    sources = input_sources(args)
    if sum(s.kind == "stdin" for s in sources) > 1:
        raise ArgumentError("stdin (-) can be read only once")
    lists = _read_puzzles(sources, shape, args.box)
    first = next(lists, None)
    if first is None:
        raise ArgumentError("the input holds no puzzles")
    return itertools.chain((first,), lists)


#: A `PuzzleRow` from its fields' tuple (`tuple.__new__`, called in C: no Python `__new__`).
_new_row = functools.partial(_new_tuple, PuzzleRow)


def _read_puzzles(
    sources: Sequence[Source], shape: Shape | None, box: str | None
) -> Iterator[list[PuzzleRow]]:
    # The ids of one source are distinct (a line or record number each): only sources that
    # share a label (the same file twice, two subsets of a collection) can give one id twice,
    # so only their ids are remembered.
    labels = Counter(s.label for s in sources)
    seen: set[str] = set()
    written_out = sum(s.kind == "puzzle" for s in sources)
    position = 0
    for number, source in enumerate(sources, 1):
        name = source.label.replace("\\", "/").rpartition("/")[2]
        stem = name.removesuffix(".gz").removesuffix(".txt").removesuffix(".csv")
        shared = labels[source.label] > 1
        written = source.kind == "puzzle"  # (only a puzzle written out takes another id)
        for found in source.texts(shape, stem):
            if not found:
                continue
            ids, collections, texts, counts, solutions = zip(*found, strict=True)
            if written:
                ids = tuple(_puzzle_id(source, i, number, written_out) for i in ids)
            if shared:
                for puzzle_id in ids:
                    if puzzle_id in seen:
                        raise ArgumentError(
                            f"two inputs give the puzzle id {puzzle_id}: rename one file, "
                            "or make the subsets of a collection disjoint"
                        )
                    seen.add(puzzle_id)
            positions = range(position, position + len(found))
            position += len(found)
            # (each a PuzzleRow made in C: the columns zipped, `tuple.__new__` mapped)
            yield list(
                map(
                    _new_row,
                    zip(
                        ids, positions, collections, texts, itertools.repeat(box), counts, solutions
                    ),
                )
            )


def tasks_per_puzzle(args: CompareArgs) -> int:
    """How many task ids each puzzle has: one per backend, warm-up and sample. Task ids are
    numbered puzzle by puzzle, so puzzle i's tasks are ids i x this to (i + 1) x this - 1
    (those of a backend that skips the puzzle's shape are not used)."""
    return len(args.backends) * (args.warmup + args.repeat)


def backend_shapes(backends: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The backends limited to some shapes (they declare `shapes`, as `lib:` does: 9x9 only),
    each with its shapes (`"RxC"`), as their probe says; stored with the run (`machine_info`)."""
    return {b: shapes for b in backends if (shapes := probe(b).shapes) is not None}


def skipped_backends(p: PuzzleRow, shapes: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """The backends of `shapes` (`backend_shapes`) that do not take the puzzle's shape: its
    tasks for them are not planned, never sent."""
    if not shapes:
        return ()
    return _skipped(tuple((b, tuple(s)) for b, s in shapes.items()), p.box or len(p.puzzle))


def takes_all(puzzles: Iterable[PuzzleRow], shapes: Mapping[str, Sequence[str]]) -> bool:
    """Whether every backend takes the shape of every one of `puzzles` (`skipped_backends`
    empty for each), decided once a distinct box or size (a list of 9x9 lines: once)."""
    if not shapes:
        return True
    limited = tuple((b, tuple(s)) for b, s in shapes.items())
    return not any(_skipped(limited, key) for key in {p.box or len(p.puzzle) for p in puzzles})


@functools.lru_cache(maxsize=64)
def _skipped(
    limited: tuple[tuple[str, tuple[str, ...]], ...], box_or_cells: str | int
) -> tuple[str, ...]:
    try:
        shape = (
            Shape.parse(box_or_cells) if isinstance(box_or_cells, str)
            else Shape.for_cells(box_or_cells)
        )  # fmt: skip
    except ValueError:  # a puzzle no backend can read: every task says so itself
        return ()
    return tuple(b for b, shapes in limited if str(shape) not in shapes)


def stored_shapes(machine: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """`backend_shapes` as a run stored it in its machine info, read back without trusting
    it: what is not a name with a list of shape names is left out."""
    shapes = machine.get("shapes")
    if not isinstance(shapes, dict):
        return {}
    return {
        b: tuple(s)
        for b, s in shapes.items()
        if isinstance(b, str) and isinstance(s, list) and all(isinstance(x, str) for x in s)
    }


def puzzle_tasks(
    args: CompareArgs,
    index: int,
    p: PuzzleRow,
    shapes: Mapping[str, Sequence[str]] | None = None,
) -> list[Task]:
    """The tasks of the `index`-th puzzle of the run (from 0), numbered as `plan` does;
    none for a backend that does not take its shape (`skipped_backends` of `shapes`)."""
    combos = _combos(tuple(args.backends), args.warmup, args.repeat)
    first = index * len(combos)
    skipped = skipped_backends(p, shapes) if shapes else ()
    if skipped:
        combos = tuple(c for c in combos if c[1] not in skipped)
    puzzle_id, puzzle, box, limit, timeout = p.puzzle_id, p.puzzle, p.box, args.limit, args.timeout
    return [
        Task(first + k, puzzle_id, puzzle, box, backend, limit, timeout, sample)
        for k, backend, sample in combos
    ]


def task_combos(args: CompareArgs) -> tuple[tuple[int, str, int], ...]:
    """(k, backend, sample) of each task of every puzzle of the run, k its place among them
    (`puzzle_tasks` numbers puzzle i's task k as i x `tasks_per_puzzle` + k)."""
    return _combos(tuple(args.backends), args.warmup, args.repeat)


@functools.lru_cache(maxsize=16)
def _combos(
    backends: tuple[str, ...], warmup: int, repeat: int
) -> tuple[tuple[int, str, int], ...]:
    """(k, backend, sample) of each task of a puzzle, k its place among them (the same for
    every puzzle of a run: made once)."""
    samples = range(-warmup, repeat)
    return tuple((k, *combo) for k, combo in enumerate(itertools.product(backends, samples)))


def plan(args: CompareArgs, puzzles: Iterable[PuzzleRow]) -> Iterator[Task]:
    """Every task of the run, numbered in a fixed order: puzzle, backend, warm-ups, samples
    (made as they are taken: a run of a million tasks holds none of them in a list)."""
    shapes = backend_shapes(args.backends)
    for index, p in enumerate(puzzles):
        yield from puzzle_tasks(args, index, p, shapes)


def machine_info(backends: Iterable[str]) -> dict[str, Any]:
    """Where the run happens (the parent): host, platform, CPUs, Python, the version of every
    backend's package, the shapes of those limited to some (`backend_shapes`). `compare` adds
    `workers`, the executor's `prepare` (where tasks run)."""
    versions: dict[str, str | None] = {}
    for name in backends:
        try:
            versions[name] = probe(name).version
        except UnknownBackendError as exc:  # (a plug-in broken since it was checked)
            versions[name] = f"unknown ({plain_text(exc, 100)})"
    return {
        "host": HOST,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "sudokubench": __version__,
        "backends": versions,
        "shapes": backend_shapes(backends),
    }


def resolve_args(args: CompareArgs) -> CompareArgs:
    """The arguments with every backend resolved, the baseline chosen, the files absolute
    (GridFormatError for an argument that names nothing)."""
    backends = resolve_backends(args.backends)
    baseline = None if args.baseline is None else canonical_name(args.baseline)
    if baseline is not None and baseline not in backends:
        raise UnknownBackendError(f"the baseline {baseline!r} is not one of the backends")
    if baseline is None:
        baseline = DEFAULT_BACKEND if DEFAULT_BACKEND in backends else backends[0]
    files = tuple(_absolute(f) for f in args.files)  # so a stored run names what it read
    return replace(args, files=files, backends=backends, baseline=baseline)


def _absolute(arg: str) -> str:
    """A file argument made absolute (its subset kept); any other argument as given."""
    source = resolve_input(arg)
    if source.kind != "file" or source.path is None or not source.path.is_file():
        return arg  # (a FIFO, `/dev/fd/63`: resolved, it would name a pipe, not a path)
    subset = f":{source.subset}" if source.subset is not None else ""
    return f"{source.path.resolve()}{subset}"
