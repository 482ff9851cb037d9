"""The validation scatter plot (paper Fig. 1b/c, Fig. 7b/c): a metric against one parameter, grouped by another."""

from __future__ import annotations

import pytest

from starchart import datasets
from starchart.errors import InputError
from starchart.report.plots import plot_scatter


def test_every_valid_design_is_one_point_in_its_group():
    kmeans = datasets.load_kmeans()
    ax = plot_scatter(kmeans, "tpp", hue="consec").axes[0]
    counts = [len(collection.get_offsets()) for collection in ax.collections]
    assert counts == [int((kmeans.frame["consec"] == v).sum()) for v in (0, 1)] and sum(counts) == 500
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["consec = 0", "consec = 1"]
    assert ax.get_ylabel() == "runtime (ms)" and ax.get_yscale() == "log"  # 0.05 … 6.3 ms
    # a parameter of few values sits on evenly spaced, labelled positions
    few = plot_scatter(kmeans, "consec", metric="wattage").axes[0]
    assert [t.get_text() for t in few.get_xticklabels()] == ["0", "1"] and few.get_ylabel() == "wattage (W)"


def test_what_cannot_be_plotted_is_said():
    kmeans = datasets.load_kmeans()
    with pytest.raises(InputError, match="'bogus' is not a parameter") as caught:
        plot_scatter(kmeans, "bogus")
    assert caught.value.param == "x"
    with pytest.raises(InputError, match="'tpp' has 32 values, more than the 10 symbols") as caught:
        plot_scatter(kmeans, "consec", hue="tpp")
    assert caught.value.param == "hue"
    with pytest.raises(InputError, match="no metric named 'power'"):
        plot_scatter(kmeans, "tpp", metric="power")
