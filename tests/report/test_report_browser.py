"""The HTML report renders in a real browser (headless Chromium): a screenshot, no console errors."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from browser import CHROMIUM, FLAGS
from matplotlib.image import imread
from shared_data import dataset_path

from starchart.report.study import write_study_report

pytestmark = pytest.mark.browser

LOGGING = ["--enable-logging=stderr", "--v=1"]  # the page's console messages on stderr


def test_report_renders_without_console_errors(tmp_path):
    report = write_study_report(dataset_path("starchart_kmeans/kmeans_hd7970.csv"), tmp_path / "r" / "report.html",
                                metric="runtime")
    shot = tmp_path / "shot.png"
    done = subprocess.run([CHROMIUM, *FLAGS, *LOGGING, f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1800",
                           f"--screenshot={shot}", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.is_file(), done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if re.search(r"CONSOLE[:(]\d+", line)]
    assert not console, console
    pixels = imread(shot)
    assert pixels.shape[0] >= 1000 and pixels.shape[1] >= 1200
    # a rendered page, not a blank one: many distinct colours, dark text on light ground
    assert np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0).shape[0] > 50
    assert pixels[..., :3].min() < 0.3 and pixels[..., :3].mean() > 0.6
