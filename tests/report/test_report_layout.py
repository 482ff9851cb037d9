"""The HTML report's layout as a browser lays it out (headless Chromium): what a reader would see as broken.

The report itself has no scripts; each test measures a copy of it with a small script added that writes
the measurements into the page, which Chromium's ``--dump-dom`` then prints.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from browser import CHROMIUM, FLAGS

from starchart import Dataset, StarchartTree
from starchart.report.html import write_html_report

pytestmark = pytest.mark.browser

#: Collects, once the page is laid out: its height, the main column's right edge, the right edge of every
#: table (where it would be drawn, not clipped) and whether a box around it scrolls it, and each <pre>'s height.
MEASURE = """<script>
addEventListener("load", () => {
  const main = document.querySelector("main").getBoundingClientRect();
  const clipped = el => { for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p); if (s.overflowX !== "visible") return true; } return false; };
  const out = {height: document.documentElement.scrollHeight, mainRight: main.right,
    tables: [...document.querySelectorAll("table")].map(t => ({right: t.getBoundingClientRect().right,
                                                             clipped: clipped(t)})),
    pres: Object.fromEntries([...document.querySelectorAll("section")].map(s => [s.id,
      [...s.querySelectorAll("pre")].map(p => p.getBoundingClientRect().height)]))};
  const pre = document.createElement("pre"); pre.id = "measured"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def measure(report: Path, tmp_path: Path) -> dict:
    page = tmp_path / "measured.html"
    page.write_text(report.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,900",
                           "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                          check=False, capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="measured">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, done.stderr[-2000:]
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


@pytest.fixture(scope="module")
def wide_deep() -> tuple[Dataset, StarchartTree]:
    """Sixteen long parameter names (a table wider than the page) and a tree of hundreds of leaves."""
    rng = np.random.default_rng(0)
    names = [f"a_rather_long_parameter_name_{i}" for i in range(16)]
    frame = pd.DataFrame({n: rng.integers(0, 8, 1500) for n in names})
    frame["time"] = 1 + frame[names[:4]].to_numpy() @ np.array([1.0, 0.5, 0.25, 0.1]) + rng.uniform(0, 0.2, 1500)
    ds = Dataset.from_frame(frame, metrics=["time"])
    return ds, StarchartTree(min_samples_split=2).fit(ds.X, ds.y("time"))


def test_tables_wider_than_the_page_scroll_in_a_box_of_their_own(wide_deep, tmp_path):
    """The best configuration's table of a 16-parameter space ran out of its box and past the page's edge."""
    ds, tree = wide_deep
    out = write_html_report(tmp_path / "r.html", dataset=ds, tree=tree, metric="time", save_figures=False,
                            extra_sections={"A wide table": ds.frame.head(3)})
    seen = measure(out, tmp_path)
    wide = [t for t in seen["tables"] if t["right"] > seen["mainRight"]]
    assert wide  # the case this is about: tables wider than the column
    assert all(t["clipped"] for t in wide), wide


def test_a_long_text_tree_does_not_make_the_page_endless(wide_deep, tmp_path):
    """The text tree of a tree with hundreds of leaves is as many lines: it made the page tens of thousands
    of pixels long, the sections after it out of reach."""
    ds, tree = wide_deep
    assert tree.export_text().count("\n") > 1000
    out = write_html_report(tmp_path / "r.html", dataset=ds, tree=tree, metric="time", save_figures=False)
    seen = measure(out, tmp_path)
    assert max(seen["pres"]["text-tree"]) < 900
    assert seen["height"] < 15000, seen["height"]


def test_an_empty_table_section_says_so_instead_of_a_bare_header(wide_deep, tmp_path):
    """Such as "Settings within 5% of the best everywhere" when no setting is: a header row and nothing."""
    ds, tree = wide_deep
    out = write_html_report(tmp_path / "r.html", dataset=ds, tree=tree, metric="time", save_figures=False,
                            extra_sections={"Nothing qualifies": ds.frame.head(0)})
    section = re.search(r'<section id="extra-0">.*?</section>', out.read_text(encoding="utf-8"), re.DOTALL)
    assert "<table" not in section.group(0) and "None" in section.group(0)
