"""The documentation builds with MkDocs in strict mode: a broken link, a broken anchor or a page
missing from the navigation (or named there and missing) fails the build, and so this test.

The build runs `python -m mkdocs build --strict` (the `dev` extra installs MkDocs and its
Material theme) into a temporary directory, never into the repository. Copies of the pages with
one fault each show that the build really fails on it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "mkdocs.yml"


def build(root: Path, site: Path) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of the config in `root`, into `site`."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # (an announcement, not about our pages)
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )


def nav_pages(config: Path) -> list[str]:
    """The pages the navigation names, in order (nested sections flattened)."""
    # mkdocs.yml may hold tags such as !!python/name; the nav never does, so skip them
    loader = type("Loader", (yaml.SafeLoader,), {})
    loader.add_multi_constructor("", lambda loader, suffix, node: None)
    nav = yaml.load(config.read_text(encoding="utf-8"), Loader=loader)["nav"]

    def walk(items: list) -> list[str]:
        found = []
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            found.extend(walk(value) if isinstance(value, list) else [value])
        return found

    return walk(nav)


def test_every_page_is_in_the_nav_and_every_nav_page_exists():
    pages = nav_pages(CONFIG)
    docs = ROOT / "docs"
    assert [p for p in pages if not (docs / p).is_file()] == []
    on_disk = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))
    assert sorted(set(on_disk) - set(pages)) == [], "pages that no navigation leads to"


def test_the_docs_build_strictly(tmp_path: Path):
    site = tmp_path / "site"
    done = build(ROOT, site)
    assert done.returncode == 0, done.stderr[-3000:]
    for page in nav_pages(CONFIG):
        stem = page.removesuffix(".md")
        built = site / ("index.html" if stem == "index" else f"{stem}/index.html")
        assert built.is_file(), built
    assert (site / "cactus.png").is_file()  # the README's picture, shown on the site too


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the config and the pages, to break."""
    root = tmp_path / "copy"
    root.mkdir()
    shutil.copy(CONFIG, root / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", root / "docs")
    return root


def _append(path: Path, text: str) -> None:
    """`text` added at the end of the file (made when missing)."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(old + text, encoding="utf-8")


FAULTS = {
    "broken-link": ("docs/index.md", "\n[gone](no-such-page.md)\n", "no-such-page.md"),
    "broken-anchor": ("docs/index.md", "\n[gone](cli.md#no-such-heading)\n", "no-such-heading"),
    "missing-nav-page": ("mkdocs.yml", "  - Gone: no-such-page.md\n", "no-such-page.md"),
    "page-not-in-nav": ("docs/orphan.md", "# Orphan\n", "orphan.md"),
}


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(name, marks=[] if name == "broken-link" else [pytest.mark.slow])
        for name in FAULTS
    ],
)
def test_a_fault_fails_the_build(copy: Path, fault: str):
    """The check can fail: the same pages with one fault each do not build."""
    path, text, named = FAULTS[fault]
    _append(copy / path, text)
    done = build(copy, copy / "site")
    assert done.returncode != 0
    assert named in done.stderr, done.stderr[-3000:]
