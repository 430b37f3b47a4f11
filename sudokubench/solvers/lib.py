"""`lib:PATH[:SYMBOL]`: a solver in a shared library with tdoku's C ABI, called in-process.

The function, `SYMBOL` in the library at `PATH` (default `TdokuSolverDpllTriadSimd`):

    size_t f(const char *puzzle, size_t limit, uint32_t configuration,
             char *solution, size_t *num_guesses);

`puzzle` is 81 chars, '1'-'9' or '.'; it returns the number of solutions found, at most `limit`;
`solution` gets 81 chars of the first solution (tdoku fills it only when `limit` is 1);
`num_guesses` goes into `stats["guesses"]`. `configuration` is 0. The name splits PATH from
SYMBOL at the last ':' when what follows is a C identifier (so `lib:./a:b/x.so` is a path).

- Timing (the timing rule's three phases, `backend.py`): `prepare` makes everything the call
  takes, untimed: the puzzle's 81 bytes, the limit and the configuration as ready C values,
  references to a solution buffer and a guess counter of the call's own. `bind` hands
  `timed_call` the C function and that tuple, so the timed region is `function(*arguments)`:
  the one foreign call, with nothing converted, looked up or allocated in it (so no garbage
  collection can start in it either). `answer` decodes it (untimed). When the count is >= 1
  but the library left `solution` empty (limit >= 2), `answer` makes one more call at limit 1
  for the first grid, outside the timed region.
- Counts: `count` is what the library returned; `solutions` holds one grid (the library gives
  no other), so the count of a grid with 28 solutions at limit 100 is 28, exhaustive, with its
  first grid checked by the independent checker and the count cross-checked with the other
  backends. A count of `limit` is a lower bound; above `limit` it breaks the ABI (ERROR).
- Shapes: 9x9 only (`practical_n` 9 and `shapes`); another size is never sent to the library.
- Timeout: a C call cannot be interrupted, so `forks_for_timeout`: with a timeout (the Python
  API, the command line) `run` makes the call in a forked child killed at the deadline (the
  timed region then holds the fork); under the harness the timeout is the worker's, which is
  killed, so the call runs in the worker.
- Isolation: a `lib:` backend is not sudokubench's code (`guard.trusted` is false), so in a
  comparison it has worker processes of its own: a library that crashes or spins costs its own
  tasks (ERROR naming the signal, or TIMEOUT) and the worker is restarted. `contained_copy()`
  gives the instance the command line uses: every call in a forked child, so a crash there is
  an ERROR result ("crashed: SIGSEGV"), never the end of the command.
- Threads: the function is loaded with `ctypes.PyDLL`, so a call holds the GIL (releasing and
  taking it back cost about 0.03 us of every call under `ctypes.CDLL`); each prepared call has
  buffers of its own, so calls from several threads are safe, one at a time.
- Loading: the constructor loads the library and looks the symbol up, so a missing file, a file
  that is not a library, one for another architecture or without the symbol is an
  `UnknownBackendError` (one line, exit code 2) before anything runs.

Why ctypes and not cffi: ctypes is in the standard library; cffi would be a new dependency,
its ABI mode calls through libffi as ctypes does, and its API mode compiles a C extension, so
it needs a C compiler wherever sudokubench runs. The per-call cost of ctypes is kept down
without either: no `argtypes` (each argument is already a C value: ctypes only copies it) and
`PyDLL`; `python benchmarks/lib.py` measures the call as made here against `argtypes` side by
side.
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import os
import pickle
import re
import selectors
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, ClassVar, NamedTuple

from sudokubench.backend import BaseBackend, SolveResult, Status, make_result
from sudokubench.errors import UnknownBackendError
from sudokubench.grid import Grid, Shape
from sudokubench.processes import die_with_parent

__all__ = ["DEFAULT_SYMBOL", "LibBackend", "split_spec"]

#: The function a `lib:PATH` without `:SYMBOL` calls: tdoku's fastest solver.
DEFAULT_SYMBOL = "TdokuSolverDpllTriadSimd"
#: The one shape the ABI takes.
NINE = Shape(3, 3)
#: A child that overruns its deadline is killed this long after it.
GRACE_S = 0.5
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: The configuration argument (always 0), as a ready C value.
_CONFIGURATION = ctypes.c_uint32.from_param(0)
_DIGITS = frozenset(b"123456789")
#: The ASCII digits' bytes to their values (a grid's cells read in one C call).
_FROM_ASCII = bytes.maketrans(b"123456789", bytes(range(1, 10)))


def split_spec(spec: str) -> tuple[str, str]:
    """`PATH[:SYMBOL]` -> (path, symbol): split at the last ':' when a C identifier follows."""
    path, colon, symbol = spec.rpartition(":")
    if colon and path and _IDENTIFIER.fullmatch(symbol):
        return path, symbol
    return spec, DEFAULT_SYMBOL


def _load(spec: str) -> tuple[ctypes.PyDLL, ctypes._CFuncPtr]:  # type: ignore[name-defined]
    """The library and its function; UnknownBackendError (one line) when either is missing."""
    path, symbol = split_spec(spec)
    where = f"backend 'lib:{spec}'"
    if not path:
        raise UnknownBackendError("lib: needs a path, e.g. lib:./libtdoku.so")
    file = Path(path)
    if not file.is_file():
        why = "is not a file" if file.exists() else "does not exist"
        raise UnknownBackendError(f"{where}: {path} {why}")
    try:
        library = ctypes.PyDLL(str(file.resolve()), mode=ctypes.RTLD_LOCAL)
    except OSError as exc:  # not a library, another architecture, a missing dependency
        detail = _elf_mismatch(file) or str(exc).removeprefix(f"{file.resolve()}: ")
        raise UnknownBackendError(f"{where}: cannot load {path}: {detail}") from None
    try:
        function = getattr(library, symbol)
    except AttributeError:
        raise UnknownBackendError(f"{where}: {path} has no function {symbol!r}") from None
    function.restype = ctypes.c_size_t
    return library, function


def _elf_header(path: Path | str) -> tuple[int, int] | None:
    """(class, machine) of an ELF file's header (class 1: 32-bit, 2: 64-bit), None for
    another kind of file."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return None
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    order = "little" if head[5] == 1 else "big"
    return head[4], int.from_bytes(head[18:20], order)


def _elf_mismatch(file: Path) -> str | None:
    """Why an ELF library cannot be loaded here when its class or machine is not this
    Python's (glibc says only "No such file or directory" then); None otherwise."""
    mine, theirs = _elf_header(sys.executable), _elf_header(file)
    if mine is None or theirs is None or mine == theirs:
        return None
    bits = {1: "32-bit", 2: "64-bit"}
    return (
        f"built for another architecture ({bits.get(theirs[0], '?')} ELF, machine "
        f"{theirs[1]}; this Python is {bits.get(mine[0], '?')}, machine {mine[1]})"
    )


class Reply(NamedTuple):
    """What a call gave back: its count, its guesses, the 81 bytes of its solution buffer."""

    count: int
    guesses: int
    text: bytes


@dataclass(slots=True)
class Call:
    """A prepared call: the puzzle's bytes, the limit, the buffers the library writes, and the
    function's arguments as ready C values (`function(*arguments)` is the whole timed region)."""

    text: bytes
    limit: int
    solution: ctypes.Array[ctypes.c_char]
    guesses: ctypes.c_size_t
    arguments: tuple[object, ...]


def _arguments(text: bytes, limit: int, solution: ctypes.Array, guesses: ctypes.c_size_t) -> tuple:
    """The five arguments as C values ctypes passes as they are: `from_param` and `byref` make
    them once, here, instead of on every call."""
    size = ctypes.c_size_t.from_param(limit)
    return (text, size, _CONFIGURATION, ctypes.byref(solution), ctypes.byref(guesses))


class LibBackend(BaseBackend):
    """A shared library's solver with tdoku's C ABI (see the module docstring)."""

    practical_n: ClassVar[int] = 9
    #: The only shapes it takes: others are never sent to the library.
    shapes: ClassVar[frozenset[Shape]] = frozenset({NINE})
    handles_hard = True
    forks_for_timeout = True

    def __init__(self, spec: str, *, contained: bool = False) -> None:
        self.spec = spec
        self.name = f"lib:{spec}"
        self.path, self.symbol = split_spec(spec)
        self.library, self._function = _load(spec)
        self.contained = contained

    def contained_copy(self) -> LibBackend:
        """The same library with every call in a forked child (what the command line uses)."""
        return LibBackend(self.spec, contained=True)

    def available(self) -> bool:
        """Loaded in the constructor: available wherever it could be made."""
        return True

    def version(self) -> str | None:
        """A library has no version to ask; its file's name and size say which one it is."""
        return f"{Path(self.path).name} ({Path(self.path).stat().st_size} bytes)"

    # -- the three phases --------------------------------------------------------------------

    def prepare(self, puzzle: Grid, limit: int) -> Call | SolveResult:
        """The puzzle's 81 bytes and the limit; a result instead when nothing is to be sent."""
        if puzzle.shape not in self.shapes:
            n = puzzle.shape.n
            message = f"lib: takes 9x9 puzzles only, not {n}x{n} (never sent to the library)"
            return SolveResult(self.name, Status.ERROR, message=message)
        if not puzzle.is_valid():
            return make_result(self.name, [], finished=True, message="conflicting givens")
        text = str(puzzle).encode()
        solution, guesses = ctypes.create_string_buffer(96), ctypes.c_size_t(0)
        return Call(text, limit, solution, guesses, _arguments(text, limit, solution, guesses))

    def bind(self, prepared: Call, timeout: float | None) -> tuple[Callable[..., object], tuple]:
        """Untimed: the timed region's function and arguments. Without a timeout, the C
        function and its ready arguments: the region is the one foreign call. With one (or in
        a `contained` instance), the call in a forked child (its reply, or a result for a
        crash or an overrun)."""
        if timeout is not None or self.contained:
            return self._in_child, (prepared, timeout)
        return self._function, prepared.arguments

    def run(self, prepared: Call, timeout: float | None) -> int | Reply | SolveResult:
        """The timed region, as `bind` gives it: the C call's count (or a child's answer)."""
        function, arguments = self.bind(prepared, timeout)
        return function(*arguments)

    def answer(self, prepared: Call, raw: int | Reply | SolveResult) -> SolveResult:
        """The result of the call: its count and its grid (fetched at limit 1 when the library
        wrote none); a child's result as it is."""
        if isinstance(raw, SolveResult):
            return raw
        if isinstance(raw, int):
            raw = self._fetch(prepared, raw)
        return self._decode(prepared, raw)

    def _fetch(self, prepared: Call, count: int) -> Reply:
        """The call's reply; when it counted solutions but wrote no grid (tdoku fills it only
        at limit 1), one more call at limit 1 writes the first."""
        guesses = prepared.guesses.value
        if 1 <= count <= prepared.limit and prepared.solution.raw[0] == 0:
            spare = ctypes.c_size_t(0)
            self._function(*_arguments(prepared.text, 1, prepared.solution, spare))
        return Reply(count, guesses, prepared.solution.raw[:81])

    def _decode(self, prepared: Call, reply: Reply) -> SolveResult:
        count = reply.count
        if count > prepared.limit:
            message = f"the library returned {count} solutions for limit {prepared.limit}"
            return SolveResult(self.name, Status.ERROR, message=message)
        stats = {"guesses": reply.guesses}
        if count == 0:
            return make_result(self.name, [], finished=True, stats=stats)
        grid = self._grid(reply.text)
        if grid is None:
            quoted = reply.text.split(b"\0")[0].decode("latin-1")[:60]
            message = f"the library counted {count} but wrote no grid ({quoted!r})"
            return SolveResult(self.name, Status.ERROR, message=message)
        return SolveResult(
            self.name, Status.SOLVED, (grid,), count, exhaustive=count < prepared.limit, stats=stats
        )

    @staticmethod
    def _grid(text: bytes) -> Grid | None:
        """81 digits as a grid, None when they are not (a library that wrote nothing)."""
        if len(text) != 81 or not _DIGITS.issuperset(text):
            return None
        return Grid(NINE, tuple(text.translate(_FROM_ASCII)))

    # -- a call in a child ---------------------------------------------------------------------

    def _in_child(self, prepared: Call, timeout: float | None) -> Reply | SolveResult:
        """The call (and the fetch of a grid) in a forked child: its reply; a crash is an ERROR
        result, an overrun of `timeout` a TIMEOUT."""
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            try:
                os.close(read)
                faulthandler.disable()  # a crash is reported as a result, not as a dump
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C stops a call in C too
                die_with_parent()
                function, arguments = self._function, prepared.arguments
                start = time.perf_counter()
                count = function(*arguments)
                solve_s = time.perf_counter() - start
                os.write(write, pickle.dumps((tuple(self._fetch(prepared, count)), solve_s)))
            finally:
                os._exit(0)
        os.close(write)
        try:
            with os.fdopen(read, "rb") as pipe:
                data = _read_until(pipe, None if timeout is None else timeout + GRACE_S)
        except BaseException:  # Ctrl-C while the call runs: it ends with this process
            _kill(pid)
            raise
        if data is None:
            _kill(pid)
            message = f"no answer within {timeout:g} s; the call was killed"
            return make_result(self.name, [], finished=False, timed_out=True, message=message)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            name = signal.Signals(os.WTERMSIG(status)).name
            return SolveResult(self.name, Status.ERROR, message=f"crashed: {name}")
        if not data:
            code = os.WEXITSTATUS(status)
            return SolveResult(self.name, Status.ERROR, message=f"the call exited ({code})")
        reply, solve_s = pickle.loads(data)
        if timeout is None or solve_s <= timeout:
            return Reply(*reply)
        late = self._decode(prepared, Reply(*reply))
        return make_result(
            self.name,
            list(late.solutions),
            finished=False,
            timed_out=True,
            stats=late.stats,
            message=f"answered after {solve_s:.2f} s, past the timeout",
        )


def _kill(pid: int) -> None:
    """Kill a child and reap it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def _read_until(pipe: BinaryIO, seconds: float | None) -> bytes | None:
    """Everything a child writes to `pipe` until it closes it; None when `seconds` pass first."""
    deadline = None if seconds is None else time.monotonic() + seconds
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(pipe, selectors.EVENT_READ)
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not selector.select(left):
                return None
            chunk = os.read(pipe.fileno(), 1 << 16)
            if not chunk:
                return data
            data += chunk
