"""Statistics and reports of stored runs (no worker processes: rows are written directly)."""

from __future__ import annotations

import csv
import io
import json
import math
import re

import pytest
from support import MULTIPLE, TELEGRAM, TELEGRAM_SOLUTION

from sudokubench import count
from sudokubench.harness import CompareArgs
from sudokubench.harness.report import build_report, compare_runs, render, render_against, tasks
from sudokubench.harness.report.plots import cactus, distributions, save, scatter
from sudokubench.harness.report.tasks import render_tasks
from sudokubench.harness.stats import (
    Pair,
    geometric_ratio,
    quantile,
    summarize_times,
    warnings_for,
)
from sudokubench.harness.store import PuzzleRow, Store, TaskRow

MULTI = tuple(str(s) for s in count(MULTIPLE, backend="backtracking", limit=2).solutions)

# -- statistics -------------------------------------------------------------------------------


def test_quantiles_interpolate_linearly():
    assert quantile([4, 1, 3, 2], 0.25) == 1.75
    assert quantile(range(1, 11), 0.9) == pytest.approx(9.1)
    assert quantile([5.0], 0.5) == 5.0
    with pytest.raises(ValueError):
        quantile([], 0.5)


def test_time_summary_over_finished_pairs_only():
    pairs = [
        Pair("p1", "a", "solved", (1.0,), ("guesses", 2)),
        Pair("p2", "a", "solved", (2.0,), ("guesses", 4)),
        Pair("p3", "a", "unsatisfiable", (3.0,), ("guesses", 6)),
        Pair("p4", "a", "solved", (10.0,), ("guesses", 100)),
        Pair("p5", "a", "timeout", (), None),
    ]
    s = summarize_times(pairs)
    assert s.timed == 4
    assert s.median_s == 2.5
    assert s.iqr_s == pytest.approx(quantile([1, 2, 3, 10], 0.75) - 1.75)
    assert s.p90_s == pytest.approx(quantile([1, 2, 3, 10], 0.9))
    assert (s.max_s, s.total_s) == (10.0, 16.0)
    assert (s.effort_name, s.median_effort) == ("guesses", 5.0)
    assert s.noise is None


def test_a_pair_is_timed_by_the_median_of_its_repeats_and_its_spread_is_noise():
    pair = Pair("p", "a", "solved", (1.0, 1.0, 2.0, 3.0, 1.0))
    assert pair.time == 1.0
    assert pair.spread == pytest.approx((2.0 - 1.0) / 1.0)
    s = summarize_times([pair])
    assert s.noise == pytest.approx(1.0)
    messages = warnings_for("a", s, timeouts=0)
    assert any("noisy" in m and "--repeat 5" in m for m in messages)
    assert any("only 1 timed puzzle," in m for m in messages)


def test_geometric_ratio_against_the_baseline():
    base = [Pair(f"p{i}", "b", "solved", (t,)) for i, t in enumerate((2.0, 4.0, 8.0))]
    half = [Pair(f"p{i}", "a", "solved", (t,)) for i, t in enumerate((1.0, 2.0, 4.0))]
    ratio, low, high, n = geometric_ratio(half, base)
    assert (n, ratio, low, high) == (3, pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))
    mixed = [Pair("p0", "a", "solved", (4.0,)), Pair("p1", "a", "solved", (2.0,))]
    ratio, low, high, n = geometric_ratio([*mixed, Pair("p2", "a", "timeout", ())], base)
    assert n == 2 and ratio == pytest.approx(1.0) and low < 1 < high
    assert geometric_ratio([Pair("x", "a", "solved", (1.0,))], base) is None


def test_timeouts_are_counted_in_a_warning():
    s = summarize_times([Pair(f"p{i}", "a", "solved", (0.1,)) for i in range(10)])
    assert warnings_for("a", s, timeouts=0) == []
    assert "raise --timeout" in warnings_for("a", s, timeouts=2)[0]


# -- a stored run -----------------------------------------------------------------------------


def task(task_id, puzzle_id, puzzle, backend, sample, status, solutions, wall, **extra):
    exhaustive = extra.pop("exhaustive", status == "unsatisfiable" or len(solutions) == 1)
    verdict = extra.pop(
        "verdict", ("=" if exhaustive else ">=") + str(len(solutions)) if solutions else "?"
    )
    return TaskRow(
        task_id=task_id,
        puzzle_id=puzzle_id,
        puzzle=puzzle,
        backend=backend,
        limit=2,
        timeout=10.0,
        sample=sample,
        status=status,
        count=len(solutions),
        exhaustive=exhaustive,
        solutions=tuple(solutions),
        encode_s=0.0,
        solve_s=wall,
        wall_s=wall,
        stats=extra.pop("stats", {"nodes": 10}),
        message="",
        verdict=verdict,
        valid=extra.pop("valid", True),
        problem=extra.pop("problem", None),
    )


def store_run(
    store: Store,
    times: dict[str, tuple[float, float]],
    *,
    wrong: bool = False,
    timed_out: bool = False,
    source: str = "x.txt",
) -> int:
    """A run of backends `a` (baseline) and `b` on TELEGRAM (file: =1) and MULTIPLE, with one
    warm-up and one measured sample each; `times[backend]` = (telegram, multiple) seconds.
    `wrong`: b says TELEGRAM has no solution; `timed_out`: b times out on MULTIPLE; the ids
    are `SOURCE:1` and `SOURCE:2`."""
    args = CompareArgs(files=("x.txt",), backends=("a", "b"), warmup=1, baseline="a")
    run_id = store.new_run(args.to_json(), {"backends": {"a": "1.0", "b": "2.0"}})
    store.add_puzzles(
        run_id,
        [
            PuzzleRow(f"{source}:1", 0, "course", TELEGRAM, None, 1, TELEGRAM_SOLUTION),
            PuzzleRow(f"{source}:2", 1, "multi", MULTIPLE, None, None, None),
        ],
    )
    writer = store.writer(run_id)
    n = 0
    for puzzle_id, puzzle, solutions, k in (
        (f"{source}:1", TELEGRAM, [TELEGRAM_SOLUTION], 0),
        (f"{source}:2", MULTIPLE, list(MULTI), 1),
    ):
        for backend in ("a", "b"):
            for sample in (-1, 0):
                wall = 100.0 if sample < 0 else times[backend][k]  # warm-ups never count
                if wrong and backend == "b" and puzzle_id == f"{source}:1":
                    row = task(
                        n,
                        puzzle_id,
                        puzzle,
                        backend,
                        sample,
                        "unsatisfiable",
                        [],
                        wall,
                        verdict="0",
                    )
                elif timed_out and backend == "b" and puzzle_id == f"{source}:2":
                    row = task(n, puzzle_id, puzzle, backend, sample, "timeout", [], wall)
                else:
                    row = task(n, puzzle_id, puzzle, backend, sample, "solved", solutions, wall)
                writer.add(row)
                n += 1
    writer.flush()
    store.set_status(run_id, "complete")
    return run_id


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "r.sqlite") as opened:
        yield opened


def test_report_summarizes_measured_samples_and_ratios(store):
    run_id = store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)})
    report = build_report(store, run_id)
    assert report.ok and report.missing == 0
    a, b = report.summary
    assert (a.backend, a.solved, a.timeout, a.wrong, a.version) == ("a", 2, 0, 0, "1.0")
    assert a.times.median_s == pytest.approx(0.02)  # warm-ups (100 s) excluded
    assert a.times.max_s == pytest.approx(0.03)
    assert b.ratio[0] == pytest.approx(2.0) and b.ratio[3] == 2
    assert a.ratio is None
    assert report.verdicts["x.txt:1"].consensus == "=1"
    assert report.verdicts["x.txt:2"].consensus == ">=2"
    assert set(report.collections) == {"course", "multi"}


def test_a_contradicted_file_answer_is_listed_with_both_sides(store):
    report = build_report(store, store_run(store, {"a": (1, 1), "b": (1, 1)}, wrong=True))
    assert not report.ok and report.disagreement_count == 1
    ((puzzle_id, problem),) = report.problems
    assert puzzle_id == "x.txt:1" and problem.kind == "disagree"
    assert dict(problem.sides) == {"0": ("b",), "=1": ("a", "expected")}
    b = report.summary[1]
    assert (b.unsatisfiable, b.wrong, b.disagree) == (0, 1, 1)  # a wrong "unsat" is not unsat
    data = report.to_json()
    assert data["ok"] is False
    assert data["disagreements"][0]["sides"] == {"0": ["b"], "=1": ["a", "expected"]}


def test_a_wrong_answer_is_wrong_in_every_statistic_however_fast(store):
    # b says "unsatisfiable" about TELEGRAM (the file says =1) in 1 ms, where a takes 1 s
    report = build_report(store, store_run(store, {"a": (1.0, 1.0), "b": (0.001, 1.0)}, wrong=True))
    b = report.summary[1]
    assert (b.solved, b.unsatisfiable, b.wrong) == (1, 0, 1)
    assert (b.times.timed, b.times.median_s) == (1, pytest.approx(1.0))  # only its right one
    assert b.par_s == pytest.approx((1.0 + 2 * 10.0) / 2)  # the wrong one scores the penalty
    assert b.ratio.value == pytest.approx(1.0) and b.ratio.puzzles == 1
    best = report.virtual_best
    assert (best.solved, best.times.median_s) == (2, pytest.approx(1.0))  # a's, never b's 1 ms
    assert sorted(dict(report.column("b").finished_times())) == [1]  # cactus, scatter, boxes
    assert [p.finished for p in report.pairs["b"]] == [False, True]
    rows = {r["backend"]: r for r in compare_runs(report, report)}
    assert (rows["b"]["finished_new"], rows["b"]["ratio_puzzles"]) == (1, 1)
    curves = {
        line.get_label().split(" (")[0]: len(line.get_xdata())
        for line in cactus(report).axes[0].get_lines()
    }
    assert (curves["a"], curves["b"], curves["virtual best"]) == (2, 1, 2)


def test_a_side_of_a_disagreement_no_one_is_blamed_for_is_never_finished():
    from sudokubench.harness.records import PuzzleRow as Row
    from sudokubench.harness.report.tally import Tally
    from sudokubench.harness.verify import Problem, PuzzleVerdict

    tally = Tally(("a", "b"), 1)
    puzzle = Row("x:1", 0, "x", TELEGRAM)
    rows = [
        task(i, "x:1", TELEGRAM, name, 0, "solved", [TELEGRAM_SOLUTION], 0.1)
        for i, name in enumerate(("a", "b"))
    ]
    dispute = Problem("disagree", "=1 (a) vs =2 (b)", (("=1", ("a",)), ("=2", ("b",))))
    tally.add(0, puzzle, rows, PuzzleVerdict("x:1", False, "disputed", (dispute,)))
    summary, _ = tally.summaries(("a", "b"), tally.columns, "a", {}, timeout=10.0, par=2.0)
    for s in summary:
        assert (s.solved, s.wrong, s.disagree, s.times.timed) == (0, 1, 1, 0)
    assert tally.virtual_best().finished(0) is False


def test_every_format_renders_the_same_numbers(store):
    report = build_report(store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)}))
    table = render(report, "table")
    assert "20 ms" in table and "2.00x" in table and "agree on 2 puzzles" in table
    markdown = render(report, "markdown")
    assert "| backend | solved |" in markdown and "## course" in markdown
    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    whole = {r["backend"]: r for r in rows if r["collection"] == "all"}
    assert float(whole["b"]["ratio"]) == pytest.approx(2.0)
    assert {r["collection"] for r in rows} == {"all", "course", "multi"}
    data = json.loads(render(report, "json"))
    assert data == json.loads(json.dumps(report.to_json()))
    for key in ("run_id", "summary", "disagreements", "results", "status"):
        assert key in data
    result = data["results"][0]
    for key in ("status", "count", "exhaustive", "solutions", "backend", "time_s"):
        assert key in result
    page = render(report, "html")
    assert page.count("<figure class='plot'") == 3 and page.count("<svg") == 3  # inline
    assert re.findall(r"(?:src|href)=[\"'](?!#|data:)", page) == []  # nothing fetched


def test_tables_say_n_the_baseline_and_which_way_is_faster(store):
    report = build_report(
        store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)}, timed_out=True)
    )
    markdown = render(report, "markdown")
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in markdown.splitlines()
        if line.startswith("| ")
    ]
    header, a, b = rows[0], rows[1], rows[2]
    assert header[6:8] == ["n", "median"]
    assert header[-1] == "time ratio vs a (lower is faster)"
    assert (a[0], a[6], a[-1]) == ("a", "2", "baseline")
    assert (b[0], b[3], b[6], b[7]) == ("b", "1", "1", "20 ms")  # one timeout: over 1 puzzle
    assert b[-1] == r"2.00x \[2.00-2.00\] n=1"  # (Markdown-escaped) on the one both finished
    table = render(report, "table", width=200)
    assert "baseline a (the first backend listed, as fast did not run" in table
    assert "time ratio vs a" in table
    for line in render(report, "table", width=60).splitlines()[:-1]:  # (the verdict: one line)
        assert len(line) <= 60, line


def test_the_per_task_csv_reads_back_as_stored_and_guards_outside_text(store):
    report = build_report(store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)}))
    rows = list(csv.DictReader(io.StringIO(render_tasks(report, "csv"))))
    stored = {(t.task_id): t for t in report.tasks}
    assert {r["verdict"] for r in rows} == {"=1", ">=2"}  # no `'` put before a verdict
    for row in rows:
        assert row["verdict"] == stored[int(row["task_id"])].verdict
    assert {r["consensus"] for r in rows} == {"=1", ">=2"}
    assert set(tasks.OUTSIDE) <= set(rows[0]) and "verdict" not in tasks.OUTSIDE


def test_plots_are_written_as_png_or_svg(store, tmp_path):
    report = build_report(store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)}))
    save(cactus(report), tmp_path / "c.png")
    assert (tmp_path / "c.png").read_bytes().startswith(b"\x89PNG")
    save(scatter(report, "a", "b"), tmp_path / "s.svg")
    assert b"<svg" in (tmp_path / "s.svg").read_bytes()[:500]
    save(distributions(report), tmp_path / "d.png")
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        save(cactus(report), tmp_path / "c.jpg")
    with pytest.raises(ValueError, match="no backend 'zzz'"):
        scatter(report, "a", "zzz")


def test_against_shows_the_change_per_backend(store):
    old = build_report(store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)}))
    new = build_report(store, store_run(store, {"a": (0.02, 0.06), "b": (0.02, 0.06)}))
    rows = {r["backend"]: r for r in compare_runs(old, new)}
    assert rows["a"]["ratio"] == pytest.approx(2.0)
    assert rows["b"]["ratio"] == pytest.approx(1.0)
    assert math.isclose(rows["a"]["median_new_s"], 2 * rows["a"]["median_old_s"])
    text = render_against(old, new, "table")
    assert "2.00x" in text and f"run {new.run.id} against run {old.run.id}" in text
    assert "time ratio new/old (lower is faster)" in text


@pytest.mark.parametrize("source", ["x", "data/x.txt", "/elsewhere/x.txt.gz"])
def test_against_pairs_a_run_stored_with_older_ids(store, source):
    """`x.txt:1` (an older sudokubench's id: file and line) pairs with `x:1` and with the same
    file name in another folder; a puzzle's text and source must still match."""
    old = build_report(store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 0.06)}))
    new = build_report(
        store, store_run(store, {"a": (0.02, 0.06), "b": (0.02, 0.06)}, source=source)
    )
    rows = {r["backend"]: r for r in compare_runs(old, new)}
    assert rows["a"]["puzzles"] == 2 and rows["a"]["ratio"] == pytest.approx(2.0)
    other = build_report(store, store_run(store, {"a": (1, 1), "b": (1, 1)}, source="y.txt"))
    with pytest.raises(ValueError, match="no puzzle in common"):
        compare_runs(old, other)


def test_a_run_with_nothing_stored_yet_still_renders(store, tmp_path):
    args = CompareArgs(files=("x.txt",), backends=("a", "b"))
    run_id = store.new_run(args.to_json(), {})
    store.add_puzzles(run_id, [PuzzleRow("x.txt:1", 0, "x", TELEGRAM)])
    report = build_report(store, run_id)
    assert not report.ok and report.missing == 2 and report.exit_code(allow_errors=True) == 3
    assert any("still running" in w and f"--resume {run_id}" in w for w in report.warnings)
    assert render(report, "table").splitlines()[-1] == (
        "no wrong answer or disagreement on 0 puzzles, but 2 of 2 tasks are missing: "
        f"run {run_id} is still running (or its compare was killed)"
    )
    for fmt in ("table", "markdown", "csv", "json", "html"):
        assert render(report, fmt)
    save(cactus(report), tmp_path / "c.png")
    save(distributions(report), tmp_path / "d.png")


def test_a_stored_answer_after_the_limit_counts_as_a_timeout(store):
    # rows stored by an older compare keep their status: the report applies the limit (10 s)
    report = build_report(store, store_run(store, {"a": (0.01, 0.03), "b": (0.02, 10.5)}))
    a, b = report.summary
    assert (b.solved, b.timeout, b.times.timed, b.times.max_s) == (1, 1, 1, pytest.approx(0.02))
    assert b.par_s == pytest.approx((0.02 + 20.0) / 2)
    best = report.virtual_best
    assert (best.solved, best.timeout, best.times.max_s) == (2, 0, pytest.approx(0.03))
    assert best.par_s == pytest.approx(a.par_s)
    assert "virtual best" in render(report, "table") and "PAR-2" in render(report, "markdown")


def test_outside_text_is_shown_as_text_in_the_table(store):
    """A backend name with an emoji code, a message with markup and terminal escapes: shown
    as written, control characters escaped, nothing interpreted."""
    name = "exec:cat"
    message = "\x1b]0;owned\x07[bold]loud[/bold] \x1b[2J:cat:\n```\n# owned ````"
    args = CompareArgs(files=("x.txt",), backends=(name, "b"))
    run_id = store.new_run(args.to_json(), {})
    store.add_puzzles(run_id, [PuzzleRow("x.txt:1", 0, "[red]x[/red]", TELEGRAM, None, 1)])
    writer = store.writer(run_id)
    writer.add(task(0, "x.txt:1", TELEGRAM, name, 0, "error", [], 0.1)._replace(message=message))
    writer.add(task(1, "x.txt:1", TELEGRAM, "b", 0, "solved", [TELEGRAM_SOLUTION], 0.1))
    writer.flush()
    report = build_report(store, run_id)
    text = render(report, "table")
    assert "exec:cat" in text and "\N{CAT FACE}" not in text and "🐱" not in text
    # (the failures list folds a message's lines into one)
    assert "\\x1b]0;owned\\x07[bold]loud[/bold] \\x1b[2J:cat: ``` # owned" in text
    assert "\x1b" not in text and "\x07" not in text
    markdown = render(report, "markdown")  # the message stays inside its code block
    assert "\x1b" not in markdown and "\x07" not in markdown and "\n# owned" not in markdown
    fence = markdown.split("## Errors\n\n", 1)[1].split("\n", 1)[0]
    assert fence == "`" * 5  # longer than the message's own run of four
