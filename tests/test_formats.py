"""Reading and writing grids and puzzle files: every form at every size, and every bad input."""

from __future__ import annotations

import gzip
import io
import itertools
import random
import subprocess
import sys
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION, Stopwatch, pattern_solution

from sudokubench.formats import (
    FORMATS,
    MAX_LINE,
    collection_path,
    format_candidates,
    format_line,
    format_pretty,
    format_tokens,
    parse_grid,
    parse_record,
    puzzles_dir,
    read_puzzles,
)
from sudokubench.grid import SHAPES, Grid, GridFormatError, Shape, is_solution

TELEGRAM_BLOCK = """\
8 . 9 | . . . | . . 7
. . . | 5 . 9 | . . .
. 3 5 | . 7 . | 8 9 .
------+-------+------
. 2 . | 7 . 8 | . 1 .
7 . . | . . . | . . 2
. 6 . | 1 . 5 | 4 7 .
------+-------+------
. 9 7 | 8 5 4 | 2 3 .
. . . | 9 . 6 | 7 . .
5 . . | . . . | . . 6"""


@st.composite
def grids(draw: st.DrawFn) -> Grid:
    """Any grid of a first-class shape: digits 0..N anywhere (validity is not the point here)."""
    shape = draw(st.sampled_from(SHAPES))
    cells = draw(st.lists(st.integers(0, shape.n), min_size=shape.cells, max_size=shape.cells))
    return Grid(shape, tuple(cells))


def some_grids(shape: Shape, count: int = 3, seed: int = 1) -> list[Grid]:
    """Puzzles of a shape: a valid solution with about half the cells blanked."""
    rng = random.Random(seed)
    solution = pattern_solution(shape)
    return [
        Grid(shape, tuple(d if rng.random() < 0.5 else 0 for d in solution)) for _ in range(count)
    ]


# -- one grid -------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(grids(), st.sampled_from(sorted(FORMATS)))
def test_every_output_form_reads_back(grid, form):
    text = FORMATS[form](grid)
    assert parse_grid(text) == grid
    assert parse_grid(text, grid.shape) == grid


@settings(max_examples=60, deadline=None)
@given(grids(), st.sampled_from(list("0_-*")), st.booleans())
def test_line_form_accepts_every_blank_and_lower_case(grid, blank, lower):
    text = format_line(grid).replace(".", blank)
    assert parse_grid(text.lower() if lower else text) == grid


def test_the_block_styles_all_read_the_same_grid():
    g = Grid.parse(TELEGRAM)
    rows = [TELEGRAM[i : i + 9] for i in range(0, 81, 9)]
    euler = "Grid 01\n" + "\n".join(r.replace(".", "0") for r in rows)
    sdk = "#A someone\n#D a comment\n[Puzzle]\n" + "\n".join(rows)
    simple = "\n".join(
        ("-----------\n" if i in (3, 6) else "") + f"{r[:3]}|{r[3:6]}|{r[6:]}"
        for i, r in enumerate(rows)
    )
    spaced = "\n".join(" ".join(r) for r in rows)
    for text in (TELEGRAM_BLOCK, euler, sdk, simple, spaced, format_tokens(g)):
        assert parse_grid(text) == g, text


def test_numeric_tokens_for_big_grids_on_one_line():
    g = pattern_solution(Shape(5, 5))
    line = " ".join(str(d) for d in g)
    assert parse_grid(line) == g
    assert parse_grid(line.replace(" 25 ", " 0 ", 1)).givens == 624


def test_json_forms():
    g = Grid.parse(TELEGRAM)
    rows = [list(r) for r in g.rows()]
    assert parse_grid(str(rows)) == g
    assert parse_grid(f'{{"rows": {rows}}}') == g
    assert parse_grid(f'{{"puzzle": "{TELEGRAM}", "box": "3x3"}}') == g
    six = pattern_solution(Shape(2, 3))
    assert parse_grid(f'{{"puzzle": "{six}"}}') == six


def test_box_option_overrides_the_inferred_shape():
    # 36 cells read as 2x3 by default; --box 3x2 is refused (boxes are wider than tall)
    six = pattern_solution(Shape(2, 3))
    assert parse_grid(str(six), Shape(2, 3)).shape == Shape(2, 3)
    with pytest.raises(GridFormatError, match="expected 16 cells"):
        parse_grid(str(six), Shape(2, 2))


def test_pretty_form_has_box_separators_and_dots():
    assert format_pretty(Grid.parse(TELEGRAM)) == TELEGRAM_BLOCK
    six = format_pretty(Grid.empty(Shape(2, 3))).splitlines()
    assert six[:3] == [". . . | . . .", ". . . | . . .", "------+------"]


def test_candidates_form():
    lines = format_candidates(Grid.parse(TELEGRAM)).splitlines()
    assert len(lines) == 11
    assert lines[0].split()[:3] == ["8", "14", "9"]  # r1c2 can be 1 or 4


def test_annotated_line():
    record = parse_record(f"{TELEGRAM}:1:{TELEGRAM_SOLUTION}", where="x:1")
    assert (record.id, record.expected_count, str(record.expected_solution)) == (
        "x:1",
        1,
        TELEGRAM_SOLUTION,
    )
    assert parse_record(f"{MULTIPLE}:28").expected_count == 28


# -- bad input ------------------------------------------------------------------------------

BAD_TEXT = [
    (TELEGRAM[:-1], "80 cells is not the size of a grid"),
    ("1" * 50, "50 cells is not the size of a grid"),
    (TELEGRAM[:16] + "x" + TELEGRAM[17:], "column 17 (r2c8): unexpected character 'x'"),
    (TELEGRAM[:16] + "?" + TELEGRAM[17:], "column 17: unexpected character '?'"),
    (TELEGRAM[:16] + "A" + TELEGRAM[17:], "unexpected character 'A' (a 9x9 grid uses 1-9)"),
    ("1 2 3 10 " + "0 " * 12, "column 7 (r1c4): value 10 is more than 4"),
    ("", "no grid"),
    ("\x00\x01\x02", "unexpected character '\\x00'"),
    (
        TELEGRAM_BLOCK.replace("7 . . | . . . | . . 2", "7 . . | . . . | . . 2 1"),
        "line 6: expected 9 cells, got 10",
    ),
    ("[[1, 2], [3]]", "not the size of a grid"),
    ('{"rows": [[1, "x"]]}', "item 2: 'x' is not a digit"),
    ("{nope", "invalid JSON"),
]


@pytest.mark.parametrize(("text", "message"), BAD_TEXT, ids=range(len(BAD_TEXT)))
def test_bad_text_says_what_and_where(text, message):
    with pytest.raises(GridFormatError) as info:
        parse_grid(text)
    assert message in str(info.value)


def test_annotations_are_checked():
    with pytest.raises(GridFormatError, match="count 'many' is not a whole number"):
        parse_record(f"{TELEGRAM}:many")
    with pytest.raises(GridFormatError, match="solution"):
        parse_record(f"{TELEGRAM}:1:123")


def write(path: Path, text: str | bytes) -> Path:
    """Write text or bytes to `path` and return it."""
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


BAD_FILES = [
    ("empty.txt", "", "empty.txt: no puzzles in the file"),
    ("comments.txt", "# only a comment\n\n", "no puzzles in the file"),
    ("binary.txt", b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "not a text file"),
    ("nocol.csv", "id,difficulty\n1,2\n", "no puzzle column"),
    ("nocol.txt", "id,difficulty\n1,2\n", "no puzzle column"),
    ("short.txt", TELEGRAM_BLOCK.rsplit("\n", 1)[0] + "\n", "has 8 rows, expected 9"),
    ("bad.txt", f"{TELEGRAM}\n{TELEGRAM[:40]}x{TELEGRAM[41:]}\n", "bad.txt:2: column 41"),
    ("count.txt", f"{TELEGRAM}:one\n", "count.txt:1: the count 'one'"),
    ("fake.gz", b"\x1f\x8bnot really gzip", "gzip"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_say_what_and_where(tmp_path, name, content, message):
    with pytest.raises(GridFormatError) as info:
        list(read_puzzles(write(tmp_path / name, content)))
    assert message in str(info.value)


def test_a_10_mb_line_is_refused_quickly(tmp_path):
    path = write(tmp_path / "big.txt", "1" * 10_000_000 + "\n")
    with (
        Stopwatch() as watch,
        pytest.raises(GridFormatError, match=f"line longer than {MAX_LINE:,} characters"),
    ):
        list(read_puzzles(path))
    watch.within(2)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(read_puzzles(tmp_path / "missing.txt"))
    with pytest.raises(IsADirectoryError):
        list(read_puzzles(tmp_path))


def test_files_stream_one_puzzle_at_a_time(tmp_path):
    """The first puzzle arrives before the bad last line is read."""
    path = write(tmp_path / "p.txt", f"{TELEGRAM}\n" * 1000 + "oops\n")
    records = read_puzzles(path)
    assert next(records).puzzle == Grid.parse(TELEGRAM)
    with pytest.raises(GridFormatError, match=r"p\.txt:1001"):
        list(records)


@pytest.mark.slow
def test_a_big_file_streams_in_little_memory(tmp_path):
    path = tmp_path / "big.txt.gz"
    with gzip.open(path, "wt") as handle:
        handle.writelines(f"{TELEGRAM}\n" for _ in range(50_000))
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_puzzles(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 50_000
    assert peak < 1_000_000  # about 0.1 MB: the 4 MB of text never sits in memory at once


# -- puzzle files at every size -------------------------------------------------------------


def lines_file(grids: list[Grid]) -> str:
    """Comments, blank lines and annotated puzzle lines."""
    return "# a comment\n\n" + "".join(f"{g}:{i}\n" for i, g in enumerate(grids))


def blocks_file(grids: list[Grid]) -> str:
    """Pretty blocks with Project-Euler-style headers."""
    return "".join(f"Grid {i:02d}\n{format_pretty(g)}\n" for i, g in enumerate(grids, 1))


def tokens_file(grids: list[Grid]) -> str:
    """Numeric-token blocks separated by blank lines."""
    return "\n\n".join(format_tokens(g) for g in grids) + "\n"


def csv_file(grids: list[Grid]) -> str:
    """Kaggle-style CSV: a header, 0 for blanks, the solution column (here: the grid itself)."""
    zero = [format_line(g).replace(".", "0") for g in grids]
    return "quizzes,solutions\n" + "".join(f"{z},{z}\n" for z in zero)


LAYOUTS = {"lines": lines_file, "blocks": blocks_file, "tokens": tokens_file, "csv": csv_file}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gz"])
def test_puzzle_files_round_trip(tmp_path, shape, layout, compressed):
    grids = some_grids(shape)
    text = LAYOUTS[layout](grids)
    suffix = ".csv" if layout == "csv" else ".txt"
    if compressed:
        path = write(tmp_path / f"p{suffix}.gz", gzip.compress(text.encode()))
    else:
        path = write(tmp_path / f"p{suffix}", text)
    records = list(read_puzzles(path))
    assert [r.puzzle for r in records] == grids
    if layout == "lines":
        assert [r.expected_count for r in records] == [0, 1, 2]
        assert [r.id for r in records] == [f"{path}:{k}" for k in (1, 2, 3)]  # puzzles, not lines
    if layout == "csv":
        assert [r.expected_solution for r in records] == grids


def test_solutions_file_beside_the_puzzles(tmp_path):
    write(tmp_path / "set.txt", f"# two\n{TELEGRAM}\n\n{MULTIPLE}\n")
    write(tmp_path / "set.solutions.txt", f"{TELEGRAM_SOLUTION}\n{TELEGRAM_SOLUTION}\n")
    first, second = read_puzzles(tmp_path / "set.txt", label="set")
    assert (first.id, second.id) == ("set:1", "set:2")  # numbered as puzzles, not lines
    assert str(first.expected_solution) == TELEGRAM_SOLUTION == str(second.expected_solution)


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{TELEGRAM}\n{MULTIPLE}:28\n"))
    records = list(read_puzzles("-"))
    assert [r.id for r in records] == ["stdin:1", "stdin:2"]
    assert records[1].expected_count == 28


def test_a_4x4_line_file_and_a_16x16_block_file_are_told_apart(tmp_path):
    fours = list(read_puzzles(collection_path("shidoku4x4")))
    assert len(fours) == 20 and {r.puzzle.shape for r in fours} == {Shape(2, 2)}
    hexa = next(read_puzzles(collection_path("hexadoku1500"))).puzzle
    bare = "\n".join(format_line(hexa)[i : i + 16] for i in range(0, 256, 16))
    [record] = read_puzzles(write(tmp_path / "h.txt", bare + "\n"))
    assert record.puzzle == hexa


# -- shipped collections --------------------------------------------------------------------

COLLECTIONS = {
    "easy50": (50, Shape(3, 3)),
    "top95": (95, Shape(3, 3)),
    "hardest": (11, Shape(3, 3)),
    "top1465": (1465, Shape(3, 3)),
    "kaggle9999": (9999, Shape(3, 3)),
    "multisolution5000": (5000, Shape(3, 3)),
    "hexadoku1500": (1500, Shape(4, 4)),
    "shidoku4x4": (20, Shape(2, 2)),
    "course": (2, Shape(3, 3)),
}


@pytest.mark.parametrize("name", sorted(COLLECTIONS))
def test_shipped_collections_read_whole(name):
    count, shape = COLLECTIONS[name]
    records = list(read_puzzles(collection_path(name)))
    assert len(records) == count
    assert {r.puzzle.shape for r in records} == {shape}
    assert all(r.puzzle.is_valid() for r in records[::50])


def test_shipped_solutions_are_solutions():
    for name in ("kaggle9999", "hexadoku1500", "course"):
        for record in itertools.islice(read_puzzles(collection_path(name)), 0, None, 97):
            if record.expected_solution is not None:
                assert is_solution(record.expected_solution, record.puzzle), record.id


@pytest.mark.slow
def test_17clue_streams_from_gzip():
    records = read_puzzles(collection_path("17clue"))
    assert sum(1 for r in records if r.puzzle.givens == 17) == 49158


@pytest.mark.slow
def test_the_wheel_ships_the_collections(tmp_path):
    """A normal (non-editable) install finds the collections inside the package."""
    root = Path(__file__).resolve().parent.parent
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(root),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = tmp_path.glob("sudokubench-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(tmp_path / "site")
    shipped = {p.name for p in puzzles_dir().iterdir() if p.is_file()}
    assert {f"sudokubench/puzzles/{name}" for name in shipped} <= names
    probe = (
        "from sudokubench.formats import collection_path, read_puzzles;"
        "p = collection_path('top95'); print(p.parent.parent.name, sum(1 for _ in read_puzzles(p)))"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            f"import sys; sys.path.insert(0, {str(tmp_path / 'site')!r}); {probe}",
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout.split()
    assert out == ["sudokubench", "95"]
