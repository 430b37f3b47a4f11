"""Every code example in README.md and docs/*.md runs exactly as written, and says what it shows.

The pages are read at collection time, so an example added to one is tested without touching
this file:

- every ```python block runs as a script; a trailing comment that is a Python expression over
  the block's names is a claim: `# r.count == 28, r.exhaustive is True` is asserted after its
  statement (a comparison must hold; a bare name or attribute must exist);
- every ```sh block runs line by line in bash, with the virtual environment's scripts first on
  PATH;
- every `$ ...` line of a transcript block runs (`sudokubench` is the one next to this
  interpreter; other commands run in bash), in order, those of a page's unmarked transcript
  blocks all in one directory (so `report` finds the run a `compare` above it stored), and
  each output line shown under it must appear in its output: `...` stands for any text (a line
  that starts with `...` elides lines; a "quoted" text in its `# comment` must appear), a
  measured number (one with a decimal point, or followed by a unit of time) stands for any
  number, runs of spaces and of table rules for any length, and a JSON line must match key by
  key (`[...]` and timings excepted). Exit code 0 or 1 (`check` of an invalid grid exits 1),
  or 2 where the lines shown are a refusal (`sudokubench: error: ...`), never a traceback. A
  command line with a pipe or a redirection runs in bash.

Everything runs in a scratch directory that mirrors the repository's root (so `puzzles/...` and
`examples/...` resolve as in the pages, and files the examples write stay out of the
repository). A `<!-- readme-test: slow -->` line just before a block marks it slow;
`<!-- readme-test: skip REASON -->` skips it (the set-up commands, which CI runs in a fresh
clone).
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tokenize
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The pages whose examples run: the README, then every page of docs/.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
SCRIPT = BIN / "sudokubench"
_MARKER = re.compile(r"<!--\s*readme-test:\s*(slow|skip)\b\s*(.*?)\s*-->")


class Block(NamedTuple):
    """A fenced block of a page: its language, first line number, text and marker."""

    lang: str
    line: int
    text: str
    marker: tuple[str, str] | None


class Step(NamedTuple):
    """One `$` command of a transcript, its line number and the output lines shown under it."""

    command: str
    line: int
    shown: tuple[str, ...]


class Example(NamedTuple):
    """One thing to run: a python or sh block, or a transcript block (its `$` steps)."""

    page: str
    kind: str
    line: int
    code: str
    steps: tuple[Step, ...]
    marker: tuple[str, str] | None


def readme_blocks(text: str) -> list[Block]:
    """The fenced blocks, each with the readme-test marker on the line before its fence."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"```(\w*)\s*$", lines[i])
        if m is None:
            i += 1
            continue
        before = _MARKER.search(lines[i - 1]) if i else None
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        body = "\n".join(lines[i + 1 : end]) + "\n"
        blocks.append(Block(m.group(1), i + 2, body, before.groups() if before else None))
        i = end + 1
    return blocks


def transcript_steps(block: Block) -> tuple[Step, ...]:
    """The `$` commands of a block, each with the lines under it (none: not a transcript)."""
    steps: list[Step] = []
    for offset, line in enumerate(block.text.splitlines()):
        if line.startswith("$ "):
            steps.append(Step(line[2:], block.line + offset, ()))
        elif steps:
            steps[-1] = steps[-1]._replace(shown=(*steps[-1].shown, line))
    return tuple(steps)


def page_examples(page: Path) -> list[Example]:
    """Every runnable example of a page, in order; the unmarked transcripts of a page are one
    example (a tour: `report` reads what `compare` stored), each marked one is its own."""
    name = page.relative_to(ROOT).as_posix()
    found: list[Example] = []
    tour: list[Block] = []
    for block in readme_blocks(page.read_text(encoding="utf-8")):
        steps = transcript_steps(block) if block.lang not in ("python", "sh") else ()
        if block.lang in ("python", "sh"):
            found.append(Example(name, block.lang, block.line, block.text, (), block.marker))
        elif steps and block.marker is None:
            tour.append(block)
        elif steps:
            found.append(Example(name, "$", block.line, block.text, steps, block.marker))
    if tour:
        steps = tuple(step for block in tour for step in transcript_steps(block))
        found.append(Example(name, "$", tour[0].line, "", steps, None))
    return found


EXAMPLES = [example for page in PAGES for example in page_examples(page)]


def _param(example: Example) -> object:
    marks = []
    if example.marker and example.marker[0] == "slow":
        marks.append(pytest.mark.slow)
    if example.marker and example.marker[0] == "skip":
        marks.append(pytest.mark.skip(reason=f"{example.page} says: {example.marker[1]}"))
    page = example.page.removesuffix(".md")
    return pytest.param(example, marks=marks, id=f"{page}-{example.kind}-line{example.line}")


@pytest.fixture
def root_mirror(tmp_path: Path) -> Path:
    """A scratch directory whose entries link to the repository root's."""
    for entry in ROOT.iterdir():
        if entry.name not in (".git", ".venv") and not entry.name.endswith(".sqlite"):
            (tmp_path / entry.name).symlink_to(entry)
    return tmp_path


def _env() -> dict[str, str]:
    """This environment with the virtual environment's scripts first on PATH, and no COLUMNS:
    reports are as wide as in a pipe (160), as the pages show them."""
    env = dict(os.environ, PATH=os.pathsep.join([str(BIN), os.environ.get("PATH", "")]))
    env.pop("COLUMNS", None)
    return env


# -- python blocks ------------------------------------------------------------------------------


def _claims(comment: str, names: set[str]) -> list[str]:
    """The parts of a comment that are Python expressions over `names`."""
    claims = []
    for part in comment.lstrip("#").split(", "):
        try:
            tree = ast.parse(part.strip(), mode="eval")
        except SyntaxError:
            continue
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if used and used <= names | set(dir(__builtins__)):
            claims.append(part.strip())
    return claims


def with_claims(source: str) -> str:
    """The block with each comment claim checked right after the statement it is on."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
    ends = {}  # line -> (last line, indentation) of the simple statement on it
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.stmt) and not hasattr(stmt, "body"):
            end = stmt.end_lineno or stmt.lineno
            for line in range(stmt.lineno, end + 1):
                ends[line] = (end, stmt.col_offset)
    after: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and tok.start[0] in ends:
            for claim in _claims(tok.string, names):
                node = ast.parse(claim, mode="eval").body
                check = f"assert {claim}, {claim!r}" if isinstance(node, ast.Compare) else claim
                end, indent = ends[tok.start[0]]
                after.setdefault(end, []).append(" " * indent + check)
    lines = source.splitlines()
    out = []
    for number, line in enumerate(lines, 1):
        out.append(line)
        out.extend(after.get(number, []))
    return "\n".join(out) + "\n"


def test_comment_claims_become_checks():
    """The claim reader itself: a false claim fails, prose is not a claim."""
    source = "x = 2  # x == 3, the answer\ny = x  # y.bit_length\n"
    checked = with_claims(source)
    assert "assert x == 3, 'x == 3'" in checked and "the answer" not in checked.split("\n", 1)[1]
    with pytest.raises(AssertionError, match="x == 3"):
        exec(compile(checked, "<readme>", "exec"), {})


def test_the_pages_have_examples_of_every_kind():
    kinds = [e.kind for e in EXAMPLES]
    steps = sum(len(e.steps) for e in EXAMPLES)
    assert kinds.count("python") >= 3 and kinds.count("sh") >= 2 and steps >= 8
    readme = {e.kind for e in EXAMPLES if e.page == "README.md"}
    assert readme >= {"python", "sh", "$"}, readme


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES if e.kind == "python"])
def test_python_example(example: Example, root_mirror: Path):
    script = root_mirror / "readme_example.py"
    script.write_text(with_claims(example.code))
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=root_mirror,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


# -- sh blocks and transcripts --------------------------------------------------------------------


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES if e.kind == "sh"])
def test_sh_example(example: Example, root_mirror: Path):
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", example.code],
        cwd=root_mirror,
        capture_output=True,
        text=True,
        timeout=900,
        env=_env(),
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr


def _json_matches(shown: str, line: str) -> bool:
    try:
        want = json.loads(shown.replace("[...]", '"..."'))
        got = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(got, dict) and all(
        key in got and (value == "..." or key.endswith("time_s") or got[key] == value)
        for key, value in want.items()
    )


#: What varies from run to run in a shown line: a measured number (with a decimal point, or
#: followed by a unit of time), a run of spaces (column widths), a run of table rules.
_VARIES = re.compile(
    r"\d[\d,.]*(?:e[-+]?\d+)? ?(?:ns|µs|us|ms|s)\b|\d[\d,]*\.\d+(?:e[-+]?\d+)?| +|━+|─+"
)
_ANY_NUMBER = r"\d[\d,.]*(?:e[-+]?\d+)?(?: ?(?:ns|µs|us|ms|s)\b)?"


def _loose(text: str) -> str:
    """A regular expression for a piece of a shown line (see `_VARIES`)."""
    parts, start = [], 0
    for m in _VARIES.finditer(text):
        token = m.group()
        parts.append(re.escape(text[start : m.start()]))
        if token.isspace():
            parts.append(" *")
        elif token[0] in "━─":
            parts.append(re.escape(token[0]) + "+")
        else:
            parts.append(_ANY_NUMBER)
        start = m.end()
    parts.append(re.escape(text[start:]))
    return "".join(parts)


def shown_line_appears(shown: str, output: list[str]) -> bool:
    """Whether a line shown under a command is in its output (`...` matching any text, the
    rest as `_loose` says)."""
    if shown.lstrip().startswith("{"):
        return any(_json_matches(shown.strip(), line) for line in output)
    pattern = ".*".join(_loose(piece) for piece in shown.rstrip().split("..."))
    return any(re.fullmatch(pattern, line.rstrip()) for line in output)


def test_shown_lines_are_matched_strictly():
    out = ['{"count": 28, "time_s": 0.1, "solutions": ["x"]}', "8 1 9 | 3 4 2"]
    assert shown_line_appears('{"count": 28, "time_s": 9, "solutions": [...]}', out)
    assert not shown_line_appears('{"count": 27, "solutions": [...]}', out)
    assert shown_line_appears("8 1 9 | ...", out) and not shown_line_appears("8 1 8 | ...", out)


def test_measured_numbers_and_column_widths_are_matched_loosely():
    """Timings and widths vary; counts, verdicts and names do not."""
    out = ["│fast      │     10 │ 2.09 ms │ 0.07x [0.01-0.36]│", "  native   =28   0.0004 s"]
    assert shown_line_appears("│fast │ 10 │ 187 µs │ 1.5x [0.2-3.0] │", out)
    assert shown_line_appears("  native =28 0.0118 s", out)
    assert not shown_line_appears("│fast │ 9 │ 187 µs │ ...", out)
    assert not shown_line_appears("  native =27 0.0118 s", out)
    assert not shown_line_appears("│dlx │ 10 │ ...", out)


#: Words that make a command line a shell's to run (a pipe, a redirection, a list).
_SHELL_WORDS = {"|", "||", "&&", ";", "<", ">", ">>", "2>", "2>&1"}


def _run_step(step: Step, cwd: Path) -> subprocess.CompletedProcess:
    """A transcript's command: `sudokubench` the one beside this interpreter (bash runs it, with
    the same one first on PATH, when the line has a pipe or a redirection), else bash."""
    argv = shlex.split(step.command, comments=True)
    plain = argv[0] == "sudokubench" and not _SHELL_WORDS.intersection(argv)
    command = [str(SCRIPT), *argv[1:]] if plain else None
    return subprocess.run(
        command or ["bash", "-c", step.command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )


@pytest.mark.parametrize("example", [_param(e) for e in EXAMPLES if e.kind == "$"])
def test_transcript(example: Example, root_mirror: Path):
    for step in example.steps:
        done = _run_step(step, root_mirror)
        where = f"{example.page}:{step.line}: {step.command}"
        # a refusal shown as its error line is bad input: exit code 2, that one line
        refused = any(line.startswith("sudokubench: error:") for line in step.shown)
        assert done.returncode in ((2,) if refused else (0, 1)), (where, done.stderr[-2000:])
        assert "Traceback" not in done.stderr, (where, done.stderr[-2000:])
        output = (done.stdout + done.stderr).splitlines()
        for shown in step.shown:
            if shown.lstrip().startswith("..."):
                for quoted in re.findall(r'"([^"]+)"', shown.partition("#")[2]):
                    assert any(quoted in line for line in output), (where, quoted, output[-5:])
            elif shown.strip():
                assert shown_line_appears(shown, output), (where, shown, output[:40])


# -- the Python API from a plain script ----------------------------------------------------------

PLAIN_SCRIPT = """\
import json
from sudokubench import CompareArgs, compare
report = compare(CompareArgs(files=("puzzles/hardest.txt",), backends=("fast",)), db="r.sqlite")
summary = report.to_json()["summary"]["fast"]
print(json.dumps([report.ok, summary["solved"], summary["error"]]))
"""


def test_compare_from_a_plain_script_without_a_main_guard(root_mirror: Path):
    (root_mirror / "plain.py").write_text(PLAIN_SCRIPT)
    done = subprocess.run(
        [sys.executable, "plain.py"],
        cwd=root_mirror,
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(),
    )
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert (done.returncode, json.loads(done.stdout)) == (0, [True, 11, 0])
