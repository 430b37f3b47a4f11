"""The band kernel's compiled entry called once a puzzle: a driver for instruction counts.

Loads a revision's `native_band` (exported as `benchmarks/native_versions.py` does), fills
numba's cache for the CPU numba is configured for when needed, then calls `search(work, st)`
once per puzzle of a collection at a limit, nothing else between two calls but building the
state. Run under valgrind's callgrind with collection toggled on the kernel's entry, the
numba import and the compilation are left out of the counts:

    NUMBA_CPU_NAME=skylake NUMBA_CPU_FEATURES=+bmi2 python benchmarks/band_calls.py main
    NUMBA_CPU_NAME=skylake NUMBA_CPU_FEATURES=+bmi2 valgrind --tool=callgrind \\
        --collect-atstart=no --toggle-collect='*native_band*search*' \\
        python benchmarks/band_calls.py main --collection top95 --limit 1

(valgrind does not run AVX-512 code: name a CPU without it.) Where the toggle collects nothing
(the kernel's machine code loaded without symbols), collect from the start instead: the kernel
is then the one unnamed object (`???:0x...`) in `callgrind_annotate`'s list, its Ir the count.
Prints the puzzles, the calls' nodes and the numba CPU name and features the kernel was
compiled for.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from native_versions import export


def main() -> None:
    """Solve a collection's puzzles with one revision's band kernel, one call each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--collection", default="top95")
    parser.add_argument("--limit", type=int, default=1)
    args = parser.parse_args()
    name = export(args.revision)
    band = importlib.import_module(f"{name}.solvers.native_band")
    layout = importlib.import_module(f"{name}.solvers.native_band_layout")
    formats = importlib.import_module(f"{name}.formats")
    from numba.core import config

    work = np.zeros(layout.work_size(1), dtype=np.int64)
    work[layout.TABLE_AT : layout.ROWS_AT].view(np.int32)[: layout.TABLE_SIZE] = band.band_tables()
    records = formats.read_puzzles(formats.collection_path(args.collection))
    digits = [r.puzzle.digit_bytes() for r in records]
    nodes = 0
    for given in digits:
        st = band.state(given, 1, args.limit, 10**9, False)
        band.search(work, st)
        nodes += int(st[band.NODES])
    cpu = config.CPU_NAME or "host"
    print(f"{len(digits)} puzzles, {nodes} nodes; numba CPU {cpu}, features {config.CPU_FEATURES}")


if __name__ == "__main__":
    main()
