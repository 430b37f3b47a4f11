"""Confining a process that runs a plug-in's code: it may write files only in one folder.

A plug-in (`module:attr`, an entry point) or an `exec:` program runs as the user who runs
`compare`, so without this it could open the results database and change or delete the rows
the harness wrote (or hold its lock). `confine_writes(folder)` asks the kernel (Linux's
Landlock, unprivileged, inherited by every child and never lifted) to refuse, for this process
and everything it starts, every file system change outside `folder`: opening a file for
writing or truncating it, creating, renaming, linking or removing anything. Reading is left
alone (a plug-in reads its own data files), and so are the descriptors already open (the
worker's pipe to the harness). `/dev/null` stays writable (programs are started with it).
Temporary files go to `folder`; libraries' caches (`XDG_CACHE_HOME`, `NUMBA_CACHE_DIR`) to a
folder of the plug-in's own that lasts from one run to the next (`cache_folder`), also
writable: a plug-in built on numba's `cache=True` compiles once, not in every worker (its
cache beside its code cannot be written: it would fail).

This is the road BenchExec's container mode takes (a read-only view of the file system for
the tool); Landlock gives it without root and without user namespaces, which many machines and
containers forbid. Where the kernel has no Landlock (before Linux 5.13, or switched off),
`confine_writes` says why, and `compare` warns that plug-ins can write the database.

Road not taken: a digest of the rows written, checked at the end and by `report`: a plug-in
running as the same user can rewrite the digest too, and report runs long after compare's
memory of it is gone; it detects the damage at best, and only after it is done.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
import sys

__all__ = ["cache_folder", "confine_writes", "unconfined"]

# Linux's system call numbers (the same on every architecture: they came after the tables
# were unified) and the Landlock ABI (include/uapi/linux/landlock.h).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_WRITE_FILE = 1 << 1
#: Every right that changes the file system, by the first ABI that has it: REMOVE_DIR,
#: REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM
#: (ABI 1), REFER (2: links and renames across folders), TRUNCATE (3).
_CHANGES = {1: _WRITE_FILE | sum(1 << k for k in range(4, 13)), 2: 1 << 13, 3: 1 << 14}


def _abi(libc: ctypes.CDLL) -> int:
    return libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)


def unconfined() -> str | None:
    """Why `confine_writes` cannot work here (None when it can), without confining anything."""
    if not sys.platform.startswith("linux"):
        return f"confining plug-ins needs Linux's Landlock (this is {sys.platform})"
    libc = ctypes.CDLL(None, use_errno=True)
    if _abi(libc) < 1:
        return f"this kernel has no Landlock ({os.strerror(ctypes.get_errno())})"
    return None


def cache_folder(name: str) -> str:
    """The folder (made if needed) where the plug-in or program `name` keeps its caches from
    one run to the next: one per name, under the user's cache folder."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    folder = os.path.join(home, "sudokubench", "plugins", digest)
    os.makedirs(folder, exist_ok=True)
    return folder


def confine_writes(folder: str, cache: str | None = None) -> str | None:
    """Let this process and its children change files only beneath `folder` and `cache` (and
    write to /dev/null); None when done, else why it could not be done (nothing is then
    changed). Temporary files go to `folder`, libraries' caches to `cache`."""
    why = unconfined()
    if why is not None:
        return why
    libc = ctypes.CDLL(None, use_errno=True)
    abi = _abi(libc)
    handled = sum(bits for version, bits in _CHANGES.items() if version <= abi)
    attr = struct.pack("=Q", handled)  # struct landlock_ruleset_attr, its first field
    ruleset = libc.syscall(_CREATE_RULESET, attr, ctypes.c_size_t(len(attr)), 0)
    if ruleset < 0:
        return f"Landlock refused a ruleset ({os.strerror(ctypes.get_errno())})"
    try:
        rules = [(folder, handled), (os.devnull, _WRITE_FILE | (1 << 14 if abi >= 3 else 0))]
        rules += [(cache, handled)] if cache else []
        for path, rights in rules:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                beneath = struct.pack("=Qi", rights, fd)  # landlock_path_beneath_attr, packed
                if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, beneath, 0) < 0:
                    return f"Landlock refused {path} ({os.strerror(ctypes.get_errno())})"
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0:
            return f"cannot set no_new_privs ({os.strerror(ctypes.get_errno())})"
        if libc.syscall(_RESTRICT_SELF, ruleset, 0) < 0:
            return f"Landlock refused to confine ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    _redirect(folder, cache or folder)
    return None


def _redirect(folder: str, cache: str) -> None:
    """Temporary files into `folder`; into `cache` the caches libraries keep beside their
    code or in the home folder (numba's `cache=True` refuses to run where it cannot write)."""
    import tempfile

    os.environ["TMPDIR"] = tempfile.tempdir = folder
    os.environ["XDG_CACHE_HOME"] = os.environ["NUMBA_CACHE_DIR"] = cache
    config = sys.modules.get("numba.core.config")  # (read when numba was imported)
    if config is not None:
        config.CACHE_DIR = cache
