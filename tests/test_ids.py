"""Puzzle ids round-trip: every id a command prints selects exactly that puzzle when given
back, in every command that reads puzzles, and a selection that selects nothing is one line
on stderr and exit code 2 everywhere.

Sources: a shipped collection, a file with comments and blank lines (so puzzle numbers and
line numbers differ) in the working directory and in another one, a file of blocks, stdin.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, cli, collection

#: The commands that read PUZZLE|FILE|- (compare has its own test below).
READERS = ("solve", "count", "check", "show", "rate", "cnf")
#: Puzzles that rate accepts (unique), written with comments between them.
UNIQUE = [str(r.puzzle) for r in collection("top95", 3)]


def ids_of(*args: str, cwd: Path, stdin: str | None = None) -> list[tuple[str, str]]:
    """(id, puzzle) of every puzzle `check --json` reads from `args`."""
    done = cli("check", *args, "--json", cwd=cwd, stdin=stdin)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    shown = [json.loads(line) for line in cli("show", *args, "--json", cwd=cwd, stdin=stdin)
             .stdout.splitlines()]  # fmt: skip
    assert [r["id"] for r in rows] == [s["id"] for s in shown]
    return [(s["id"], s["puzzle"]) for s in shown]


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "mine.txt").write_text(
        "# three puzzles, a comment and a blank line between them\n\n"
        + f"{UNIQUE[0]}\n# hard\n{UNIQUE[1]}\n\n{UNIQUE[2]}\n"
    )
    rows = [UNIQUE[1][9 * r : 9 * r + 9] for r in range(9)]
    (tmp_path / "blocks.txt").write_text("Grid 01\n" + "\n".join(rows) + "\nGrid 02\n"
                                         + "\n".join(rows) + "\n")  # fmt: skip
    (tmp_path / "sub").mkdir()
    return tmp_path


@pytest.mark.parametrize("source", ["top95:..3", "mine.txt", "blocks.txt", "sub/../mine.txt"])
def test_every_printed_id_selects_that_puzzle_again(files, source):
    printed = ids_of(source, cwd=files)
    assert len(printed) in (2, 3)
    for puzzle_id, line in printed:
        [(again, back)] = ids_of(puzzle_id, cwd=files)
        assert (again, back) == (puzzle_id, line)


def test_file_ids_count_puzzles_not_lines(files):
    assert [i for i, _ in ids_of("mine.txt", cwd=files)] == [
        "mine.txt:1",
        "mine.txt:2",
        "mine.txt:3",
    ]
    assert [i for i, _ in ids_of("mine.txt:2-", cwd=files)] == ["mine.txt:2", "mine.txt:3"]
    outside = files / "sub"
    printed = ids_of(str(files / "mine.txt:3"), cwd=outside)
    assert printed == [(f"{files / 'mine.txt'}:3", UNIQUE[2])]  # outside: the path as given


def test_stdin_ids_select_from_stdin_again(files):
    text = "\n".join(UNIQUE) + "\n"
    printed = ids_of("-", cwd=files, stdin=text)
    assert [i for i, _ in printed] == ["stdin:1", "stdin:2", "stdin:3"]
    for puzzle_id, line in printed:
        assert ids_of(puzzle_id, cwd=files, stdin=text) == [(puzzle_id, line)]


@pytest.mark.parametrize("command", READERS)
@pytest.mark.parametrize("selection", ["top95:96-", "top95:96", "top95:100-101", "stdin:4"])
def test_an_empty_selection_is_one_line_and_exit_2(command, selection):
    done = cli(command, selection, stdin="\n".join(UNIQUE) + "\n")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "selects no puzzle" in done.stderr and "Traceback" not in done.stderr


def test_an_argument_id_no_run_holds_says_to_give_the_puzzle_itself(tmp_path):
    done = cli("solve", "argument:2", cwd=tmp_path)
    assert done.returncode == 2 and "give the puzzle itself" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", READERS)
def test_argument_ids_select_their_puzzle_again_from_the_results_database(tmp_path, command):
    """`compare P1 P2` prints `argument:1`, `argument:2` and stores them in sudokubench.sqlite
    (its default database); given back in that folder, each selects its own puzzle, and an
    id no run holds is refused."""
    done = cli("compare", TELEGRAM, MULTIPLE, "-b", "fast", "--json", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = [r["puzzle_id"] for r in json.loads(done.stdout)["results"]]
    assert printed == ["argument:1", "argument:2"]
    assert ids_of("argument:2", cwd=tmp_path) == [("argument:2", MULTIPLE)]
    assert ids_of("argument:1", cwd=tmp_path) == [("argument:1", TELEGRAM)]
    again = cli(command, "argument:2", cwd=tmp_path)
    if command == "rate":  # rate accepts unique puzzles only: the 28-solution one is refused
        assert again.returncode == 2 and "solutions" in again.stderr, again.stderr
    else:
        assert again.returncode == 0, again.stderr
    missing = cli(command, "argument:3", cwd=tmp_path)
    assert missing.returncode == 2 and "no run in sudokubench.sqlite" in missing.stderr


def test_compare_ids_select_the_puzzles_again(tmp_path):
    db = tmp_path / "r.sqlite"
    done = cli(
        "compare", "showcase:20-", "-b", "fast", "--db", str(db), "--json", "-q", cwd=tmp_path
    )
    assert done.returncode in (0, 1), done.stderr  # (the showcase has invalid puzzles: exit 1)
    results = json.loads(done.stdout)["results"]
    assert [r["puzzle_id"] for r in results] == ["showcase:20"]
    [(again, line)] = ids_of(results[0]["puzzle_id"], cwd=tmp_path)
    assert (again, line) == ("showcase:20", str(collection("showcase")[19].puzzle))
    done = cli("compare", "showcase:27-27", "-b", "fast", "--db", str(db), cwd=tmp_path)
    assert done.returncode == 2 and "selects no puzzle (showcase holds 20" in done.stderr


def test_several_puzzles_written_out_are_numbered_by_their_position(tmp_path):
    done = cli("compare", TELEGRAM, MULTIPLE, "-b", "fast", "--db", str(tmp_path / "r.sqlite"),
               "--json", "-q")  # fmt: skip
    assert [r["puzzle_id"] for r in json.loads(done.stdout)["results"]] == [
        "argument:1", "argument:2"
    ]  # fmt: skip


def test_a_run_stored_with_line_ids_resumes_and_reports_with_them(tmp_path):
    """A database written before ids counted puzzles: its run's arguments say `top95:2` (then:
    the first two) and its ids are lines (`top95.txt:1`); resume and report read both as
    stored, never again from the collection."""
    from sudokubench.harness import CompareArgs, compare
    from sudokubench.harness.report import build_report
    from sudokubench.harness.store import PuzzleRow, Store

    args = CompareArgs(files=("top95:2",), backends=("fast",), timeout=10, baseline="fast")
    rows = [
        PuzzleRow(f"top95.txt:{k}", k - 1, "top95", str(r.puzzle), None, None, None)
        for k, r in enumerate(collection("top95", 2), 1)
    ]
    with Store(tmp_path / "old.sqlite") as store:
        run_id = store.new_run(args.to_json(), {"backends": {"fast": "0"}})
        store.add_puzzles(run_id, rows)
        store.set_status(run_id, "interrupted")
    report = compare(args, db=tmp_path / "old.sqlite", resume=run_id)
    assert [p.puzzle_id for p in report.puzzles] == ["top95.txt:1", "top95.txt:2"]
    assert report.ok and report.summary[0].solved == 2
    with Store(tmp_path / "old.sqlite", create=False) as store:
        again = build_report(store, run_id)
    assert set(again.verdicts) == {"top95.txt:1", "top95.txt:2"}
