"""Plots of a run with matplotlib (the Agg backend: no display needed).

- `cactus`: for each backend, how many puzzles it finished within a given time (x: time per
  puzzle, log scale; y: puzzles finished). The further right and lower a curve ends, the
  slower; the higher, the more it finished. Timeouts (answers after the limit included) never
  enter a curve, and a dotted line marks the timeout; with two backends or more a wide grey
  *virtual best* band (the fastest backend on each puzzle), drawn beneath the others so it
  hides none, shows what the portfolio of them all reaches.
- `scatter`: one backend's per-puzzle time against another's, log-log, with the diagonal;
  puzzles one side did not finish are drawn at the timeout, as open markers.
- `distributions`: per collection, a box plot of each backend's per-puzzle times (log scale).

Styles tell 20 backends apart in print and for colour-blind readers: a family (the name before
`:`, e.g. `cpsat` of `cpsat:integer` and `cpsat:boolean`) shares a colour of Paul Tol's muted
palette (black the tenth) and its members differ by line style; past ten families the colours
come round again with another marker. Every title names the inputs, the limit and the timeout.

Names and file names come from outside: they are drawn as text, never as matplotlib's
mathtext (`$\\frac$` in a backend's name once stopped the HTML report), control characters
written as `\\xNN`.

Each function returns a matplotlib Figure; `save(figure, path)` writes PNG or SVG by the
file's suffix and `to_bytes(figure, fmt)` gives the bytes (for the HTML report).
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar
from urllib.parse import quote

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from sudokubench.errors import ArgumentError
from sudokubench.harness.report.lines import PLOT_KINDS
from sudokubench.harness.report.model import VIRTUAL_BEST
from sudokubench.output import escape_controls

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sudokubench.harness.report.model import RunReport

__all__ = [
    "KINDS",
    "cactus",
    "default_pair",
    "distributions",
    "puzzle_link",
    "save",
    "scatter",
    "to_bytes",
]

KINDS = PLOT_KINDS

# matplotlib 3.10 replaced boxplot's `vert=False` by `orientation="horizontal"`.
_HORIZONTAL = (
    {"orientation": "horizontal"}
    if tuple(int(x) for x in matplotlib.__version__.split(".")[:2]) >= (3, 10)
    else {"vert": False}
)


#: Paul Tol's muted palette, told apart with any colour vision, ordered so that neighbours in
#: the registry (fast and native, cpsat and pycosat) differ most, and black as a tenth colour.
PALETTE = (
    "#332288", "#DDCC77", "#44AA99", "#CC6677", "#88CCEE",
    "#999933", "#882255", "#117733", "#AA4499", "#000000",
)  # fmt: skip
_LINES = ("-", "--", "-.", ":")
_MARKERS = ("", "o", "s", "^", "D", "v")


def styles(backends: tuple[str, ...] | list[str]) -> dict[str, dict[str, object]]:
    """Each backend's colour, line style and marker: one colour a family (the name before
    `:`), one line style a member of it, another marker each time the colours come round."""
    families: dict[str, int] = {}
    members: dict[str, int] = {}
    found = {}
    for name in backends:
        family = name.partition(":")[0]
        f = families.setdefault(family, len(families))
        m = members[family] = members.get(family, -1) + 1
        found[name] = {
            "color": PALETTE[f % len(PALETTE)],
            "linestyle": _LINES[m % len(_LINES)],
            "marker": _MARKERS[(f // len(PALETTE) + m // len(_LINES)) % len(_MARKERS)],
        }
    return found


def _about(report: RunReport) -> str:
    """The inputs, limit and timeout of the run, for a title."""
    args = report.run.args
    files = [escape_controls(Path(str(f)).name) for f in args.get("files") or ()] or ["showcase"]
    shown = ", ".join(files[:3]) + (f" + {len(files) - 3} more" if len(files) > 3 else "")
    return f"{shown}; limit {args.get('limit')}, timeout {_timeout(report):g} s"


def _timeout(report: RunReport) -> float:
    return float(report.run.args.get("timeout") or 10.0)


def _times(report: RunReport, backend: str) -> dict[int, float]:
    """Per puzzle (its index in the run), the backend's time on the puzzles it finished."""
    column = report.column(backend)
    return dict(column.finished_times()) if column is not None else {}


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _as_text(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """`function` run with mathtext off: every text made or drawn meanwhile (labels, titles,
    legends, ticks) is shown as written, `$` and all."""

    @functools.wraps(function)
    def plain(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with matplotlib.rc_context({"text.parse_math": False}):
            return function(*args, **kwargs)

    return plain


@_as_text
def cactus(report: RunReport) -> Figure:
    """Puzzles finished (y) within a time per puzzle (x, log) for each backend."""
    fig, ax = plt.subplots(figsize=(10, 6), layout="constrained")
    total = report.puzzle_count
    best = sorted(_times(report, VIRTUAL_BEST).values())
    if best and len(report.backends) > 1:  # first, wide and pale: beneath every backend
        ax.step(
            best,
            range(1, len(best) + 1),
            where="post",
            label=VIRTUAL_BEST,
            linewidth=6,
            color="0.8",
            solid_capstyle="butt",
            zorder=1,
        )
    style = styles(report.backends)
    for backend in report.backends:
        times = sorted(_times(report, backend).values())
        if not times:
            continue
        ax.step(
            times,
            range(1, len(times) + 1),
            where="post",
            label=f"{escape_controls(backend)} ({len(times)})",
            linewidth=1.5,
            markevery=max(1, len(times) // 8),
            markersize=4,
            zorder=2,
            **style[backend],
        )
    if ax.get_lines():
        ax.set_xscale("log")
        ax.axvline(_timeout(report), color="0.3", linestyle=":", linewidth=1, zorder=0)
        ax.annotate(
            "timeout",
            (_timeout(report), 1),
            xycoords=("data", "axes fraction"),
            xytext=(-3, -3),
            textcoords="offset points",
            ha="right",
            va="top",
            fontsize="small",
            color="0.3",
        )
    ax.set_xlabel("time per puzzle (s, log scale)")
    ax.set_ylabel(f"puzzles finished (of {total})")
    ax.set_title(f"run {report.run.id}: puzzles finished within a time\n{_about(report)}")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_lines():
        ax.legend(
            fontsize="small",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            title="backend (finished)",
            title_fontsize="small",
        )
    else:
        ax.text(0.5, 0.5, "no puzzle finished yet", ha="center", transform=ax.transAxes)
    return fig


def default_pair(report: RunReport) -> tuple[str, str] | None:
    """The scatter's pair: the baseline (else the backend that finished the most) and, of the
    others, the one that finished the most puzzles; None when fewer than two backends
    finished any (a backend that finished nothing has no point to draw)."""
    finished = {b: len(_times(report, b)) for b in report.backends}
    ranked = sorted((b for b in report.backends if finished[b]), key=lambda b: -finished[b])
    if len(ranked) < 2:
        return None
    base = report.baseline if report.baseline in ranked else ranked[0]
    return base, next(b for b in ranked if b != base)


def puzzle_link(puzzle_id: str) -> str:
    """The HTML report's address of a puzzle's view (`report/html.py`)."""
    return "#puzzle=" + quote(puzzle_id, safe="")


@_as_text
def scatter(report: RunReport, a: str, b: str) -> Figure:
    """Per-puzzle time of `b` (y) against `a` (x), log-log; unfinished ones at the timeout."""
    for name in (a, b):
        if name not in report.backends:
            known = ", ".join(report.backends)
            raise ArgumentError(f"run {report.run.id} has no backend {name!r} (has: {known})")
    ta, tb = _times(report, a), _times(report, b)
    timeout = float(report.run.args.get("timeout", 10.0))
    ids = [p.puzzle_id for p in report.puzzles] if ta or tb else []
    both = [i for i in range(len(ids)) if i in ta and i in tb]
    partial = [i for i in range(len(ids)) if (i in ta) != (i in tb)]
    fig, ax = plt.subplots(figsize=(6.5, 6), layout="constrained")
    points = ax.scatter(
        [ta[i] for i in both], [tb[i] for i in both], s=12, alpha=0.6, label="both finished"
    )
    points.set_urls([puzzle_link(ids[i]) for i in both])  # in SVG: a click opens the puzzle
    if partial:
        unfinished = ax.scatter(
            [ta.get(i, timeout) for i in partial],
            [tb.get(i, timeout) for i in partial],
            s=24,
            facecolors="none",
            edgecolors="tab:red",
            label="one did not finish (drawn at the timeout)",
        )
        unfinished.set_urls([puzzle_link(ids[i]) for i in partial])
    values = [ta[i] for i in both] + [tb[i] for i in both] + ([timeout] if partial else [])
    if values:
        lo, hi = min(values) / 1.5, max(values) * 1.5
        ax.plot([lo, hi], [lo, hi], color="gray", linewidth=1, linestyle="--", label="equal time")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xscale("log")
        ax.set_yscale("log")
    a_text, b_text = escape_controls(a), escape_controls(b)
    ax.set_xlabel(f"{a_text}: time per puzzle (s)")
    ax.set_ylabel(f"{b_text}: time per puzzle (s)")
    if partial:
        ax.axvline(timeout, color="0.3", linestyle=":", linewidth=1)
        ax.axhline(timeout, color="0.3", linestyle=":", linewidth=1, label="timeout")
    ax.set_title(
        f"run {report.run.id}: {b_text} vs {a_text} ({len(both)} puzzles both finished)\n"
        + _about(report),
        fontsize="medium",
    )
    ax.grid(True, which="both", alpha=0.3)
    if values:
        ax.legend(fontsize="small")
    return fig


@_as_text
def distributions(report: RunReport) -> Figure:
    """Per collection, a box plot of each backend's per-puzzle times (log scale)."""
    names = report.collection_names()
    tally = report.tally
    cols = 2 if len(names) > 3 else 1
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(
        rows,
        cols,
        figsize=(9 * cols, rows * (0.3 * len(report.backends) + 1.3)),
        layout="constrained",
        squeeze=False,
    )
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    for code, (ax, name) in enumerate(zip(axes.flat, names, strict=False)):
        members = tally.collection_size(code)
        data, labels = [], []
        for backend in report.backends:
            times = [
                t for i, t in _times(report, backend).items() if tally.collection_code(i) == code
            ]
            data.append(times or [float("nan")])
            labels.append(f"{escape_controls(backend)} ({len(times)})")
        if all(math.isnan(t[0]) for t in data):
            ax.text(0.5, 0.5, "no puzzle finished yet", ha="center", transform=ax.transAxes)
            ax.set_yticks(range(1, len(labels) + 1), labels)
        else:
            ax.boxplot(data, showfliers=True, widths=0.6, **_HORIZONTAL)
            ax.set_yticks(range(1, len(labels) + 1), labels)
            ax.set_xscale("log")
            ax.axvline(_timeout(report), color="0.3", linestyle=":", linewidth=1)
        ax.invert_yaxis()
        ax.set_title(f"{escape_controls(name)} ({members} puzzles)", fontsize="medium")
        ax.grid(True, axis="x", which="both", alpha=0.3)
        ax.tick_params(axis="y", labelsize="small")
        ax.set_xlabel("time per puzzle (s, log scale); (n) = puzzles finished", fontsize="small")
    fig.suptitle(f"run {report.run.id}: time per puzzle\n{_about(report)}", fontsize="medium")
    return fig


@_as_text
def to_bytes(figure: Figure, fmt: str = "png") -> bytes:
    """The figure as PNG or SVG bytes; closes it."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=110)
    plt.close(figure)
    return buffer.getvalue()


def save(figure: Figure, path: str | Path) -> None:
    """Write the figure to `path`, PNG or SVG by its suffix; closes it."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        plt.close(figure)
        raise ArgumentError(f"{path}: the plot file must end in .png or .svg")
    path.write_bytes(to_bytes(figure, fmt))
