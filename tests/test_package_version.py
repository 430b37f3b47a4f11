"""`backend.package_version`: `importlib.metadata.version`'s answer, read without it in the
usual case (`_dist_info_version`), through it otherwise."""

from __future__ import annotations

import os
import sys
from importlib import metadata

import pytest

from sudokubench.backend import _dist_info_version, package_version


def _spellings(name: str) -> list[str]:
    return [name, name.upper(), name.replace("-", "_"), name.replace("_", "-"), name + "."]


def test_every_installed_distribution_as_importlib_reads_it() -> None:
    names = {d.metadata["Name"] for d in metadata.distributions()}
    assert {"numba", "numpy", "typer"} <= {n.lower() for n in names}
    for name in sorted(names):
        for spelling in _spellings(name):
            try:
                expected = metadata.version(spelling)
            except metadata.PackageNotFoundError:
                expected = None
            assert package_version(spelling) == expected, spelling
            fast = _dist_info_version(spelling)  # ("": none installed; None: ask importlib)
            assert fast is None or (fast or None) == expected, spelling


def _own_finders() -> list:
    """Python's own import finders alone: a package imported by an earlier test
    (`importlib_metadata`, which dask imports, adds a finder of distributions and takes the
    path finder's away) makes every case unusual, and `_dist_info_version` then rightly asks
    `importlib.metadata`; the usual case is made with these."""
    return [
        f for f in sys.meta_path if getattr(f, "__module__", "").startswith("_frozen_importlib")
    ]


def test_the_usual_case_needs_no_importlib_metadata(monkeypatch) -> None:
    # The usual case made here, whatever earlier tests left on the path: the folder that
    # holds numba's metadata alone, Python's own finders.
    expected = metadata.version("numba")
    site = next(
        root
        for root in sys.path
        if os.path.isdir(root or ".")
        and any(
            c.lower().startswith("numba-") and c.endswith(".dist-info")
            for c in os.listdir(root or ".")
        )
    )
    monkeypatch.setattr(sys, "path", [site])
    monkeypatch.setattr(sys, "meta_path", _own_finders())
    assert _dist_info_version("numba") == expected
    assert _dist_info_version("no-such-distribution-here") == ""
    assert package_version("no-such-distribution-here") is None


def test_a_finder_of_distributions_besides_the_path_s_is_left_to_importlib(monkeypatch) -> None:
    class Finder:
        def find_spec(self, *args):
            return None

        def find_distributions(self, *args, **kwargs):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert _dist_info_version("numba") is None
    assert package_version("numba") == metadata.version("numba")


def _dist(folder, name: str, version: str, suffix: str = ".dist-info", body: str = "") -> None:
    info = folder / f"{name}-{version}{suffix}"
    info.mkdir()
    text = body or f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nText.\n"
    (info / ("METADATA" if suffix == ".dist-info" else "PKG-INFO")).write_text(text)


@pytest.mark.parametrize(
    "case",
    ["first-wins", "two-in-a-folder", "egg-info", "folded", "no-version", "lower-header"],
)
def test_made_up_paths_as_importlib_reads_them(tmp_path, monkeypatch, case) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    if case == "first-wins":
        _dist(one, "made_up.pkg", "1.0")
        _dist(two, "made_up.pkg", "2.0")
    elif case == "two-in-a-folder":
        _dist(one, "made_up.pkg", "1.0")
        _dist(one, "made_up_pkg", "3.0")
    elif case == "egg-info":
        _dist(one, "made_up.pkg", "4.0", suffix=".egg-info")
    elif case == "folded":
        _dist(one, "made_up.pkg", "5.0", body="Name: made_up.pkg\nVersion: 5.0\n extra\n\n")
    elif case == "no-version":
        _dist(one, "made_up.pkg", "6.0", body="Name: made_up.pkg\n\nVersion: 6.0\n")
    elif case == "lower-header":
        _dist(one, "made_up.pkg", "7.0", body="Name: made_up.pkg\nversion:  7.0 \n\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(one), str(two)])
    for spelling in ("made_up.pkg", "Made-Up-Pkg", "made_up_pkg"):
        try:
            expected = metadata.version(spelling)
        except (metadata.PackageNotFoundError, KeyError):  # (KeyError: the backport, no Version)
            expected = None
        assert package_version(spelling) == expected, (case, spelling)
    monkeypatch.setattr(sys, "meta_path", _own_finders())
    if case == "first-wins":
        assert _dist_info_version("made-up-pkg") == "1.0"
    if case in ("two-in-a-folder", "egg-info", "folded", "no-version"):
        assert _dist_info_version("made-up-pkg") is None  # (importlib.metadata asked)
