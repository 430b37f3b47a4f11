"""The everyday commands: solve, count, check, show, backends; exit codes and bad input."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_backends import WrongCount, WrongSolution
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, collection, pattern_solution

from sudokubench.cli import basic, main
from sudokubench.formats import collection_path, format_pretty, format_tokens, parse_grid
from sudokubench.grid import Grid, Shape, is_solution
from sudokubench.solvers import DEFAULT_BACKEND, backend_names, get_backend

BT = ("--backend", "backtracking")
JSON_KEYS = {"status", "count", "exhaustive", "solutions", "backend", "time_s"}


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run `sudokubench ARGS` in-process: (exit code, stdout, stderr)."""

    def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        with pytest.raises(SystemExit) as info:
            main([str(a) for a in args])
        out, err = capsys.readouterr()
        return info.value.code, out, err

    return run


def puzzles_by_size() -> dict[str, Grid]:
    """A real puzzle of each size the issue names: 4x4, 6x6, 9x9, 16x16."""
    six = pattern_solution(Shape(2, 3))
    return {
        "4x4": collection("shidoku4x4", 1)[0].puzzle,
        "6x6": Grid(six.shape, tuple(0 if k % 3 else d for k, d in enumerate(six))),
        "9x9": Grid.parse(TELEGRAM),
        "16x16": collection("hexadoku1500", 1)[0].puzzle,
    }


PUZZLES = puzzles_by_size()


# -- solve ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", sorted(PUZZLES))
@pytest.mark.parametrize("given_as", ["line", "block", "tokens", "file", "stdin"])
def test_solve_every_size_given_every_way(cli, tmp_path, size, given_as):
    puzzle = PUZZLES[size]
    text = {"block": format_pretty, "tokens": format_tokens}.get(given_as, str)(puzzle)
    if given_as == "file":
        path = tmp_path / "p.txt"
        path.write_text(text + "\n")
        code, out, _ = cli("solve", path, "-f", "line")
    elif given_as == "stdin":
        code, out, _ = cli("solve", "-", "-f", "line", stdin=text + "\n")
    else:
        code, out, _ = cli("solve", text)  # the default backend, pretty output
    assert code == 0
    assert is_solution(parse_grid(out), puzzle)


def test_solve_prints_the_unique_solution_as_a_pretty_grid(cli):
    code, out, err = cli("solve", TELEGRAM, *BT)
    assert (code, err) == (0, "")
    assert out == format_pretty(Grid.parse(TELEGRAM_SOLUTION)) + "\n"


def test_solve_all_prints_28_distinct_valid_grids(cli):
    code, out, _ = cli("solve", MULTIPLE, *BT, "--all")
    assert code == 0
    parts = re.split(r"^Solution #(\d+)\n", out, flags=re.MULTILINE)
    numbers = [int(n) for n in parts[1::2]]
    assert numbers == list(range(1, 29))
    grids = [parse_grid(block.split("\n\n")[0]) for block in parts[2::2]]
    assert len(set(grids)) == 28
    assert all(is_solution(g, Grid.parse(MULTIPLE)) for g in grids)
    assert out.rstrip().endswith("28 solutions (all found)")


def test_solve_limit_and_json(cli):
    code, out, _ = cli("solve", MULTIPLE, *BT, "--limit", "3", "-f", "json")
    data = json.loads(out)
    assert code == 0 and set(data) >= JSON_KEYS
    assert (data["status"], data["count"], data["exhaustive"]) == ("solved", 3, False)


def test_solve_without_solution_exits_1_and_says_why(cli):
    conflict = "5" + TELEGRAM[1:]  # a second 5 in column 1
    code, out, err = cli("solve", conflict, *BT)
    assert code == 1 and out == ""
    assert "no solution: 5 twice in column 1: r1c1, r9c1" in err
    record = collection("shidoku4x4", 9)[8]
    code, out, err = cli("solve", str(record.puzzle), *BT, "-f", "line")
    assert (code, out.strip()) == (1, "none") and "no solution" in err


def test_solve_a_file_prints_each_puzzle_under_its_id(cli, tmp_path):
    path = tmp_path / "two.txt"
    path.write_text(f"{TELEGRAM}\n{TELEGRAM}\n")
    code, out, _ = cli("solve", path, *BT)
    assert code == 0
    assert out.count(f"# {path}:") == 2 and out.count("8 1 9 | 3 4 2 | 5 6 7") == 2


def test_a_complete_grid_with_a_repeated_digit_is_never_solved(cli):
    broken = "5" + TELEGRAM_SOLUTION[1:]  # row 1 has two 5s
    code, out, err = cli("check", broken)
    assert code == 1 and "not valid: 5 twice in row 1: r1c1, r1c7" in out
    assert "solved" not in out
    code, out, err = cli("solve", broken, *BT)
    assert code == 1 and out == "" and "no solution" in err
    code, out, _ = cli("count", broken, *BT)
    assert (code, out.strip()) == (0, "no solution")


# -- count ----------------------------------------------------------------------------------


def test_count_multiple_json_reports_28_exhaustive(cli):
    code, out, _ = cli("count", MULTIPLE, "--limit", "100", "--json", *BT)
    data = json.loads(out)
    assert code == 0 and set(data) == JSON_KEYS | {"id"}
    assert (data["status"], data["count"], data["exhaustive"]) == ("solved", 28, True)
    assert data["backend"] == "backtracking" and data["time_s"] >= 0
    assert len(set(data["solutions"])) == 28


def test_count_texts(cli):
    assert cli("count", MULTIPLE, *BT)[1] == "28 solutions\n"
    assert cli("count", TELEGRAM, *BT)[1] == "1 solution\n"
    assert cli("count", MULTIPLE, *BT, "-n", "5")[1] == (
        "at least 5 solutions (stopped at --limit 5)\n"
    )


def test_count_every_backend_side_by_side(cli):
    code, out, _ = cli("count", MULTIPLE, "--backend", "all", "--limit", "300")
    assert code == 0
    for name in backend_names():
        assert re.search(rf"^  {re.escape(name)} +=28 ", out, re.MULTILINE), name
    assert "agree: =28" in out


def test_the_agree_line_says_what_its_number_is(cli):
    _, out, _ = cli("count", MULTIPLE, "-b", "fast,dlx")
    assert "  agree: =28 (exactly 28 solutions)\n" in out
    _, out, _ = cli("count", MULTIPLE, "-b", "fast,dlx", "-n", "5")  # each stops at 5
    bound = re.search(r"agree: >=(\d+) \(at least (\d+) solutions: the (\d+) different ones", out)
    assert bound and len(set(bound.groups())) == 1 and int(bound[1]) >= 5, out


def test_count_checks_the_files_expected_answers(cli, tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(f"{MULTIPLE}:28\n{TELEGRAM}:1:{TELEGRAM_SOLUTION}\n")
    bad.write_text(f"{MULTIPLE}:27\n")
    code, out, _ = cli("count", good, *BT)
    assert code == 0 and out == f"{good}:1: 28 solutions\n{good}:2: 1 solution\n"  # ids: path:K
    code, out, _ = cli("count", bad, *BT)
    assert code == 1 and "DISAGREE" in out and "=27 (expected)" in out


def test_wrong_answers_are_caught(cli, monkeypatch):
    """A backend's wrong solution fails `solve`; a wrong count makes `count` disagree."""
    monkeypatch.setattr(basic, "resolve_backend", lambda name: WrongSolution())
    code, out, err = cli("solve", TELEGRAM)
    assert code == 1 and "WRONG: solution #1 of fake_backends:WrongSolution" in err
    honest = get_backend("backtracking")
    monkeypatch.setattr(basic, "resolve_backends", lambda spec: [honest, WrongCount()])
    code, out, _ = cli("count", MULTIPLE, "--backend", "both")
    assert code == 1
    assert "DISAGREE: =27 (fake_backends:WrongCount) vs =28 (backtracking)" in out


# -- check, show, backends ------------------------------------------------------------------


def test_check_says_why_a_puzzle_is_invalid(cli):
    puzzle = "." + "5" + "...." + "5" + "." * 74  # r1c2 and r1c7
    code, out, _ = cli("check", puzzle)
    assert code == 1
    assert out == "argument: not valid: 5 twice in row 1: r1c2, r1c7\n"


def test_check_a_valid_puzzle_and_a_solution(cli):
    assert cli("check", TELEGRAM) == (0, "argument: valid: 33 givens, no repeated digit\n", "")
    code, out, _ = cli("check", TELEGRAM, "--solution", TELEGRAM_SOLUTION)
    assert code == 0 and "the solution is a solution" in out
    swapped = TELEGRAM_SOLUTION.translate(str.maketrans("12", "21"))
    code, out, _ = cli("check", TELEGRAM, "--solution", swapped)
    assert code == 1 and "is not a solution: r4c2 is 1 but the puzzle gives 2" in out


def test_check_a_file_with_solutions(cli):
    code, out, _ = cli("check", collection_file("course"), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["is_solution"] for r in rows] == [True, None]


def collection_file(name: str) -> str:
    """The path of a shipped collection, as a command-line argument."""
    return str(collection_path(name))


def test_show_forms_read_back(cli):
    for form in ("pretty", "line", "tokens", "json"):
        code, out, _ = cli("show", TELEGRAM, "-f", form)
        assert code == 0 and parse_grid(out) == Grid.parse(TELEGRAM), form
    code, out, _ = cli("show", TELEGRAM, "--candidates")
    assert code == 0 and out.split()[:3] == ["8", "14", "9"]


def test_backends_lists_the_registry(cli):
    code, out, _ = cli("backends")
    assert code == 0 and f"default: {DEFAULT_BACKEND}" in out
    for name in backend_names():
        assert re.search(rf"^{re.escape(name)} ", out, re.MULTILINE)
    rows = [json.loads(line) for line in cli("backends", "--json")[1].splitlines()]
    assert [r["name"] for r in rows] == backend_names()


# -- bad input and usage: one line on stderr, exit 2 ----------------------------------------


def bad_files(tmp_path):
    """name -> (argument, expected fragment of the message)."""
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "binary.dat").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (tmp_path / "nocol.csv").write_text("id,level\n1,2\n")
    (tmp_path / "big.txt").write_text("1" * 10_000_000)
    (tmp_path / "dir").mkdir()
    return {
        "empty file": (tmp_path / "empty.txt", "no puzzles"),
        "binary file": (tmp_path / "binary.dat", "not a text file"),
        "csv without puzzle column": (tmp_path / "nocol.csv", "no puzzle column"),
        "10 MB line": (tmp_path / "big.txt", "line longer than"),
        "missing file": (tmp_path / "missing.txt", "no such file"),
        "directory": (tmp_path / "dir", "is a directory"),
    }


BAD_ARGS = {
    "wrong length": (["solve", TELEGRAM[:-1]], "80 cells is not the size of a grid"),
    "unknown character": (["solve", TELEGRAM[:16] + "?" + TELEGRAM[17:]], "column 17"),
    "value > N": (["solve", "1 2 3 10" + " 0" * 12], "value 10 is more than 4"),
    "50 cells": (["count", "1" * 50], "50 cells"),
    "bad box": (["solve", TELEGRAM, "--box", "3x2"], "--box 3x2: --box RxC needs 2 <= R <= C"),
    "box mismatch": (["solve", TELEGRAM, "--box", "2x3"], "expected 36 cells"),
    "unknown backend": (["solve", TELEGRAM, "--backend", "nope"], "unknown backend 'nope'"),
    "unknown option": (["solve", TELEGRAM, "--bogus"], "No such option"),
    "missing argument": (["solve"], "Missing argument"),
    "bad limit": (["count", TELEGRAM, "--limit", "0"], "--limit"),
    "bad format": (["solve", TELEGRAM, "-f", "html"], "--format"),
    "all and limit": (["solve", TELEGRAM, "--all", "--limit", "2"], "exclude each other"),
    "bad solution": (["check", TELEGRAM, "--solution", "123"], "--solution"),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGS))
def test_bad_arguments_exit_2_with_one_line(cli, case):
    args, fragment = BAD_ARGS[case]
    code, out, err = cli(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("sudokubench: error: ")
    assert fragment in err


@pytest.mark.parametrize(
    "case",
    [
        "empty file",
        "binary file",
        "csv without puzzle column",
        "10 MB line",
        "missing file",
        "directory",
    ],
)
def test_bad_files_exit_2_with_one_line(cli, tmp_path, case):
    path, fragment = bad_files(tmp_path)[case]
    for command in ("solve", "count", "check", "show"):
        code, out, err = cli(command, path, *(BT if command in ("solve", "count") else ()))
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and fragment in err, (command, err)


def test_no_traceback_from_the_real_command():
    """End to end in a fresh process: bad stdin and a bad option, one line each, exit 2."""
    for args, stdin in ((["solve", "-"], "9" * 10_000_000), (["count", "--nope", "x"], "")):
        done = subprocess.run(
            [sys.executable, "-m", "sudokubench", *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


SCRIPT = str(Path(sys.executable).with_name("sudokubench"))


def test_the_done_criterion_through_the_installed_script():
    done = subprocess.run(
        [SCRIPT, "count", MULTIPLE, "--limit", "100", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    data = json.loads(done.stdout)
    assert (done.returncode, data["count"], data["exhaustive"]) == (0, 28, True)


def test_the_script_module_imports_nothing_heavy():
    # the `sudokubench` script is run again as the main module of every compare worker
    code = "import sys, sudokubench.cli; print(sorted({'typer', 'rich'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
