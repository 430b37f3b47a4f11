"""Typer's check of an option's value, without pydantic where its answer is known beforehand.

The Typer this package runs on (0.2x) checks every parameter's value, defaults included,
through a pydantic `TypeAdapter` built on first use (`typer/_coercion.py`'s
`build_runtime_param`); importing pydantic and building the adapters of one `compare` took
0.17-0.20 s of the command's CPU, before any work. `install(params)` gives each parameter of a
plain type a checker of its own (`_Plain`, one of Typer's `RuntimeParam`s) that answers the
usual values itself, exactly as pydantic would:

- `str`: a string as it is (Typer's adapter makes `str(value)` of a string); `bool`: a
  `bool` (Typer skips the check of a flag's `bool`, but builds the checker of a flag whose
  value is None, as `--help`'s is when not given: `install_help`);
- `int`: an `int` (not a `bool`) in the parameter's range, or a string of 1-18 ASCII digits
  whose value is in it;
- `float`: a finite `float` in range, or a string of ASCII digits with an optional fraction
  (`2`, `0.05`, `10.`: no sign, exponent, space or `_`) whose value is in range;
- `pathlib.Path` without a `path_type`: a `Path`, or a string made one (`Path(value)`, as
  pydantic does), then Typer's own `coerce_cli_path` (its checks of existence and access);
- `list[str]` (an argument of several values): a list or tuple of strings, as a list.

Anything else (a sign, an exponent, a value out of range, `clamp`, a parser, an enum, any
other type) and any exception goes to Typer's own checker, built then as before: every error
message and every other value is Typer's. `tests/test_cli_start.py` compares the two on each
parameter type of the app. Typer's `RuntimeParam` and `_runtime_param` are private: when this
Typer lacks them, `install` does nothing and Typer checks every value itself.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

__all__ = ["install", "install_help"]

_DIGITS = frozenset("0123456789")

try:  # (private to Typer: absent, every value is checked by Typer as it always was)
    from dataclasses import dataclass

    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # pragma: no cover - another Typer
    RuntimeParam = None  # type: ignore[assignment,misc]


def _number(value: Any, kind: type, info: Any) -> Any:
    """`value` as an `int`/`float` in `info`'s range, or None when Typer must answer."""
    if isinstance(value, str):
        if not value.isascii() or not 0 < len(value) <= 18:
            return None
        whole, dot, fraction = value.partition(".")
        if not whole or not _DIGITS.issuperset(whole) or not _DIGITS.issuperset(fraction):
            return None
        if dot and kind is int:
            return None
        got = kind(value)
    elif type(value) is kind and (kind is int or math.isfinite(value)):
        got = value
    else:
        return None
    if (info.min is not None and got < info.min) or (info.max is not None and got > info.max):
        return None
    return got


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class _Plain(RuntimeParam):  # type: ignore[misc,valid-type]
        """Typer's `RuntimeParam` for a plain type: the usual values answered here, the rest
        (and every error) by the checker Typer would have built (`build_runtime_param`)."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                got = self._quick(value, param, ctx)
            except Exception:  # (Typer's own checker words every error)
                got = None
            if got is None:
                typer_own = build_runtime_param(param.type_descriptor)
                return typer_own._coerce_value(value, param=param, ctx=ctx)
            return got

        def _quick(self, value: Any, param: Any, ctx: Any) -> Any:
            kind, info = self.annotation, self.parameter_info
            if kind is str or kind is bool:
                return value if type(value) is kind else None
            if kind is int or kind is float:
                return _number(value, kind, info)
            if kind is Path:
                if type(value) is str:
                    value = Path(value)
                if not isinstance(value, Path):
                    return None
                return coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)
            if kind == list[str] and isinstance(value, (list, tuple)):
                return list(value) if all(type(v) is str for v in value) else None
            return None


def _plain(descriptor: Any) -> bool:
    """Whether a parameter's type is one `_Plain` answers (else Typer's checker alone)."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None or info.parser is not None or info.clamp:
        return False
    kind = descriptor.annotation
    if kind is Path:
        return getattr(info, "path_type", None) is None
    return kind in (str, int, float, bool) or kind == list[str]


def install(params: Any) -> None:
    """Give each of Typer's `params` of a plain type the checker above (see the module)."""
    if RuntimeParam is None:
        return
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if (
            descriptor is None
            or getattr(param, "_runtime_param", False) is not None
            or not hasattr(param, "get_runtime_param")
            or not _plain(descriptor)
        ):
            continue
        param._runtime_param = _Plain(
            annotation=descriptor.annotation, parameter_info=descriptor.parameter_info
        )


def install_help(command: Any) -> None:
    """`install` for the `--help` option of `command` (a Click command or group), which Click
    makes on first use (`get_help_option`, from the context's option names): the command's
    own method is wrapped to install the option it returns."""
    if RuntimeParam is None or not callable(getattr(command, "get_help_option", None)):
        return
    made = command.get_help_option

    def get_help_option(ctx: Any) -> Any:
        option = made(ctx)
        if option is not None:
            install((option,))
        return option

    command.get_help_option = get_help_option
