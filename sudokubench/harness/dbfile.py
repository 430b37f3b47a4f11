"""The results database as a file: opened only when it is a regular file, held open with a
shared `flock` while a `Store` uses it, and removed (`discard`) only by the one process that
made it, holds it alone and finds no run in it.

Why: `compare` removes a database it created when its new run fails before it is stored (bad
input at the end of a file), so a typo leaves no empty file behind. Two `compare`s creating the
same new file both think they made it; the one that failed used to remove the file with the
other's run in it, after that one had printed "stored" (its writes then went to a file no name
reaches). The shared lock says "someone uses this file": `discard` takes the exclusive lock
without waiting, so it removes nothing another process has open, and checks that no run is
stored; a process that opens the path while a `discard` holds it finds, once it has its shared
lock, that the path no longer names the file it locked, and opens the new one.

SQLite's own locks are `fcntl` byte-range locks, which `flock` does not touch (on Linux and the
BSDs they are independent), so these never block SQLite. Where `fcntl` is missing (Windows), a
database file is never removed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from pathlib import Path

from sudokubench.errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["discard", "hold", "read_only", "release"]


def _checked(path: Path) -> os.stat_result | None:
    """The file's status, None when it does not exist; StoreError when it is not a file."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot open {path}: {exc.strerror}") from None
    if not stat.S_ISREG(found.st_mode):
        kind = "a folder" if stat.S_ISDIR(found.st_mode) else "not a regular file"
        raise StoreError(f"{path} is not a results database ({kind})")
    return found


def hold(path: Path, create: bool) -> int | None:
    """A descriptor of the database file holding a shared lock (None without `fcntl`), the file
    made empty when `create` and it does not exist; StoreError when `path` is not a regular
    file or cannot be opened."""
    _checked(path)
    if fcntl is None:  # pragma: no cover
        return None
    flags = os.O_RDONLY | (os.O_CREAT if create else 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):  # (each retry means a `discard` removed the file meanwhile)
        try:
            fd = os.open(path, flags, 0o644)
        except FileNotFoundError:
            raise StoreError(f"no results database at {path} (run compare first)") from None
        except OSError as exc:
            raise StoreError(f"cannot open {path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            now, held = _checked(path), os.fstat(fd)
        except BaseException:
            os.close(fd)
            raise
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            if not stat.S_ISREG(held.st_mode):
                os.close(fd)
                raise StoreError(f"{path} is not a results database (not a regular file)")
            return fd
        os.close(fd)
    raise StoreError(f"cannot open {path}: it keeps being replaced")  # pragma: no cover


def read_only(path: Path) -> bool:
    """Whether this process may not write the file or create files beside it (SQLite's
    journal and WAL files): a read-only file, folder or file system."""
    folder = path.parent if str(path.parent) else Path(".")
    return not (os.access(path, os.W_OK) and os.access(folder, os.W_OK))


def release(fd: int | None) -> None:
    """Drop the lock `hold` took (closing the descriptor)."""
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)


def discard(path: Path) -> bool:
    """Remove the database file (and its `-wal`, `-shm`) when no other process holds it and it
    stores no run; whether it was removed."""
    if fcntl is None:  # pragma: no cover
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held, now = os.fstat(fd), _checked(path)
        if now is None or (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
            return False
        if _has_runs(path):
            return False
        for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            name.unlink(missing_ok=True)
        return True
    except (OSError, StoreError):  # held by another process (or gone): left as it is
        return False
    finally:
        os.close(fd)


def _has_runs(path: Path) -> bool:
    """Whether the file stores a run, or something else than an empty results database, or
    cannot be read: then it is kept."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if not tables:
                return False
            if "runs" not in tables:
                return True
            return db.execute("SELECT EXISTS (SELECT 1 FROM runs)").fetchone()[0] != 0
    except sqlite3.Error:
        return True
