"""The command's start and end: option values of plain types checked without pydantic
(`cli/coerce.py`), exactly as Typer's own (pydantic) checker answers them, the same value or
the same error; and the command's exit (`cli._before_exit`)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("typer._coercion")

import typer.main
from typer._click import Context
from typer._coercion import build_runtime_param

from sudokubench.cli import load_app
from sudokubench.cli.coerce import _Plain

ROOT = Path(__file__).resolve().parent.parent

NUMBERS: list[Any] = [
    "0", "1", "2", "4", "007", "256", "257", "1000000", "1000000.5", "999999.99",
    "-1", "+5", " 5", "5 ", "1_0", "5.0", "10.", ".5", "0.05", "0.001", "0.0009", "0.1",
    "0.09", "007.50", "1e3", "nan", "inf", "-0.5", "", ".", "abc", "9" * 18, "9" * 19,
    "\u0663", "\uff15", 0, 1, 2, 257, -3, 2.0, 0.5, 1e7, True, False, math.nan, math.inf,
]  # fmt: skip
TEXTS: list[Any] = ["x", "", "all", "\udcff", "a\x00b", " a ", 5, 2.5, b"x", True]
FLAGS: list[Any] = [True, False, "true", "1", "", 0, 1]
PATHS: list[Any] = ["x.sqlite", "", "a//b", "./x/", "\udcff", 5, Path("y"), Path()]
LISTS: list[Any] = [("a", "b"), ["a"], (), ("a", 5), ("\udcff",), "ab", 5]


def outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    """The value checked, or the error's kind and message."""
    try:
        got = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as exc:
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        return "error", (type(exc).__name__, message)
    if isinstance(got, float) and math.isnan(got):
        return "nan", None
    return "value", (type(got), got)


def params() -> list[tuple[str, Any, Any]]:
    """Every parameter of every command of the app, with a context of its command."""
    group = typer.main.get_command(load_app())
    found = []
    for name, command in group.commands.items():
        ctx = Context(command, info_name=name)
        for param in [*command.params, command.get_help_option(ctx)]:
            found.append((f"{name} {param.name}", param, ctx))
    return found


def candidates(annotation: Any) -> list[Any]:
    if annotation in (int, float):
        return NUMBERS
    if annotation is bool:
        return FLAGS
    if annotation is Path:
        return [*PATHS, str(ROOT), str(ROOT / "pyproject.toml"), ROOT]
    if annotation == list[str]:
        return LISTS
    return TEXTS


def test_plain_parameters_answer_as_typer_does(tmp_path):
    checked = 0
    kinds = set()
    for label, param, ctx in params():
        runtime = param.get_runtime_param()
        if not isinstance(runtime, _Plain):
            continue
        kinds.add((param.type_descriptor.annotation, param.type_descriptor.parameter_info.min))
        typer_own = build_runtime_param(param.type_descriptor)
        assert not isinstance(typer_own, _Plain)
        for value in [None, *candidates(param.type_descriptor.annotation)]:
            want = outcome(typer_own, value, param, ctx)
            got = outcome(runtime, value, param, ctx)
            assert got == want, (label, value)
            checked += 1
    # every plain type of the app is answered here: str, int, float, bool, Path, list[str]
    annotations = {kind for kind, _ in kinds}
    assert {str, int, float, bool, Path} <= annotations
    assert any(kind == list[str] for kind in annotations)
    assert checked > 1000


def test_compare_checks_every_option_without_pydantic(tmp_path):
    """A whole `compare` (options of each type given, and defaults) imports no pydantic, and
    a bad value still gets Typer's (pydantic's) message."""
    code = (
        "import sys\n"
        "from sudokubench.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as exit:\n"
        "    print(exit.code, 'pydantic' in sys.modules)\n"
    )
    argv = ["compare", "top95:..2", "-b", "fast", "--jobs", "1", "-t", "5", "-n", "2"]
    argv += ["--par", "3", "--db", str(tmp_path / "x.sqlite"), "-q", "-f", "table"]
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.splitlines()[-1] == "0 False", done.stderr
    bad = subprocess.run(
        [sys.executable, "-c", code, *argv[:-2], "--jobs", "x1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.stdout.splitlines()[-1] == "2 True"
    assert bad.stderr.strip().splitlines() == [
        "sudokubench: error: Invalid value for '--jobs' / '-j': Input should be a valid "
        "integer, unable to parse string as an integer"
    ]


def test_the_command_ends_with_its_objects_frozen(tmp_path):
    """`sudokubench` (`main()` reading the process's command line) collects its garbage once at
    exit, finalizers run, then freezes what is left for Python's own end; `main(argv)` called
    by a program leaves its process's collector alone. The run is stored and closed all the
    same."""
    code = (
        "import atexit, gc, sys\n"
        "class Loud:\n"
        "    def __del__(self):\n"
        "        print('finalized', flush=True)\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count() > 0, flush=True))\n"
        "loud = Loud(); loud.me = loud; del loud\n"
        "from sudokubench.cli import main\n"
        "args = sys.argv[1:]\n"
        "if args[0] == 'given':\n"
        "    main(args[1:])\n"
        "sys.argv = ['sudokubench', *args[1:]]\n"
        "main()\n"
    )
    for how, frozen in (("given", "False"), ("read", "True")):
        db = tmp_path / f"{how}.sqlite"
        argv = [how, "compare", "top95:..3", "-b", "fast,dlx", "-q", "--db", str(db)]
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[-1] == f"frozen {frozen}"
        assert lines[-2] == f"stored as run 1 in {db}"
        assert lines.count("finalized") == 1  # (before the freeze, or by Python's end)
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(how)) == [db.name]
