"""The errors that mean "bad input", at the bottom of the package so every layer can raise them.

Library code raises a member of the `InputError` family with a message about the input (never
about a command-line flag); the CLI turns any of them into one line on stderr and exit code 2,
without looking at which member it is. They are `ValueError`s, as the older ones always were.

- `GridFormatError`: text that cannot be read as a grid.
- `InvalidPuzzleError`: a well-formed grid that breaks a rule the caller relies on.
- `UnknownBackendError`: a backend name nothing resolves, or one not available here.
- `StoreError`: a results database that cannot be used (missing, another schema, no such run).
- `ArgumentError`: an argument out of its range or inconsistent with another one.
- `ClusterError`: a cluster that cannot be reached or cannot run the requested backends.

`ClusterLost` is not bad input: a cluster that went away in the middle of a run (exit 3).
"""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "ClusterError",
    "ClusterLost",
    "GridFormatError",
    "InputError",
    "InvalidPuzzleError",
    "StoreError",
    "UnknownBackendError",
]


class InputError(ValueError):
    """Input the caller gave that cannot be used; the message says what and where."""


class GridFormatError(InputError):
    """Text that cannot be read as a grid; the message says what and where."""


class InvalidPuzzleError(InputError):
    """A well-formed grid that breaks a rule the caller relies on (e.g. a digit out of range)."""


class UnknownBackendError(InputError):
    """A backend name that neither the registry, an entry point nor an import resolves."""


class StoreError(InputError):
    """A results database that cannot be used as asked."""


class ArgumentError(InputError):
    """An argument out of its range, or inconsistent with another one."""


class ClusterError(InputError):
    """A cluster that cannot be reached, has no workers, or lacks a backend on some worker."""


class ClusterLost(Exception):
    """The cluster went away in the middle of a run (its scheduler lost): the tasks that
    finished are stored, the rest can be resumed; the message says what was lost."""
