"""Whether two revisions of `native` search the same tree on 9x9 collections.

Each puzzle is solved by both revisions through `backend.solve` at each limit; the status,
count, solutions and every stat (`nodes`, `guesses`, `backtracks`, `max_depth`,
`hidden_singles`, `locked_eliminations`) must be identical. Prints the totals per file and
limit; exits non-zero at the first difference. The revisions are exported as
`benchmarks/native_versions.py` does (`sb_<commit>`, numba's cache kept between runs).

    python benchmarks/band_same.py main HEAD
    python benchmarks/band_same.py main HEAD --collections top95,hardest --limits 1
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from native_versions import export

FILES = "top95,top1465,17clue,hardest"


def main() -> None:
    """Solve every puzzle with both revisions; compare."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("other")
    parser.add_argument("--collections", default=FILES)
    parser.add_argument("--limits", default="1,2")
    args = parser.parse_args()
    versions = []
    for revision in (args.base, args.other):
        name = export(revision)
        native = importlib.import_module(f"{name}.solvers.native")
        native.warm()
        grid = importlib.import_module(f"{name}.grid")
        versions.append((native.Native(), grid.Grid))
    formats = importlib.import_module(f"{export(args.base)}.formats")
    for collection in args.collections.split(","):
        lines = [str(r.puzzle) for r in formats.read_puzzles(formats.collection_path(collection))]
        for limit in map(int, args.limits.split(",")):
            totals: dict[str, int] = {}
            for line in lines:
                seen = []
                for backend, grid in versions:
                    r = backend.solve(grid.parse(line), limit=limit)
                    seen.append(
                        (r.status.name, r.count, [str(g) for g in r.solutions], dict(r.stats))
                    )
                if seen[0] != seen[1]:
                    sys.exit(f"{collection} limit {limit}: {line}\n{seen[0]}\n{seen[1]}")
                for key, value in seen[0][3].items():
                    if isinstance(value, int):
                        totals[key] = totals.get(key, 0) + value
            shown = ", ".join(f"{k} {v:,}" for k, v in sorted(totals.items()))
            print(f"{collection} ({len(lines):,}) limit {limit}: identical; {shown}", flush=True)


if __name__ == "__main__":
    main()
