"""Commands that list what this installation has: `backends` (every registered backend, whether
it is ready here, its version and declared capabilities; `--warm` compiles the native kernel)
and `collections` (the shipped puzzle collections with their counts and provenance)."""

from __future__ import annotations

from typing import Annotated

import typer

from sudokubench.cli.app import app, emit_json
from sudokubench.cli.options import TABLE_FORMATS, JsonOpt, TableFormatOpt, examples, pick_format
from sudokubench.solvers import DEFAULT_BACKEND, backend_names, get_backend

__all__ = ["backends", "collections_command"]


@app.command(epilog=examples("sudokubench backends", "sudokubench backends --json"))
def backends(
    fmt: TableFormatOpt = "table",
    as_json: JsonOpt = False,
    warm: Annotated[
        bool,
        typer.Option("--warm", help="First compile or load the native backend's machine code."),
    ] = False,
) -> None:
    """List the registered backends: available here?, version, capabilities."""
    as_json = pick_format(fmt, as_json, TABLE_FORMATS) == "json"
    from sudokubench.cli.native import ready_native, warm_native

    if warm:
        warm_native(quiet=as_json)
    else:
        ready_native()  # (available() below would compile it unannounced)
    rows = []
    for name in backend_names():
        found = get_backend(name)
        available = found.available()
        rows.append(
            {
                "name": name,
                "available": available,
                "version": found.version() if available else None,
                "practical_n": getattr(found, "practical_n", None),
                "handles_hard": getattr(found, "handles_hard", None),
                "note": "" if available else found.unavailable_reason(),
            }
        )
    if as_json:
        for row in rows:
            emit_json(row)
        return
    width = max(len(r["name"]) for r in rows)
    print(f"{'backend':<{width}}  {'ready':<5}  {'version':<10}  {'max N':>5}  hard 9x9")
    for r in rows:
        ready = "yes" if r["available"] else "no"
        hard = {True: "yes", False: "no", None: "?"}[r["handles_hard"]]
        line = (
            f"{r['name']:<{width}}  {ready:<5}  {r['version'] or '-':<10}  "
            f"{r['practical_n'] or '?':>5}  {hard}"
        )
        print(line + (f"  ({r['note']})" if r["note"] else ""))
    print(f"\ndefault: {DEFAULT_BACKEND}")


@app.command(
    "collections",
    epilog=examples("sudokubench collections", "sudokubench collections --json"),
)
def collections_command(fmt: TableFormatOpt = "table", as_json: JsonOpt = False) -> None:
    """List the shipped collections: name, puzzles, what it is and where it came from.

    Any command that reads puzzles takes a name (`top95`) or a selection: `top95:7` (puzzle 7),
    `top95:1-20`, `top95:90-` (to the end), `17clue:..1000` (the first 1,000).
    """
    as_json = pick_format(fmt, as_json, TABLE_FORMATS) == "json"
    from sudokubench.catalog import list_collections

    found = list_collections()
    if as_json:
        for c in found:
            emit_json(
                {
                    "name": c.name,
                    "puzzles": c.puzzles,
                    "file": c.path.name,
                    "description": c.description,
                    "source": c.source,
                }
            )
        return
    width = max(len(c.name) for c in found)
    print(f"{'name':<{width}}  {'puzzles':>7}  what it is (source)")
    for c in found:
        about = c.description + (f" ({c.source})" if c.source else "")
        print(f"{c.name:<{width}}  {c.puzzles:>7,}  {about or '-'}")
    print("\nuse a name wherever a file goes: `sudokubench count top95:1-20` (puzzles 1 to 20)")
