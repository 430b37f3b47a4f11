"""The 9x9 band kernel's machine code kept as an object file and loaded without numba.

numba compiles the band kernel (`native_band.search`) once per machine into its cache, but
loading it from there costs a process numba's own set-up first: `import numba` and, on its
first cache load, its typing and target registries (0.7-0.8 s of CPU together). A process
that only solves 9x9 puzzles (the worker pool's fork server, hence every worker) needs none of
it: `native_band.entry`, the kernel as a CPython function of no arguments, is compiled by
numba once (`native.warm`, `compile_entry`) into an object file kept beside numba's cache
(`save`), and loaded here with llvmlite's MCJIT linker alone (`load`, about 0.1 s of CPU with
the import of `llvmlite.binding`).

The file is keyed so that a stale one is never loaded: its name holds a hash of the kernel's
sources (`native_band.py`, `native_band_layout.py`, `native_kernel.py`), the numba and llvmlite
installed (their version files), Python's version and ABI, the platform and numba's settings
from the environment (`NUMBA_*` but `NUMBA_CACHE_DIR`); its header holds that key with the
host CPU's name and features as llvmlite reports them, and a hash of the object. A file that
is missing, stale, corrupt or fails to load leaves `load` returning None, and the caller takes
numba's path (`native.ready`), as before.

Where: numba's cache directory for the kernel's sources, by numba's rule (`NUMBA_CACHE_DIR`,
else the `__pycache__` beside the sources when writable, else numba's per-user cache directory
as numba names it on Linux; elsewhere that last case finds no file and takes numba's path).

The machine code needs a few of numba's C helpers only on the path where the kernel raises an
exception (it does not: its array views have fixed sizes); in a process where numba has not
registered them they are bound to a stub that does nothing, so such a call returns NULL and
CPython raises a SystemError in the caller. Where numba registered them (it was imported and
set up first) they are left as they are: llvmlite's symbols are the process's, and numba's
later code needs its real ones; numba set up later replaces the stub with them.

`bound(work, state)` makes the callable a solve calls: a builtin function of no arguments bound
to one work array and one state (0.1 us a call where numba's dispatch of `search` costs
0.6-0.8 us: it unboxes both arrays).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
import sys
from functools import cache
from importlib.util import find_spec
from typing import Any

#: The file's first bytes, then the key's length (4 bytes), the key, the object's SHA-256
#: (32 bytes), the symbol's length (4 bytes), the symbol and the object.
MAGIC = b"sudokubench band kernel object 1\n"
#: The kernel's sources, beside this module: the key hashes them.
SOURCES = ("native_band.py", "native_band_layout.py", "native_kernel.py")
#: numba's C helpers the machine code names on its exception path, and NRT's (reference
#: counts: the kernel's arrays have none); bound to `_stub`.
HELPERS = (
    "numba_gil_ensure",
    "numba_gil_release",
    "numba_unpickle",
    "numba_runtime_build_excinfo_struct",
    "numba_do_raise",
    "NRT_Free",
    "NRT_MemInfo_call_dtor",
)
#: `METH_NOARGS`: CPython calls the function with its `self` and NULL.
_METH_NOARGS = 0x4


def _source_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def cache_dir() -> str | None:
    """The directory numba caches the kernel's functions in, found as numba finds it (its
    locators, in order), without importing numba; None when it cannot tell."""
    here = _source_dir()
    configured = os.environ.get("NUMBA_CACHE_DIR")
    # numba's `get_suitable_cache_subpath`: the sources' folder name and a hash of its path
    subpath = f"{os.path.basename(here)}_{hashlib.sha1(here.encode()).hexdigest()}"
    if configured:
        return os.path.join(configured, subpath)
    beside = os.path.join(here, "__pycache__")
    if os.access(beside, os.W_OK) or (not os.path.exists(beside) and os.access(here, os.W_OK)):
        return beside
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        return os.path.join(base, "numba", subpath)
    return None


def _version_file(package: str) -> bytes:
    """The bytes of an installed package's `_version.py` (found without importing it)."""
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LookupError(package)
    folder = next(iter(spec.submodule_search_locations))
    with open(os.path.join(folder, "_version.py"), "rb") as source:
        return source.read()


def file_key() -> bytes:
    """What the file's name is keyed on (everything but the host CPU): bytes."""
    digest = hashlib.sha256()
    here = _source_dir()
    for name in SOURCES:
        with open(os.path.join(here, name), "rb") as source:
            digest.update(hashlib.sha256(source.read()).digest())
    for package in ("numba", "llvmlite"):
        digest.update(hashlib.sha256(_version_file(package)).digest())
    settings = sorted(
        (k, v) for k, v in os.environ.items() if k.startswith("NUMBA_") and k != "NUMBA_CACHE_DIR"
    )
    python = (sys.version, sys.implementation.cache_tag, sys.abiflags, sys.platform)
    digest.update(repr((python, os.uname().machine, bytes.__basicsize__, settings)).encode())
    return digest.digest()


def path() -> str | None:
    """The kept object's file for this process's key, or None when there is no place for it."""
    try:
        folder = cache_dir()
        key = file_key()
    except (OSError, LookupError):
        return None
    if folder is None:
        return None
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}{sys.abiflags}"
    return os.path.join(folder, f"native_band.entry-{key.hex()[:24]}.{tag}.o")


def present() -> bool:
    """Whether the kept object's file exists for this process's key (not read: `load` checks
    it), looked at without importing numba or llvmlite."""
    where = path()
    return where is not None and os.path.exists(where)


def _host(binding: Any) -> bytes:
    """The host CPU's name and features, as llvmlite reports them."""
    return f"{binding.get_host_cpu_name()} {binding.get_host_cpu_features().flatten()}".encode()


def _binding() -> Any:
    """`llvmlite.binding`, with the native target initialised."""
    from llvmlite import binding

    binding.initialize_native_target()
    binding.initialize_native_asmprinter()
    return binding


def save(obj: bytes, symbol: str) -> str | None:
    """Keep `obj` (`native_band.compile_entry`'s object file, its entry named `symbol`) for
    this process's key; the file written, or None when it could not be (no place, no right to
    write: numba's path is then taken, as before)."""
    where = path()
    if where is None:
        return None
    key = file_key() + _host(_binding())
    name = symbol.encode()
    data = b"".join(
        (
            MAGIC,
            struct.pack("<I", len(key)),
            key,
            hashlib.sha256(obj).digest(),
            struct.pack("<I", len(name)),
            name,
            obj,
        )
    )
    try:
        os.makedirs(os.path.dirname(where), exist_ok=True)
        partial = f"{where}.{os.getpid()}.tmp"
        with open(partial, "wb") as out:
            out.write(data)
        os.replace(partial, where)  # whole or not at all, for a process reading it meanwhile
    except OSError:
        return None
    return where


def read(where: str, binding: Any) -> tuple[bytes, str] | None:
    """The object and its symbol from the file `where`, or None when the file is not one of
    ours, was kept for another key or host CPU, or its object's hash does not match."""
    try:
        with open(where, "rb") as source:
            data = source.read()
    except OSError:
        return None
    try:
        at = len(MAGIC)
        if data[:at] != MAGIC:
            return None
        (size,) = struct.unpack_from("<I", data, at)
        key, at = data[at + 4 : at + 4 + size], at + 4 + size
        if key != file_key() + _host(binding):
            return None
        digest, at = data[at : at + 32], at + 32
        (size,) = struct.unpack_from("<I", data, at)
        symbol, at = data[at + 4 : at + 4 + size].decode(), at + 4 + size
        obj = data[at:]
    except (struct.error, UnicodeDecodeError):
        return None
    if hashlib.sha256(obj).digest() != digest:
        return None
    return obj, symbol


class _MethodDef(ctypes.Structure):
    """CPython's `PyMethodDef`."""

    _fields_ = (
        ("name", ctypes.c_char_p),
        ("meth", ctypes.c_void_p),
        ("flags", ctypes.c_int),
        ("doc", ctypes.c_char_p),
    )


#: The stub numba's helpers are bound to (kept alive for the process: its address is in
#: the loaded machine code).
_stub = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
    lambda a, b, c: None
)


@cache
def load() -> Any:
    """The kept object loaded into this process (once): a `_Loaded`, or None when there is
    none for this process's key, it is stale or corrupt, or it fails to load."""
    where = path()
    if where is None or not os.path.exists(where):
        return None
    if sys.implementation.name != "cpython" or (bytes.__basicsize__ - 1) % 8:
        return None  # (`entry` reads its addresses as int64 words of a CPython `bytes`)
    try:
        binding = _binding()
        found = read(where, binding)
        if found is None:
            return None
        obj, symbol = found
        stub = ctypes.cast(_stub, ctypes.c_void_p).value
        for name in HELPERS:  # (numba's own, where numba registered them: never replaced)
            if not binding.address_of_symbol(name):
                binding.add_symbol(name, stub)
        target = binding.Target.from_default_triple()
        machine = target.create_target_machine(
            cpu=binding.get_host_cpu_name(),
            features=binding.get_host_cpu_features().flatten(),
            codemodel="jitdefault",
        )
        module = binding.parse_assembly("")
        module.triple = target.triple
        engine = binding.create_mcjit_compiler(module, machine)
        engine.add_object_file(binding.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        address = engine.get_function_address(symbol)
        if not address:
            return None
        return _Loaded(engine, address)
    except Exception:  # (anything llvmlite raises: numba's path is taken instead)
        return None


class _Loaded:
    """The loaded machine code (its engine kept alive) and the builtins made from it."""

    def __init__(self, engine: Any, address: int) -> None:
        self.engine = engine
        self.method = _MethodDef(b"band_search", address, _METH_NOARGS, None)
        new = ctypes.pythonapi.PyCFunction_NewEx
        new.restype = ctypes.py_object
        new.argtypes = (ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p)
        self._new = new
        self._codes = struct.Struct("<6q").pack
        self._at = ctypes.addressof(self.method)

    def bound(self, work: Any, state: Any) -> Any:
        """The kernel as a function of no arguments on `work` and `state` (writable buffers
        of int64 words: memoryviews or bytearrays, or numpy's arrays, which the caller keeps
        alive as long as the function): returns the kernel's code."""
        me = self._codes(_address(work), _address(state), id(0), id(1), id(2), id(3))
        return self._new(self._at, me, None)

    def call(self, work: Any, state: Any) -> int:
        """One call of the kernel on `work` and `state` (`native_band.search`'s arguments)."""
        return self.bound(work, state)()


def _address(buffer: Any) -> int:
    """The address of a writable buffer's first byte (a bytearray's, a memoryview's, a numpy
    array's), read without numpy."""
    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))
