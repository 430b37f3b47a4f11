"""`backend.package_version`: `importlib.metadata.version`'s answer, read without it in the
usual case (`_dist_info_version`), through it otherwise."""

from __future__ import annotations

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


def test_the_usual_case_needs_no_importlib_metadata(monkeypatch) -> None:
    # The usual case made here, whatever earlier tests left on the path: the folder that
    # holds numba's metadata, and Python's own finders alone.
    site = str(metadata.distribution("numba")._path.parent)
    monkeypatch.setattr(sys, "path", [site])
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if isinstance(f, type)])
    assert _dist_info_version("numba") == metadata.version("numba")
    assert _dist_info_version("no-such-distribution-here") == ""
    assert package_version("no-such-distribution-here") is None


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
        except metadata.PackageNotFoundError:
            expected = None
        assert package_version(spelling) == expected, (case, spelling)
    if case == "first-wins":
        assert _dist_info_version("made-up-pkg") == "1.0"
    if case in ("two-in-a-folder", "egg-info", "folded", "no-version"):
        assert _dist_info_version("made-up-pkg") is None  # (importlib.metadata asked)
