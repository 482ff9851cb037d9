"""The documentation site builds strictly, and its home page and a report render in headless Chromium."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import screenshots
from matplotlib.image import imread

needs_mkdocs = pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None,
                                  reason='needs mkdocs: pip install ".[docs]"')


def _rendered(shot) -> None:
    pixels = imread(shot)
    # a rendered page, not a blank one: many distinct colours, dark text on a light ground
    assert np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0).shape[0] > 50
    assert pixels[..., :3].min() < 0.3 and pixels[..., :3].mean() > 0.6


@needs_mkdocs
def test_the_site_builds_with_every_page_and_the_generated_references(tmp_path) -> None:
    home = screenshots.build_site(tmp_path / "site")
    site = home.parent
    for page in ("getting-started", "guides/cuda-kernel", "concepts/tree", "benchmarks", "reference/cli",
                 "reference/api", "changelog"):
        assert (site / page / "index.html").is_file(), page
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert "starchart xapp features" in cli and "--budget" in cli  # generated from the Typer app
    api = (site / "reference" / "api" / "index.html").read_text()
    assert "starchart.tree.StarchartTree" in api and "Parameters" in api  # generated from the docstrings
    assert "```" not in (site / "guides" / "cuda-kernel" / "index.html").read_text()  # snippets included


@needs_mkdocs
@pytest.mark.browser
def test_home_page_and_report_render_in_chromium(tmp_path) -> None:
    home = screenshots.build_site(tmp_path / "site")
    with screenshots.served(home.parent) as url:
        console = screenshots.screenshot(url, tmp_path / "home.png")
    assert console == []
    _rendered(tmp_path / "home.png")
    report = screenshots.kmeans_report(tmp_path)
    assert screenshots.screenshot(report, tmp_path / "report.png", "1280,1800") == []
    _rendered(tmp_path / "report.png")
