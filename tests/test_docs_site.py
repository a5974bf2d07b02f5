"""The documentation site builds with warnings as errors and renders in a real browser.

``mkdocs build --strict`` (mkdocs-material, the API reference from the numpydoc docstrings by
mkdocstrings) into a temporary folder; then headless Chromium opens the home page and an API
page, and every internal link of the built site must lead to a page (and anchor) that exists.
Skipped, with the reason, where the ``docs`` extra or Chromium is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

#: a full site build and a browser: the full suite runs them (`-m "not slow"` skips them)
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _need_docs_extra() -> None:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None or (
            "." in module and importlib.util.find_spec(module) is None
        ):
            pytest.skip(f"{module} is not installed: pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    _need_docs_extra()
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium: apt-get install chromium (CI installs it)")


def render(page: Path) -> str:
    """The DOM of ``page`` after headless Chromium ran its scripts."""
    done = subprocess.run(
        [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class _Page(HTMLParser):
    """Links, ids, the title and code blocks of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.title = ""
        self.code_blocks = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "pre":
            self.code_blocks += 1
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def check_home_page_renders_in_a_browser(site: Path) -> None:
    dom = render(site / "index.html")
    page = parse(dom)
    assert page.title.strip() == "booteval"
    assert page.code_blocks >= 2
    assert "52.01 (46.16, 57.81)" in dom  # the example's output, as the tests check it
    assert 'class="js-focus-visible js"' in dom or " js" in dom.split("<head", 1)[0]


def check_an_api_page_renders_its_reference(site: Path) -> None:
    dom = render(site / "reference" / "samples" / "index.html")
    page = parse(dom)
    assert "Several samples per question" in page.title
    assert "booteval.nested_ci" in page.ids or any("nested_ci" in i for i in page.ids)
    for parameter in ("scores", "items", "resample", "clusters", "confidence_level"):
        assert parameter in dom
    assert page.code_blocks >= 1  # the docstring's example
    assert "Parameters" in dom and "Returns" in dom


def check_api_reference_has_links_not_raw_roles(site: Path) -> None:
    """numpydoc's Sphinx roles (``:func:`booteval.ci```) render as cross-reference links
    (``scripts/griffe_roles.py``), never as raw text, and an internal constant is not an
    entry of a page's contents."""
    roles = re.compile(r":(?:func|class|meth|attr|mod|data|exc|obj):")
    pages = sorted((site / "reference").rglob("index.html"))
    assert len(pages) >= 10
    for path in pages:
        text = path.read_text(encoding="utf-8")
        assert not roles.search(text), f"raw role text in {path.relative_to(site)}"
        assert "<autoref" not in text, f"unresolved reference markup in {path}"
    page = parse((site / "reference" / "intervals" / "index.html").read_text(encoding="utf-8"))
    to_objects = [h for h in page.links if "#booteval." in h]
    assert len(to_objects) > 20  # cross-references to documented objects are links
    assert any(h.endswith("#booteval.CIResult") for h in to_objects)
    for constant in ("CLOSED_FORMS", "FEW_CLUSTERS", "NEAR_BOUNDARY"):
        assert not any(i.endswith(constant) for i in page.ids), constant


def check_no_internal_link_is_broken(site: Path) -> None:
    pages = {p: parse(p.read_text(encoding="utf-8")) for p in site.rglob("*.html")}
    assert len(pages) > 15
    broken = []
    for path, page in pages.items():
        for href in page.links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith("mailto:"):
                continue  # external
            if not parts.path:
                target = path
            elif parts.path.startswith("/"):  # from the site's root (the 404 page)
                target = site / unquote(parts.path).lstrip("/")
            else:
                target = (path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{path.relative_to(site)}: {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages.get(target, None)
                ids = ids.ids if ids is not None else parse(target.read_text()).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{path.relative_to(site)}: {href} (no such anchor)")
    assert broken == []


def test_the_docs_site(site):
    """One test for the one build (work stealing would build it again for each worker
    that took one of several tests): each check in turn, named by its function; the two
    that need Chromium last (without it they skip, after the others have run)."""
    check_api_reference_has_links_not_raw_roles(site)
    check_no_internal_link_is_broken(site)
    check_home_page_renders_in_a_browser(site)
    check_an_api_page_renders_its_reference(site)
