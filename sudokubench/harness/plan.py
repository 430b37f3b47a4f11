"""Planning a run: its arguments (`CompareArgs`), reading the input puzzles with their
collections and expected answers (`load_puzzles`), the backends (`resolve_backends`), the task
list in its fixed order (`plan`) and where the run happens (`machine_info`).

A `# collection: NAME` comment line in an input file puts the puzzles below it in that
collection, otherwise the file's stem is the collection. Tasks are numbered in a fixed order
(puzzle, then backend, then warm-ups and samples), so a task id is stable across `--resume`.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from sudokubench._version import __version__
from sudokubench.errors import ArgumentError, InputError, StoreError, UnknownBackendError
from sudokubench.formats import collection_path, read_puzzles
from sudokubench.grid import Shape
from sudokubench.harness.pool.guard import plain_text
from sudokubench.harness.pool.task import Task
from sudokubench.harness.probe import probe
from sudokubench.harness.records import PuzzleRow
from sudokubench.solvers import DEFAULT_BACKEND, backend_names, canonical_name

__all__ = [
    "SHOWCASE",
    "SHOWCASE_TIMEOUT",
    "CompareArgs",
    "available_backends",
    "input_paths",
    "load_puzzles",
    "machine_info",
    "plan",
    "resolve_args",
    "resolve_backends",
]

#: The built-in collection `compare` runs when no file is given.
SHOWCASE = "showcase"
#: The showcase's short defaults: enough to show every verdict in about a minute.
SHOWCASE_TIMEOUT = 2.0
#: Most samples (and warm-ups) per puzzle and backend: more is a typo, not a measurement.
MAX_REPEAT = 1000


@dataclass(frozen=True)
class CompareArgs:
    """Everything that defines a run; stored as JSON so `--resume` can plan it again.

    `files` empty means the built-in showcase. `timeout` None means 10 s, or the showcase's
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

    def __post_init__(self) -> None:
        if self.timeout is None:
            object.__setattr__(self, "timeout", 10.0 if self.files else SHOWCASE_TIMEOUT)
        if self.limit < 1:
            raise ArgumentError(f"limit must be at least 1, got {self.limit}")
        if self.timeout <= 0:  # type: ignore[operator]
            raise ArgumentError(f"timeout must be positive, got {self.timeout}")
        if self.jobs < 1:
            raise ArgumentError(f"jobs must be at least 1, got {self.jobs}")
        if not 1 <= self.repeat <= MAX_REPEAT:
            raise ArgumentError(f"repeat must be 1 to {MAX_REPEAT}, got {self.repeat}")
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


def input_paths(args: CompareArgs) -> list[Path]:
    """The input files: the given ones, or the built-in showcase."""
    if not args.files:
        return [collection_path(SHOWCASE)]
    paths = [Path(f) for f in args.files]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    return paths


def load_puzzles(args: CompareArgs) -> list[PuzzleRow]:
    """Read every input puzzle with its collection and expected answer."""
    shape = Shape.parse(args.box) if args.box else None
    rows: list[PuzzleRow] = []
    seen: set[str] = set()
    for path in input_paths(args):
        stem = path.name.removesuffix(".gz").removesuffix(".txt").removesuffix(".csv")
        for record in read_puzzles(path, shape):
            if record.id in seen:
                raise ArgumentError(f"two inputs give the puzzle id {record.id}: rename one file")
            seen.add(record.id)
            collection = record.collection or stem
            solution = record.expected_solution
            rows.append(
                PuzzleRow(
                    record.id,
                    len(rows),
                    collection,
                    str(record.puzzle),
                    args.box,
                    record.expected_count,
                    None if solution is None else str(solution),
                )
            )
    if not rows:
        raise ArgumentError("the input holds no puzzles")
    return rows


def plan(args: CompareArgs, puzzles: Sequence[PuzzleRow]) -> list[Task]:
    """Every task of the run, numbered in a fixed order: puzzle, backend, warm-ups, samples."""
    samples = [*range(-args.warmup, 0), *range(args.repeat)]
    tasks = []
    for p in puzzles:
        for backend in args.backends:
            for sample in samples:
                tasks.append(
                    Task(
                        task_id=len(tasks),
                        puzzle_id=p.puzzle_id,
                        puzzle=p.puzzle,
                        box=p.box,
                        backend=backend,
                        limit=args.limit,
                        timeout=args.timeout,
                        sample=sample,
                    )
                )
    return tasks


def machine_info(backends: Iterable[str]) -> dict[str, Any]:
    """Where the run happens: platform, CPUs, Python, the version of every backend's package."""
    versions: dict[str, str | None] = {}
    for name in backends:
        try:
            versions[name] = probe(name).version
        except UnknownBackendError as exc:  # (a plug-in broken since it was checked)
            versions[name] = f"unknown ({plain_text(exc, 100)})"
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "sudokubench": __version__,
        "backends": versions,
    }


def resolve_args(args: CompareArgs) -> CompareArgs:
    """The arguments with every backend resolved, the baseline chosen, the files absolute."""
    backends = resolve_backends(args.backends)
    baseline = None if args.baseline is None else canonical_name(args.baseline)
    if baseline is not None and baseline not in backends:
        raise UnknownBackendError(f"the baseline {baseline!r} is not one of the backends")
    if baseline is None:
        baseline = DEFAULT_BACKEND if DEFAULT_BACKEND in backends else backends[0]
    files = tuple(str(Path(f).resolve()) for f in args.files)  # so --resume works from anywhere
    return replace(args, files=files, backends=backends, baseline=baseline)
