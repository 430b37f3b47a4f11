"""Puzzles by name (shipped collections and subsets) and bad input, through the real command.

Every case runs the `sudokubench` script installed next to this interpreter in a fresh process,
as a user would, and checks the exact answer, or one line on stderr and exit code 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, collection

from sudokubench.catalog import Subset, find_collection, list_collections, resolve_input
from sudokubench.grid import Grid, GridFormatError, is_solution

SCRIPT = Path(sys.executable).with_name("sudokubench")
ROOT = Path(__file__).resolve().parent.parent
#: The commands that read puzzles (compare reads them through the harness).
READERS = ("solve", "count", "check", "show", "rate")


def run(*args: str, stdin: str | bytes | None = "", env: dict[str, str] | None = None, **kw):
    """The real command in a fresh process: (exit code, stdout, stderr)."""
    done = subprocess.run(
        [str(SCRIPT), *args],
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        timeout=120,
        env=env,
        **kw,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def assert_one_line_error(code: int, out: str, err: str, fragment: str) -> None:
    assert code == 2, (code, out, err)
    assert err.startswith("sudokubench: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and fragment in err, err


# -- collections by name ----------------------------------------------------------------------


def test_every_listed_count_is_the_number_of_puzzles_in_the_file():
    stated = {c.name: c.puzzles for c in list_collections()}
    counted = {c.name: c.puzzles for c in list_collections(count=True)}
    assert stated == counted
    assert stated["top95"] == 95 and stated["hardest"] == 11 and stated["17clue"] == 49158


def test_collections_command_lists_names_counts_and_provenance():
    code, out, _ = run("collections", "--json")
    rows = {row["name"]: row for row in map(json.loads, out.splitlines())}
    assert code == 0
    assert rows["top95"]["puzzles"] == 95 and "Norvig" in rows["top95"]["description"]
    assert "sudoku-solver-go" in rows["hardest"]["source"]
    assert rows["showcase"]["puzzles"] == 20
    code, out, _ = run("collections")
    assert code == 0 and any(line.split()[:2] == ["17clue", "49,158"] for line in out.splitlines())


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [("20", 20, 20), ("..20", 1, 20), ("1-20", 1, 20), ("90-", 90, None), ("5-5", 5, 5)],
)
def test_subset_syntax(text, first, last):
    assert Subset.parse(text) == Subset(first, last)


@pytest.mark.parametrize("text", ["0", "5-3", "0-2", "a", "1-2-3", "..0", "..", "1..3", "9" * 30])
def test_bad_subsets_are_refused(text):
    with pytest.raises(GridFormatError, match="selection"):
        Subset.parse(text)


def test_a_subset_is_those_puzzles_of_the_file_with_their_ids():
    whole = collection("top95")
    assert list(resolve_input("top95:3-5").records()) == whole[2:5]
    assert list(resolve_input("top95:4").records()) == whole[3:4]
    assert list(resolve_input("top95:..4").records()) == whole[:4]
    assert list(resolve_input("top95:94-").records()) == whole[93:]
    path = str(find_collection("top95"))
    from_file = list(resolve_input(f"{path}:2-3").records())
    assert [r.puzzle for r in from_file] == [r.puzzle for r in whole[1:3]]
    assert [r.id for r in from_file] == [f"{os.path.relpath(path)}:{k}" for k in (2, 3)]


def test_resolve_input_tells_the_argument_kinds_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_input("-").kind == "stdin"
    assert resolve_input("top95").kind == "collection"
    assert resolve_input(TELEGRAM).kind == "puzzle"
    assert resolve_input(TELEGRAM + ":1").kind == "puzzle"
    (tmp_path / "top95").write_text(MULTIPLE + "\n")  # a file wins over a collection's name
    source = resolve_input("top95")
    assert source.kind == "file" and [str(r.puzzle) for r in source.records()] == [MULTIPLE]


def test_commands_take_collection_names_and_subsets():
    code, out, err = run("count", "hardest:2-3", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0, err
    assert [r["id"] for r in rows] == ["hardest:2", "hardest:3"]
    assert [(r["count"], r["exhaustive"]) for r in rows] == [(1, True), (1, True)]
    for row, record in zip(rows, collection("hardest")[1:3], strict=True):
        assert is_solution(Grid.parse(row["solutions"][0]), record.puzzle)
    code, out, _ = run("solve", "course:..2", "-f", "line")  # "multiple": the first solution
    assert code == 0 and len(out.split()) == 2
    code, out, _ = run("show", "shidoku4x4:9", "-f", "line")
    assert code == 0 and out.split() == [".2.....42......3"]
    code, out, _ = run("check", "top95:1")
    assert code == 0 and out.startswith("top95:1: valid")
    code, out, _ = run("rate", "easy50:1", "--json")
    assert code == 0 and json.loads(out.splitlines()[0])["id"] == "easy50:1"


def test_a_misspelt_name_lists_the_collections():
    code, out, err = run("count", "top9")
    assert_one_line_error(code, out, err, "no shipped collection")
    assert "did you mean top95" in err
    code, out, err = run("count", "zzzz")
    assert_one_line_error(code, out, err, "no shipped collection")
    assert "collections: 17clue," in err


def test_collections_work_from_a_wheel_install_outside_the_repository(tmp_path):
    """The collections and SOURCES.md ship in the wheel; names work from any directory."""
    site = tmp_path / "site"
    site.mkdir()
    for path in (ROOT / "sudokubench").rglob("*.py"):
        target = site / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    shipped = site / "sudokubench" / "puzzles"
    shipped.mkdir()
    for name in ("hardest.txt", "SOURCES.md", "top95.txt"):  # as the wheel's force-include does
        (shipped / name).write_bytes((ROOT / "puzzles" / name).read_bytes())

    def installed(*args: str) -> subprocess.CompletedProcess[str]:
        probe = f"import sys; sys.path.insert(0, {str(site)!r}); sys.argv[0] = 'sudokubench'; "
        probe += "from sudokubench.cli import main; main()"
        return subprocess.run(
            [sys.executable, "-I", "-c", probe, *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )

    done = installed("collections", "--json")
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["name"], r["puzzles"]) for r in rows] == [("hardest", 11), ("top95", 95)]
    assert rows[0]["source"].startswith("ojizosan/sudoku-solver-go")
    # compare reads a collection by name there too, in worker processes of that install
    done = installed("compare", "top95:2-3", "-b", "fast", "--db", "r.sqlite", "--json", "-q")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert [r["puzzle_id"] for r in results] == ["top95:2", "top95:3"]
    for result, record in zip(results, collection("top95")[1:3], strict=True):
        assert is_solution(Grid.parse(result["solutions"][0]), record.puzzle)


# -- compare reads its inputs as every other command does -----------------------------------


def compare_json(*args: str, stdin: str = "", cwd: Path | None = None) -> dict:
    code, out, err = run("compare", *args, "-b", "fast", "--json", "-q", stdin=stdin, cwd=cwd)
    assert code == 0, err
    return json.loads(out)


def test_compare_takes_collections_stdin_puzzles_and_files_with_traceable_ids(tmp_path):
    hardest = collection("hardest")
    (tmp_path / "mine.txt").write_text(f"# two puzzles\n\n{TELEGRAM}\n{MULTIPLE}:28\n")
    stdin = "".join(f"{r.puzzle}\n" for r in hardest[4:6])
    data = compare_json(
        "top95:1-3", "-", str(hardest[0].puzzle), "mine.txt", stdin=stdin, cwd=tmp_path
    )
    ids = [r["puzzle_id"] for r in data["results"]]
    assert ids == [
        "top95:1", "top95:2", "top95:3", "stdin:1", "stdin:2", "argument",
        "mine.txt:1", "mine.txt:2",
    ]  # fmt: skip
    puzzles = [*collection("top95")[:3], *hardest[4:6], hardest[0], None, None]
    for result, record in zip(data["results"], puzzles, strict=True):
        if record is not None:
            assert is_solution(Grid.parse(result["solutions"][0]), record.puzzle), result
    assert data["results"][-1]["verdict"] == ">=2"  # MULTIPLE, annotated 28: agreed, not exact
    assert data["ok"] and data["puzzles"] == 8
    # the stored arguments name what was read: the file made absolute, the rest as given
    assert data["args"]["files"] == [
        "top95:1-3",
        "-",
        str(hardest[0].puzzle),
        str((tmp_path / "mine.txt").resolve()),
    ]


def test_compare_numbers_several_puzzles_written_out_by_their_position():
    data = compare_json("top95:1", TELEGRAM, MULTIPLE)
    assert [r["puzzle_id"] for r in data["results"]] == ["top95:1", "argument:2", "argument:3"]
    assert data["results"][1]["solutions"] == [TELEGRAM_SOLUTION]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["top9"], "no shipped collection"),
        (["-", "-"], "stdin (-) can be read only once"),
        (["top95:1-3", "top95:3-4"], "two inputs give the puzzle id top95:3"),
        (["top95:0"], "selection"),
        (["top95:96-"], "top95:96-: selects no puzzle (top95 holds 95"),
        ([TELEGRAM[:80] + "A"], "unexpected character 'A'"),
    ],
)
def test_compare_refuses_bad_inputs_in_one_line(tmp_path, args, fragment):
    db = tmp_path / "r.sqlite"
    code, out, err = run("compare", *args, "-b", "fast", "--db", str(db), stdin=TELEGRAM + "\n")
    assert_one_line_error(code, out, err, fragment)
    assert not db.exists()


# -- bad input: one line and exit code 2 ------------------------------------------------------


@pytest.mark.parametrize("command", READERS)
@pytest.mark.parametrize(
    ("suffix", "fragment"),
    [(":²", "the count '²' is not a whole number"), (":" + "7" * 5000, "the count has 5,000")],
)
def test_a_bad_count_annotation_is_one_line(command, suffix, fragment):
    assert_one_line_error(*run(command, TELEGRAM + suffix), fragment)


@pytest.mark.parametrize("command", READERS)
def test_a_bad_count_in_a_file_is_one_line(command, tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(f"{TELEGRAM}:1\n{TELEGRAM}:{'9' * 5000}\n")
    code, _, err = run(command, str(path))
    assert code == 2 and "p.txt:2: the count has 5,000 digits" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", READERS)
def test_closed_stdin_is_one_line(command):
    done = subprocess.run(
        [str(SCRIPT), command, "-"], stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert done.returncode == 2 and "no puzzles" in done.stderr
    # `sudokubench solve - <&-`: started with no file descriptor 0 at all
    done = subprocess.run(
        ["/bin/sh", "-c", f'exec "$0" {command} - <&-', str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert_one_line_error(done.returncode, done.stdout, done.stderr, "stdin: closed")


def test_an_80_symbol_puzzle_with_a_letter_says_what_is_wrong():
    code, out, err = run("solve", TELEGRAM[:80] + "A")
    assert_one_line_error(code, out, err, "column 81 (r9c9): unexpected character 'A'")
    assert "no such file" not in err


def test_the_documented_json_puzzle_form_is_read():
    code, out, err = run("count", json.dumps({"puzzle": MULTIPLE}), "--json")
    assert code == 0, err
    assert (json.loads(out)["count"], json.loads(out)["exhaustive"]) == (28, True)
    code, out, err = run("count", "-", "--json", stdin=json.dumps({"puzzle": MULTIPLE}) + "\n")
    assert code == 0 and json.loads(out)["count"] == 28, err


def test_a_byte_order_mark_on_stdin_is_read_like_in_files():
    code, out, err = run("count", "-", "--json", stdin=b"\xef\xbb\xbf" + MULTIPLE.encode() + b"\n")
    assert code == 0 and json.loads(out)["count"] == 28, err


def test_a_long_numeric_token_is_an_error_not_cells():
    row = " ".join(["0"] * 15 + ["12345678901234567890"])  # 16 tokens of a 16x16 row...
    block = "\n".join([" ".join(["0"] * 15 + ["10"])] * 15 + [row])
    code, out, err = run("show", block)
    assert_one_line_error(code, out, err, "value 12345678901234567890 is more than 16")
    # ...and the same grid with a real digit there reads as 256 cells
    code, out, _ = run("show", block.replace("12345678901234567890", "11"), "-f", "line")
    assert code == 0 and len(out.strip()) == 256


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["generate", "--box", "1x1"], "--box RxC needs 2 <= R <= C"),
        (["generate", "--size", "9", "--box", "2x2"], "--size 9 and --box 2x2 disagree"),
        (["solve", TELEGRAM, "--box", "3x2"], "write 2x3"),
        (["solve", TELEGRAM, "--box", "3by3"], "expected RxC"),
    ],
)
def test_box_shapes_say_the_rule(args, fragment):
    assert_one_line_error(*run(*args), fragment)


def test_version():
    from sudokubench import __version__

    code, out, _ = run("--version")
    assert (code, out) == (0, f"sudokubench {__version__}\n")


PLUGINS = {
    "plug_raises_on_import": "raise RuntimeError('the plug-in is broken')\n",
    "plug_imports_missing": "import no_such_dependency_xyz\n",
    "plug_available_raises": textwrap.dedent(
        """
        from sudokubench.solvers.fast import Fast

        class Solver(Fast):
            name = "available-raises"

            def available(self):
                raise OSError("licence server unreachable")

        solver = Solver()
        """
    ),
}


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("fast,plug_raises_on_import:x", "RuntimeError: the plug-in is broken"),
        ("fast,plug_imports_missing:x", "No module named 'no_such_dependency_xyz'"),
        ("fast,plug_available_raises:solver", "OSError: licence server unreachable"),
        ("fast,badmod:x", "no module named 'badmod'"),
    ],
)
def test_a_broken_plugin_is_one_line_with_its_real_error(tmp_path, spec, fragment):
    for name, text in PLUGINS.items():
        (tmp_path / f"{name}.py").write_text(text)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    assert_one_line_error(*run("count", TELEGRAM, "-b", spec, env=env), fragment)
