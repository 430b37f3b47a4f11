"""Input is read once: a FIFO or a process substitution (`solve <(head -3 f)`) gives its data
once, so a file is opened once, sniffed for gzip without being read again."""

from __future__ import annotations

import gzip
import json
import os
import threading
from pathlib import Path

import pytest
from support import TELEGRAM, TELEGRAM_SOLUTION, cli


def fifo_with(tmp_path: Path, data: bytes) -> Path:
    """A FIFO that a daemon thread fills with `data` (once) when a reader opens it."""
    path = tmp_path / "in.fifo"
    os.mkfifo(path)

    def write() -> None:
        with open(path, "wb") as pipe:
            pipe.write(data)

    threading.Thread(target=write, daemon=True).start()
    return path


@pytest.mark.parametrize("packed", [False, True], ids=["text", "gzip"])
def test_solve_reads_a_fifo_once(tmp_path: Path, packed: bool) -> None:
    data = f"{TELEGRAM}\n".encode()
    fifo = fifo_with(tmp_path, gzip.compress(data) if packed else data)
    done = cli("solve", str(fifo), "-f", "line", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [TELEGRAM_SOLUTION]


def test_compare_reads_a_fifo_once(tmp_path: Path) -> None:
    fifo = fifo_with(tmp_path, f"{TELEGRAM}\n{TELEGRAM}\n".encode())
    db = tmp_path / "r.sqlite"
    done = cli("compare", str(fifo), "-b", "fast", "--db", str(db), "--json", timeout=60)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["puzzles"], data["summary"]["fast"]["solved"]) == (2, 2)
