"""The analyses are results as data: importing them loads no plotting library (the figures live in
starchart.report.figures, drawn when a result's .plot() is called)."""

from __future__ import annotations

import subprocess
import sys

from child_env import child_env


def test_the_analyses_and_methods_import_no_matplotlib():
    """Nor do MSP, carving and XAPP: their figures live in starchart.report too."""
    code = ("import sys, starchart.analyses.tradeoff, starchart.analyses.platforms, starchart.analyses.inputs, "
            "starchart.analyses.sample_size, starchart.analyses.throughput, starchart.msp, starchart.carve, "
            "starchart.xapp, starchart.xapp.regression, starchart.xapp.model\n"
            "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_a_result_still_draws_itself_and_the_old_figure_names_still_work():
    import pandas as pd

    from starchart import Dataset, tradeoff
    from starchart.analyses.tradeoff import plot_tradeoff  # the old name, now report.figures'
    from starchart.report.figures import plot_tradeoff as drawn

    frame = pd.DataFrame({"b": [1, 2, 3, 4, 5, 6, 7, 8] * 2, "u": [1] * 8 + [2] * 8,
                          "time": [8.0, 7, 6, 5, 4, 3, 2, 1] * 2, "power": [1.0, 2, 3, 4, 5, 6, 7, 8] * 2})
    result = tradeoff(Dataset.from_frame(frame, params=["b", "u"]), ("time", "power"), {"time": 4, "power": 6},
                      tree_options={"min_samples_split": 2})
    assert plot_tradeoff is drawn
    assert result.plot().axes and drawn(result).axes


def test_the_moved_method_figures_keep_their_old_names():
    import starchart.carve.plots
    import starchart.msp.plots
    from starchart.msp import plot_throughput_curve
    from starchart.report import carve_figures, msp_figures

    assert starchart.msp.plots is msp_figures and starchart.carve.plots is carve_figures
    assert plot_throughput_curve is msp_figures.plot_throughput_curve
