"""`compare`'s path from an input file to its stored puzzle rows: `formats.read_texts` (a
regular file's plain lines read in chunks, each chunk checked and put in canonical form at once)
gives what `read_puzzles` gives, with the same ids, collections and errors, and the puzzles
table `compare` stores from it holds what the record-by-record path stored."""

from __future__ import annotations

import gzip
import itertools
import os
import sqlite3
import threading
from pathlib import Path

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION

from sudokubench import formats
from sudokubench.catalog import resolve_input
from sudokubench.errors import GridFormatError
from sudokubench.formats import collection_path, read_puzzles, read_texts
from sudokubench.harness.plan import CompareArgs, load_puzzle_lists, load_puzzles
from sudokubench.harness.records import PuzzleRow
from sudokubench.harness.schema import INDEXES, SCHEMA
from sudokubench.harness.store import Store
from sudokubench.shape import Shape

#: The first puzzles of 17clue, as its lines.
LINES = [str(r.puzzle) for r in itertools.islice(read_puzzles(collection_path("17clue")), 600)]


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    """Chunks of 2,000 characters (about 24 lines), halved down to 4 lines: every file here
    spans many chunks, and a chunk with one odd line is split around it."""
    monkeypatch.setattr(formats, "CHUNK", 2000)
    monkeypatch.setattr(formats, "_FEWEST", 4)


def _records(path: Path, **kwargs) -> list[tuple]:
    """What `read_puzzles` reads, in `read_texts`' form (the error's text when it fails)."""
    try:
        return [
            (
                r.id,
                r.collection or "stem",
                str(r.puzzle),
                r.expected_count,
                None if r.expected_solution is None else str(r.expected_solution),
            )
            for r in read_puzzles(path, **kwargs)
        ]
    except GridFormatError as exc:
        return [str(exc)]


def _texts(path: Path, **kwargs) -> list[tuple]:
    try:
        return [t for found in read_texts(path, collection="stem", **kwargs) for t in found]
    except GridFormatError as exc:
        return [str(exc)]


def _with(lines: list[str], at: int, line: str) -> str:
    return "\n".join([*lines[:at], line, *lines[at:]]) + "\n"


CASES = {
    "plain": "\n".join(LINES) + "\n",
    "no last newline": "\n".join(LINES),
    "crlf": "\r\n".join(LINES) + "\r\n",
    "cr": "\r".join(LINES) + "\r",
    "zeros and lower case": "\n".join(x.replace(".", "0") for x in LINES) + "\n",
    "a comment": _with(LINES, 300, "# a comment"),
    "sections": "# collection: a\n" + _with(LINES, 200, "# collection: b"),
    "a blank line": _with(LINES, 250, ""),
    "spaces": _with(LINES, 99, f"  {TELEGRAM} "),
    "a tab": _with(LINES, 99, f"\t{TELEGRAM}"),
    "annotated": _with(LINES, 400, f"{MULTIPLE}:28"),
    "annotated with a solution": _with(LINES, 40, f"{TELEGRAM}:1:{TELEGRAM_SOLUTION}"),
    "a 4x4 line": _with(LINES, 350, "1234341221434321"),
    "16x16 lines": "\n".join(["0a0b0c0d0e0f0g00" * 16] * 300) + "\n",
    "a bad character": _with(LINES, 500, TELEGRAM[:40] + "x" + TELEGRAM[41:]),
    "a bad count": _with(LINES, 500, f"{TELEGRAM}:one"),
    "non-ASCII": _with(LINES, 321, "é" * 81),
    "a long line": _with(LINES, 450, "1" * (formats.MAX_LINE + 5)),
    "a line of MAX_LINE": _with(LINES, 450, "1" * formats.MAX_LINE),
    "a line of MAX_LINE - 1": _with(LINES, 450, "1" * (formats.MAX_LINE - 1)),
    "a long last line": "\n".join([*LINES, "1" * formats.MAX_LINE]),
    "a 100-line puzzle": _with(LINES, 10, "1" * 9999),
}


@pytest.mark.parametrize("text", CASES.values(), ids=list(CASES))
def test_read_texts_reads_what_read_puzzles_reads(tmp_path, text):
    path = tmp_path / "p.txt"
    path.write_text(text, encoding="utf-8", newline="")
    expected = _records(path)
    assert _texts(path) == expected
    assert len(expected) > 1 or expected[0].startswith("p.txt:")  # (puzzles, or a located error)
    gz = tmp_path / "p.txt.gz"
    gz.write_bytes(gzip.compress(text.encode("utf-8")))
    assert _texts(gz) == _records(gz)


def test_the_errors_are_the_line_readers(tmp_path):
    """Errors name the line, as the line reader does (a few by their exact text)."""
    cases = {
        "a bad character": "p.txt:501: column 41 (r5c5): unexpected character 'x'",
        "a long line": "p.txt:451: line longer than 100,000 characters",
        "a line of MAX_LINE": "p.txt:451: line longer than 100,000 characters",
        "a bad count": "p.txt:501: the count 'one' is not a whole number",
    }
    for case, message in cases.items():
        path = tmp_path / "p.txt"
        path.write_text(CASES[case], encoding="utf-8")
        (found,) = _texts(path)
        assert found.startswith(message), found


def test_shapes_given_and_chunks_of_plain_lines(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(CASES["plain"], encoding="utf-8")
    assert _texts(path, shape=Shape.parse("3x3")) == _records(path, shape=Shape.parse("3x3"))
    wrong = _texts(path, shape=Shape.parse("2x2"))
    assert wrong == _records(path, shape=Shape.parse("2x2")) and "expected 16 cells" in wrong[0]
    # the plain lines come as chunks of many puzzles, not one list a puzzle
    lists = list(read_texts(path))
    assert 1 < len(lists) < len(LINES) // 10
    assert [t[0] for t in lists[-1]][-1] == f"{path}:{len(LINES)}"


def test_a_selection_of_lists_is_a_selection_of_records(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(CASES["a comment"], encoding="utf-8")
    for subset in ("1", "7", "..1", "..30", "24-25", "24-48", "299-301", "590-", "600", "3-599"):
        source = resolve_input(f"{path}:{subset}")
        expected = [
            (r.id, r.collection or "p", str(r.puzzle), r.expected_count, None)
            for r in source.records()
        ]
        assert [t for found in source.texts(None, "p") for t in found] == expected, subset
    with pytest.raises(GridFormatError, match=r"selects no puzzle \(.* holds 600"):
        list(resolve_input(f"{path}:601-").texts())


def test_a_pipe_is_read_a_line_at_a_time(tmp_path):
    """A FIFO (or stdin) is not a regular file: its lines are taken one by one, as written."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as out:
            out.write(CASES["plain"])

    writer = threading.Thread(target=write)
    writer.start()
    lists = list(read_texts(fifo))
    writer.join()
    assert all(len(found) == 1 for found in lists) and len(lists) == len(LINES)
    assert lists[0][0][2] == LINES[0]


def _reference_table(args: CompareArgs, db: Path) -> list[tuple]:
    """The puzzles table as the record-by-record path stored it: each record of
    `Source.records` made a row (`str` of its grids, its collection or the file's stem), its
    values bound one row a statement."""
    rows = [(1, *row) for row in load_puzzles_by_record(args)]
    with sqlite3.connect(db) as conn:
        conn.executescript(SCHEMA + INDEXES)
        conn.execute("INSERT INTO runs (started, status, args, machine) VALUES ('', '', '', '')")
        conn.executemany("INSERT OR IGNORE INTO puzzles VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return _table(db)


def load_puzzles_by_record(args: CompareArgs) -> list[PuzzleRow]:
    """The rows `load_puzzles` made before it read lists: one record at a time."""
    from sudokubench.harness.plan import input_sources

    rows = []
    shape = Shape.parse(args.box) if args.box else None
    for source in input_sources(args):
        stem = source.label.rpartition("/")[2].removesuffix(".gz").removesuffix(".txt")
        for r in source.records(shape):
            solution = None if r.expected_solution is None else str(r.expected_solution)
            rows.append(
                PuzzleRow(
                    r.id,
                    len(rows),
                    r.collection or stem,
                    str(r.puzzle),
                    args.box,
                    r.expected_count,
                    solution,
                )
            )
    return rows


def _table(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT run_id, puzzle_id, position, collection, puzzle, box, expected_count, "
            "expected_solution, typeof(box), typeof(expected_count), typeof(expected_solution) "
            "FROM puzzles ORDER BY rowid"
        ).fetchall()


@pytest.mark.parametrize(
    "files",
    [
        ("17clue:..1000",),
        ("top95", "hardest"),
        ("showcase",),
        ("kaggle9999:..300",),
        ("hexadoku1500:1-40",),
        ("top95:3", "top95:5-9"),
        (TELEGRAM,),
    ],
    ids=str,
)
def test_the_stored_puzzles_are_the_same(tmp_path, files):
    args = CompareArgs(files=files, backends=("fast",))
    with Store(tmp_path / "new.sqlite") as store:
        run_id = store.new_run({}, {}, lists=load_puzzle_lists(args))
    assert run_id == 1
    stored = _table(tmp_path / "new.sqlite")
    assert stored == _reference_table(args, tmp_path / "old.sqlite")
    assert len(stored) == sum(1 for _ in load_puzzles(args)) > 0


def test_a_file_with_sections_and_odd_lines_is_stored_the_same(tmp_path):
    path = tmp_path / "mixed.txt"
    text = "# collection: first\n" + "\n".join(LINES[:250]) + "\n# collection: second\n"
    text += "\n".join([*LINES[250:], f"{MULTIPLE}:28", f"{TELEGRAM}:1:{TELEGRAM_SOLUTION}"]) + "\n"
    path.write_text(text, encoding="utf-8")
    args = CompareArgs(files=(str(path), "top95:1-3"), backends=("fast",), box="3x3")
    with Store(tmp_path / "new.sqlite") as store:
        store.new_run({}, {}, lists=load_puzzle_lists(args))
    stored = _table(tmp_path / "new.sqlite")
    assert stored == _reference_table(args, tmp_path / "old.sqlite")
    assert {row[3] for row in stored} == {"first", "second", "top95"}
    assert len(stored) == len(LINES) + 2 + 3


def test_puzzles_stored_a_row_at_a_time_or_in_lists_are_the_same(tmp_path):
    """`new_run`'s rows and lists (of any lengths, across statements) store the same table."""
    rows = load_puzzles_by_record(CompareArgs(files=("showcase", "top95"), backends=("fast",)))
    with Store(tmp_path / "rows.sqlite") as store:
        store.new_run({}, {}, rows)
    cuts = [0, 1, 2, 5, 100, 101, 115]
    lists = [rows[a:b] for a, b in itertools.pairwise([*cuts, len(rows)])]
    with Store(tmp_path / "lists.sqlite") as store:
        store.new_run({}, {}, lists=lists)
    assert _table(tmp_path / "rows.sqlite") == _table(tmp_path / "lists.sqlite")
    assert len(_table(tmp_path / "rows.sqlite")) == len(rows) == 115
