"""The backend registry: one ordered table, resolved lazily.

`REGISTRY` maps a backend's base name to `"module:Class"` and its variants; the first variant
is the default, so `pycosat` means `pycosat:optimized`. A class with variants takes the variant
as its one constructor argument. A backend whose variants depend on the machine (the solvers
an installed `minizinc` lists) names a `discover` function, `"module:function"` returning the
variant names found here; those join the declared ones, which are listed even when missing so
that `sudokubench backends` can say how to install them. Nothing is imported until a backend
is asked for, so a missing optional package only makes that backend unavailable.

Users add backends without editing this table:

- an installed distribution's entry point in the group `sudokubench.backends`
  (`name = "module:attr"`),
- `module:attr` naming a Backend class, a Backend instance or a plain function
  puzzle -> solution (None for no solution) (`external.py`),
- `exec:COMMAND`: a program in any language, one puzzle a line on stdin, one solution a line
  (or `0`/`none`) on stdout (`program.py`),
- `lib:PATH[:SYMBOL]`: a function with tdoku's C ABI in a shared library (`lib.py`).
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from sudokubench.errors import UnknownBackendError

if TYPE_CHECKING:  # (not imported here: `pool.boot` reads the table before the backend's
    # modules, to start the fork server sooner)
    from sudokubench.backend import Backend

__all__ = ["REGISTRY", "Entry", "UnknownBackendError", "backend_names", "get_backend"]

ENTRY_POINT_GROUP = "sudokubench.backends"


@dataclass(frozen=True)
class Entry:
    """One row of the registry: where the class lives and its variants (first = default).

    `discover`, when set, is a `"module:function"` returning the variants found at run time.
    """

    target: str
    variants: tuple[str, ...] = ()
    discover: str = ""

    def all_variants(self) -> tuple[str, ...]:
        """The declared variants, then those discovered here (each once)."""
        if not self.discover:
            return self.variants
        found = _load(self.discover)()  # type: ignore[operator]
        return self.variants + tuple(v for v in found if v not in self.variants)


REGISTRY: dict[str, Entry] = {
    "backtracking": Entry("sudokubench.solvers.backtracking:Backtracking"),
    "propagation": Entry("sudokubench.solvers.propagation:Propagation"),
    "fast": Entry("sudokubench.solvers.fast:Fast"),
    "native": Entry("sudokubench.solvers.native:Native"),
    "norvig": Entry("sudokubench.solvers.norvig:Norvig"),
    "dlx": Entry("sudokubench.solvers.dlx:DancingLinks"),
    "cpsat": Entry("sudokubench.solvers.cpsat:CpSat", ("integer", "boolean")),
    "pycosat": Entry(
        "sudokubench.solvers.pycosat_backend:Pycosat", ("optimized", "minimal", "extended")
    ),
    "pysat": Entry(
        "sudokubench.solvers.pysat_backend:PySat",
        ("minisat22", "cadical195", "glucose4", "lingeling", "maplechrono", "minicard"),
    ),
    "constraint": Entry(
        "sudokubench.solvers.constraint_backend:Constraint",
        ("backtracking", "optimized", "recursive"),
    ),
    "clingo": Entry("sudokubench.solvers.clingo_backend:Clingo"),
    "z3": Entry("sudokubench.solvers.z3_backend:Z3"),
    "highs": Entry("sudokubench.solvers.highs_backend:Highs"),
    "scip": Entry("sudokubench.solvers.scip:Scip"),
    "choco": Entry("sudokubench.solvers.choco:Choco"),
    "minizinc": Entry(
        "sudokubench.solvers.minizinc:MiniZinc",
        ("gecode",),
        discover="sudokubench.solvers.minizinc:discover",
    ),
}

#: The backend `solve` and `count` use when none is named.
DEFAULT_BACKEND = "fast"


def _load(target: str) -> object:
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # a plug-in's import may raise anything: say what, in one line
        detail = str(exc) if isinstance(exc, ImportError) else f"{type(exc).__name__}: {exc}"
        raise UnknownBackendError(
            f"backend {target!r}: cannot import {module_name}: {detail}"
        ) from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise UnknownBackendError(f"backend {target!r}: {module_name} has no {attr!r}") from None


def backend_names(*, variants: bool = True) -> list[str]:
    """Registered backend names in table order, each variant spelled `name:variant`."""
    names: list[str] = []
    for base, entry in REGISTRY.items():
        if entry.variants and variants:
            names.extend(f"{base}:{v}" for v in entry.all_variants())
        else:
            names.append(f"{base}:{entry.variants[0]}" if entry.variants else base)
    from importlib import metadata  # here: the package metadata costs 15 ms to import

    names.extend(sorted(ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)))
    return names


def canonical_name(name: str) -> str:
    """`pycosat` -> `pycosat:optimized`; other names unchanged."""
    entry = REGISTRY.get(name)
    return f"{name}:{entry.variants[0]}" if entry and entry.variants else name


@cache
def get_backend(name: str) -> Backend:
    """The backend called `name`: registry name, entry point, `module:attr`, `exec:COMMAND` or
    `lib:PATH[:SYMBOL]`."""
    base, _, variant = name.partition(":")
    if base in REGISTRY:
        entry = REGISTRY[base]
        if variant and variant not in entry.variants and variant not in entry.all_variants():
            known = ", ".join(entry.all_variants()) or "none"
            raise UnknownBackendError(
                f"backend {base!r} has no variant {variant!r} (known: {known})"
            )
        cls = _load(entry.target)
        return cls(variant or entry.variants[0]) if entry.variants else cls()  # type: ignore[operator]
    if base == "exec":
        from sudokubench.solvers.program import ExecBackend

        return ExecBackend(variant)
    if base == "lib":
        from sudokubench.solvers.lib import LibBackend

        return LibBackend(variant)
    from importlib import metadata

    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            from sudokubench.solvers.external import adapt

            try:
                loaded = ep.load()
            except Exception as exc:
                raise UnknownBackendError(
                    f"backend {name!r}: cannot load entry point {ep.value}: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            return adapt(loaded, name)
    known = ", ".join(backend_names(variants=False))
    if variant:  # module:attr; the import error says what is wrong (a typo, a broken plug-in)
        from sudokubench.solvers.external import adapt

        try:
            target = _load(name)
        except UnknownBackendError as exc:
            missing = isinstance(exc.__cause__, ModuleNotFoundError) and exc.__cause__.name == base
            if missing and "." not in base:  # most likely a misspelt backend name
                raise UnknownBackendError(
                    f"unknown backend {name!r}{_did_you_mean(name)} "
                    f"(known: {known}; or module:attr, exec:CMD, lib:PATH): "
                    f"no module named {base!r}"
                ) from None
            raise
        return adapt(target, name)
    raise UnknownBackendError(
        f"unknown backend {name!r}{_did_you_mean(name)} "
        f"(known: {known}; or module:attr, exec:CMD, lib:PATH)"
    )


def _did_you_mean(name: str) -> str:
    """`; did you mean fast?` for a misspelt name (difflib's closest registered names)."""
    import difflib

    close = difflib.get_close_matches(name, backend_names(), n=3, cutoff=0.6)
    return f": did you mean {' or '.join(close)}?" if close else ""
