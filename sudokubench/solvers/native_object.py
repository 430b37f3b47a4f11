"""The 9x9 band kernel's machine code kept as an object file and a shared library, loaded
without numba.

numba compiles the band kernel (`native_band.search`) once per machine into its cache, but
loading it from there costs a process numba's own set-up first: `import numba` and, on its
first cache load, its typing and target registries (0.7-0.8 s of CPU together). A process
that only solves 9x9 puzzles (the worker pool's fork server, hence every worker) needs none of
it: `native_band.entry`, the kernel as a CPython function of no arguments, is compiled by
numba once (`native.warm`, `compile_entry`) into an object file kept beside numba's cache
(`save`), and linked from it into a shared library with the system's C compiler (`link`: `cc
-shared`, a few hundredths of a second once per machine). `load` loads the library with the
system's loader through `ctypes` (`load_library`: about 1 ms of CPU, no llvmlite), else the
object with llvmlite's MCJIT linker (`load_object`: 0.04-0.05 s of CPU with the import of
`llvmlite.binding`), the same machine code either way.

The files are keyed so that a stale one is never loaded: their names hold a hash of the
kernel's sources (`native_band.py`, `native_band_layout.py`, `native_kernel.py`), the numba
and llvmlite installed (their version files), Python's version and ABI, the platform and
numba's settings from the environment (`NUMBA_*` but `NUMBA_CACHE_DIR`). The object's header
holds that key with the host CPU's name and features as llvmlite reports them, and a hash of
the object; the library's trailer (after the library's own bytes, which the loader does not
read) holds that key with the host CPU as Linux describes it (`/proc/cpuinfo`: llvmlite is
what the library avoids importing; elsewhere no library is linked) and a hash of the library,
both checked before it is loaded. A library that is missing, stale, corrupt or fails to load
leaves the object to load; an object that does leaves `load` returning None, and the caller
takes numba's path (`native.ready`), as before. Without a C compiler, or where the link fails
(numba's code model addresses with absolute words, which the library's loader relocates in
its code pages: `-z notext`), only the object is kept; `native.warm` links the library from a
valid object when it finds the library missing or stale (`link_kept`).

Where: numba's cache directory for the kernel's sources, by numba's rule (`NUMBA_CACHE_DIR`,
else the `__pycache__` beside the sources when writable, else numba's per-user cache directory
as numba names it on Linux; elsewhere that last case finds no file and takes numba's path).

The machine code needs a few of numba's C helpers only on the path where the kernel raises an
exception (it does not: its array views have fixed sizes). The library has its own stubs for
them (`STUBS`, hidden), which return NULL, so such a call would make CPython raise a
SystemError in the caller; Python's C API (`Py_IncRef`, ...) resolves against the running
interpreter when the library loads. For the object, in a process where numba has not
registered them they are bound to a stub that does the same. Where numba registered them (it
was imported and set up first) they are left as they are: llvmlite's symbols are the
process's, and numba's later code needs its real ones; numba set up later replaces the stub
with them.

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
#: The kept library's last bytes, after its trailer: the key, the library's SHA-256 (32
#: bytes), the symbol, then the key's, the symbol's and the library's lengths (4 bytes each).
LIBRARY_MAGIC = b"\nsudokubench band kernel library 1"
#: The C source linked with the object into the library: `HELPERS` as stubs that return NULL
#: (hidden: the library's own, never another's, numba's included, and never exported).
STUBS = "".join(
    f'__attribute__((visibility("hidden"))) void *{name}(void) {{ return 0; }}\n'
    for name in HELPERS
)
#: The fields of `/proc/cpuinfo` that name the host CPU in the library's key.
CPU_FIELDS = frozenset(
    b"vendor_id|cpu family|model|model name|stepping|flags|"  # (x86)
    b"CPU implementer|CPU architecture|CPU variant|CPU part|CPU revision|Features".split(b"|")
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
    this process's key, and the library linked from it (`link`); the object's file written,
    or None when it could not be (no place, no right to write: numba's path is then taken, as
    before). The object is kept whether or not the library links."""
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
    if not _keep(where, data):
        return None
    link(obj, symbol)
    return where


def _keep(where: str, data: bytes) -> bool:
    """Write `data` to the file `where` whole or not at all (a process may read it meanwhile:
    a file of this process's own, then renamed); whether it was written."""
    try:
        os.makedirs(os.path.dirname(where), exist_ok=True)
        partial = f"{where}.{os.getpid()}.tmp"
        with open(partial, "wb") as out:
            out.write(data)
        os.replace(partial, where)
    except OSError:
        return False
    return True


def link_kept() -> str | None:
    """The kept library, linked from the kept object when it is missing or stale (the object
    kept before a compiler was installed, or on another CPU with the same llvmlite name); its
    file, or None when there is no valid object to link or the link fails."""
    where, kept = library_path(), path()
    if where is not None and read_library(where) is not None:
        return where
    if kept is None:
        return None
    try:
        found = read(kept, _binding())
    except Exception:  # (llvmlite's: no object to link)
        return None
    return None if found is None else link(*found)


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
    """The kept machine code loaded into this process (once): a `_Loaded`, or None when there
    is none for this process's key, it is stale or corrupt, or it fails to load. The kept
    library first (`load_library`: no llvmlite), else the kept object (`load_object`)."""
    return load_library() or load_object()


def load_object() -> Any:
    """The kept object loaded with llvmlite's MCJIT linker: a `_Loaded`, or None."""
    where = path()
    if where is None or not os.path.exists(where) or not _fits():
        return None
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


def _fits() -> bool:
    """Whether `entry`'s way of reading its addresses holds here: int64 words of a CPython
    `bytes`."""
    return sys.implementation.name == "cpython" and not (bytes.__basicsize__ - 1) % 8


def library_path() -> str | None:
    """The kept library's file for this process's key (beside the object, `.so` for `.o`), or
    None when there is no place for it."""
    where = path()
    return None if where is None else where[: -len(".o")] + ".so"


def _host_cpu() -> bytes | None:
    """The host CPU as Linux describes its first processor in `/proc/cpuinfo` (x86's vendor,
    family, model, name and flags; ARM's implementer, part, revision and features), read
    without llvmlite; None where there is no such file or it names none of these."""
    data = b""
    try:  # (the first processor's lines alone: the kernel writes the rest only when read)
        with open("/proc/cpuinfo", "rb", buffering=0) as source:
            while b"\n\n" not in data:
                more = source.read(65536)
                if not more:
                    break
                data += more
    except OSError:
        return None
    lines = [
        line
        for line in data.split(b"\n\n", 1)[0].split(b"\n")
        if line.split(b":")[0].strip() in CPU_FIELDS
    ]
    return b"\n".join(lines) or None


def library_key() -> bytes | None:
    """What the kept library is keyed on: the object's key (`file_key`) with the host CPU as
    Linux names it (`_host_cpu`, in place of llvmlite's name, whose import the library
    avoids); None when the host CPU cannot be told."""
    cpu = _host_cpu()
    return None if cpu is None else file_key() + cpu


def link(obj: bytes, symbol: str) -> str | None:
    """Link `obj` (the kept object, its entry named `symbol`) into a shared library with the
    system's C compiler (`cc -shared`, numba's helpers bound to `STUBS`) and keep it, the key,
    the library's hash and the symbol appended; the file written, or None when it could not
    be (no compiler, the link failed, no place: the object then serves, as before)."""
    import shutil
    import subprocess
    import tempfile

    where, key, cc = library_path(), library_key(), shutil.which("cc")
    if where is None or key is None or cc is None or not _fits():
        return None
    try:
        os.makedirs(os.path.dirname(where), exist_ok=True)
        with tempfile.TemporaryDirectory(dir=os.path.dirname(where)) as folder:
            names = [os.path.join(folder, name) for name in ("entry.o", "stubs.c", "entry.so")]
            with open(names[0], "wb") as out:
                out.write(obj)
            with open(names[1], "w") as out:
                out.write(STUBS)
            # -z notext: numba's code model addresses with absolute words, relocated when the
            # library loads; -Bsymbolic: its own names bound to its own definitions.
            flags = ["-shared", "-fPIC", "-nostdlib", "-Wl,-Bsymbolic", "-Wl,-z,notext"]
            done = subprocess.run(
                [cc, *flags, "-o", names[2], names[0], names[1]],
                capture_output=True,
                timeout=120,
            )
            if done.returncode != 0:
                return None
            with open(names[2], "rb") as source:
                library = source.read()
        name = symbol.encode()
        trailer = b"".join(
            (
                key,
                hashlib.sha256(library).digest(),
                name,
                struct.pack("<III", len(key), len(name), len(library)),
                LIBRARY_MAGIC,
            )
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return where if _keep(where, library + trailer) else None


def read_library(where: str) -> str | None:
    """The entry's symbol from the library file `where` once it checks out (ours, kept for
    this process's key and host CPU, the library's hash matching), else None."""
    try:
        with open(where, "rb") as source:
            data = source.read()
    except OSError:
        return None
    end = len(data) - len(LIBRARY_MAGIC)
    if end < 12 or data[end:] != LIBRARY_MAGIC:
        return None
    size, named, linked = struct.unpack_from("<III", data, end - 12)
    at = end - 12 - named
    if linked + size + 32 != at:  # (the library, the key, its hash, the symbol: all there)
        return None
    key, digest = data[linked : linked + size], data[linked + size : at]
    if key != library_key() or hashlib.sha256(data[:linked]).digest() != digest:
        return None
    try:
        return data[at : end - 12].decode()
    except UnicodeDecodeError:
        return None


def load_library() -> Any:
    """The kept library loaded with the system's loader (`ctypes`), no llvmlite: a `_Loaded`,
    or None when it is missing, stale, corrupt or fails to load."""
    where = library_path()
    if where is None or not os.path.exists(where) or not _fits():
        return None
    symbol = read_library(where)
    if symbol is None:
        return None
    try:
        library = ctypes.PyDLL(where)  # (loaded at once: every name resolved, or an OSError)
        address = ctypes.cast(library[symbol], ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    return _Loaded(library, address) if address else None


class _Loaded:
    """The loaded machine code (its library or MCJIT engine kept alive) and the builtins made
    from it."""

    def __init__(self, keeper: Any, address: int) -> None:
        self.keeper = keeper  # (the MCJIT engine or the library the code lives in)
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
