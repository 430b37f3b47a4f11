"""Where the band kernel's time goes, instruction by instruction: a driver for `perf record`.

Loads a revision's `native_band` (exported as `benchmarks/native_versions.py` does), then solves
a collection's puzzles with the kernel's compiled `search`, one call a puzzle, pass after pass
for `--seconds` of CPU, and writes the machine code of `search` (`--code`, raw bytes from its
address) and that address beside it (`CODE.address`). The kernel is machine code loaded without
symbols, so perf's samples in it are addresses in no object; `--report` maps them back:

    perf record -e cpu-clock -F 5000 -o perf.data \\
        python benchmarks/band_profile.py main --collection top1465 --limit 2 --seconds 15
    python benchmarks/band_profile.py --report perf.data > annotated.txt

The report (needs `perf` and `objdump`) prints the share of the samples that fell in `search`
and, for each instruction of its code, its offset, its share of those samples and its text;
a summary by 256-byte range first. Which range is which step of the kernel is read off the
instructions (a `pext` then a table load: the triads' reduction; `vpopcntd`: the row and box
singles; ...).
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import importlib
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from native_versions import export

CODE_BYTES = 40_000


def run(args: argparse.Namespace) -> None:
    """Solve the collection for `args.seconds` of CPU after writing `search`'s code."""
    name = export(args.revision)
    band = importlib.import_module(f"{name}.solvers.native_band")
    layout = importlib.import_module(f"{name}.solvers.native_band_layout")
    formats = importlib.import_module(f"{name}.formats")
    work = np.zeros(layout.work_size(1), dtype=np.int64)
    table = work[layout.TABLE_AT : layout.ROWS_AT].view(np.int32)
    table[: layout.TABLE_SIZE] = band.band_tables()
    records = formats.read_puzzles(formats.collection_path(args.collection))
    states = [band.state(r.puzzle.digit_bytes(), 1, args.limit, 10**9, False) for r in records]
    band.search(work, states[0].copy())  # compiled or loaded from numba's cache
    compiled = band.search.overloads[band.search.signatures[0]]
    address = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
    code = Path(args.code)
    code.write_bytes(ctypes.string_at(address, CODE_BYTES))
    Path(f"{code}.address").write_text(hex(address))
    start = time.process_time()
    nodes = passes = 0
    while time.process_time() - start < args.seconds:
        for st in states:
            st = st.copy()
            band.search(work, st)
            nodes += int(st[band.NODES])
        passes += 1
    print(f"{passes} passes, {nodes} nodes; search at {hex(address)}", file=sys.stderr)


def report(args: argparse.Namespace) -> None:
    """Map the samples of `args.report` (a perf.data) to the instructions of `search`."""
    base = int(Path(f"{args.code}.address").read_text(), 16)
    samples = subprocess.run(
        ["perf", "script", "-i", args.report, "-F", "ip"], capture_output=True, text=True
    ).stdout.split()
    hits: collections.Counter[int] = collections.Counter()
    for ip in samples:
        offset = int(ip, 16) - base
        if 0 <= offset < CODE_BYTES:
            hits[offset] += 1
    inside = sum(hits.values())
    print(f"{inside} of {len(samples)} samples in search ({100 * inside / len(samples):.1f}%)")
    ranges: collections.Counter[int] = collections.Counter()
    for offset, count in hits.items():
        ranges[offset // 256] += count
    for k in sorted(ranges):
        print(f"range {256 * k:#6x}: {100 * ranges[k] / inside:5.1f}%")
    listing = subprocess.run(
        ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", args.code],
        capture_output=True,
        text=True,
    ).stdout
    last = max(hits, default=0)
    for line in listing.splitlines():
        found = re.match(r"\s+([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
        if found:
            offset = int(found.group(1), 16)
            if offset > last:
                break
            print(f"{offset:6x} {100 * hits.get(offset, 0) / inside:6.2f} {found.group(2)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", nargs="?")
    parser.add_argument("--collection", default="top1465")
    parser.add_argument("--limit", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--code", default="band_search.bin", help="search's machine code")
    parser.add_argument("--report", help="a perf.data of a run to map onto the code")
    args = parser.parse_args()
    if args.report:
        report(args)
    elif args.revision:
        run(args)
    else:
        parser.error("a revision to run, or --report PERF_DATA")


if __name__ == "__main__":
    main()
