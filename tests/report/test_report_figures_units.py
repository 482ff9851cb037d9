"""Every axis of an analysis figure names its unit where the data states it."""

from __future__ import annotations

from starchart import datasets, tradeoff


def test_the_power_performance_plot_names_the_units_of_both_axes():
    """Fig. 10's axes said "runtime" without a unit: the kmeans data's runtime is in ms."""
    result = tradeoff(datasets.load_kmeans(), ["runtime", "wattage"], limits={"runtime": 1.0, "wattage": 220})
    ax = result.plot().axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("runtime (ms)", "wattage (W)")
