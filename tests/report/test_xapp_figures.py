"""The XAPP figure of predicted against measured speedups."""

from __future__ import annotations

import numpy as np
import pandas as pd

from starchart.report.xapp_figures import plot_predicted_speedups


def test_each_kernel_is_a_point_with_its_interval_and_the_misses_are_named(tmp_path):
    table = pd.DataFrame({"speedup": [1.0, 10.0, 100.0], "predicted": [1.5, 40.0, 90.0],
                          "low": [0.5, 20.0, 30.0], "high": [3.0, 80.0, 300.0]}, index=["a", "b", "c"])
    table["error_factor"] = np.maximum(table["predicted"] / table["speedup"], table["speedup"] / table["predicted"])
    path = tmp_path / "pred.png"
    fig = plot_predicted_speedups(table, path, title="test")
    ax = fig.axes[0]
    assert path.stat().st_size > 0 and ax.get_xscale() == "log" and ax.get_yscale() == "log"
    # b's measured 10 lies outside its interval [20, 80]: only it is named
    assert [t.get_text() for t in ax.texts] == ["b"]
    # one red point, two blue
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["within 2x", "measured inside the interval", "measured outside the interval"]
    inside, outside = [c for c in ax.containers]
    assert len(inside.lines[0].get_xdata()) == 2 and list(outside.lines[0].get_xdata()) == [10.0]
