"""Plots that tell 20 backends apart: a style per backend (a colour per family, a line style per
member, a marker past the palette), the virtual best beneath the others, titles that name the
inputs, limit and timeout, the timeout marked, and a scatter pair that never takes a backend
that finished nothing (also the HTML page's, whose navigation labels are never cut)."""

from __future__ import annotations

import re

import pytest
from support import MULTIPLE, TELEGRAM

from sudokubench.harness import CompareArgs, compare
from sudokubench.harness.report import plots, render
from sudokubench.harness.report.model import VIRTUAL_BEST
from sudokubench.solvers import backend_names

NOTHING = "fake_backends:SleepForever"  # times out on every puzzle: finishes nothing


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("plots")
    path = folder / "p.txt"
    path.write_text(f"{TELEGRAM}\n{MULTIPLE}\n")
    args = CompareArgs(files=(str(path),), backends=("fast", NOTHING, "dlx"), timeout=0.5)
    return compare(args, db=folder / "r.sqlite")


def _key(style: dict[str, object]) -> tuple[object, ...]:
    return style["color"], style["linestyle"], style["marker"]


def test_every_registered_backend_gets_its_own_style_and_families_share_a_colour():
    names = backend_names()
    found = plots.styles(names)
    assert len({_key(s) for s in found.values()}) == len(names)
    assert {s["color"] for s in found.values()} <= set(plots.PALETTE)
    family = [n for n in names if n.startswith("pysat:")]
    assert len(family) > 1 and len({found[n]["color"] for n in family}) == 1
    assert len({found[n]["linestyle"] for n in family[:4]}) == 4


def test_forty_families_stay_apart():
    found = plots.styles([f"family{k}" for k in range(40)])
    assert len({_key(s) for s in found.values()}) == 40


def test_the_cactus_draws_the_virtual_best_beneath_and_marks_the_timeout(report):
    figure = plots.cactus(report)
    ax = figure.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    best = lines.pop(VIRTUAL_BEST)
    drawn = [line for line in lines.values() if not line.get_label().startswith("_")]
    assert {line.get_label() for line in drawn} == {"fast (2)", "dlx (2)"}
    assert all(best.get_zorder() < line.get_zorder() for line in drawn)
    assert all(best.get_linewidth() > line.get_linewidth() for line in drawn)
    assert any(list(line.get_xdata()) == [0.5, 0.5] for line in ax.get_lines())  # the timeout
    assert "p.txt; limit 2, timeout 0.5 s" in ax.get_title()
    plots.plt.close(figure)


def test_the_scatter_pair_never_takes_a_backend_that_finished_nothing(report):
    assert plots.default_pair(report) == ("fast", "dlx")
    figure = plots.scatter(report, *plots.default_pair(report))
    assert "timeout 0.5 s" in figure.axes[0].get_title()
    plots.plt.close(figure)


def test_the_html_page_names_its_plots_whole(report):
    page = render(report, "html")
    nav = re.search(r"<nav>(.*?)</nav>", page).group(1)
    assert re.findall(r">([^<>]+)</a>", nav)[-5:-2] == ["Cactus", "Distributions", "Scatter"]
    assert "<figcaption>Scatter: dlx vs fast, per puzzle</figcaption>" in page
