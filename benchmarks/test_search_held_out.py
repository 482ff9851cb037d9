"""The held-out spaces of ``benchmarks/search_held_out.py``: the CPU space measured here, the kernels measured on
an H200 (``--set h200``), and Kernel Tuner on caches written from datasets that are not Kernel Tuner caches
(another metric than ``time``, another file)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from shared_data import dataset_path

import starchart
from starchart.demo import demo_space

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
search_bench = pytest.importorskip("search")

CPU_SPACE = "matmul EPYC CPU (time)"


def test_the_cpu_space_holds_every_configuration_of_the_demo_space_once():
    path, metric = search_bench.HELD_OUT_SPACES[CPU_SPACE]
    ds = starchart.load(path)
    space = demo_space()
    assert list(ds.params) == list(space.names) and metric in ds.metrics
    measured = set(ds.frame[list(space.names)].itertuples(index=False, name=None))
    assert len(measured) == len(ds) == space.size()  # exhaustive, each configuration once
    every = pd.concat(list(space.enumerate()))
    assert measured == set(every[list(space.names)].itertuples(index=False, name=None))
    times = ds.ok().y(metric)
    assert len(times) == len(ds)  # every configuration compiled, ran and reproduced the reference checksum
    assert times.min() > 0 and times.max() / times.min() > 10  # the spread the demo's docstring promises


def test_each_h200_space_is_the_400_configurations_of_its_file():
    # (that they ran on an H200 is checked by docs/test_case_studies_h200.py, from the stores' sessions)
    assert len(search_bench.H200_SPACES) == 5 and max(search_bench.H200_BUDGETS) <= 100
    for name, (path, metric) in search_bench.H200_SPACES.items():
        ds, space, found_metric, optimum = search_bench._space_data(name)
        assert found_metric == metric == "time"
        assert space.size() == len(ds) == 400, name  # the search's space is exactly the measured sample
        # a budget of 100 leaves three quarters of the space unmeasured: the search must still choose
        assert max(search_bench.H200_BUDGETS) <= space.size() / 4
        assert optimum == pytest.approx(ds.ok().y(metric).min())


@pytest.mark.parametrize("name, file", [(CPU_SPACE, None),
                                        ("kmeans HD7970 (wattage)", "starchart_kmeans/kmeans_hd7970.csv"),
                                        ("matrix H200 (time)", None)])
def test_kernel_tuner_reads_the_space_metric_from_a_cache_written_for_a_held_out_space(tmp_path, name, file):
    pytest.importorskip("kernel_tuner")
    if file:
        dataset_path(file)
    trajectory = search_bench.kt_trajectory(name, "random_sample", 20, 0, tmp_path)
    assert len(trajectory) == 20
    measured = search_bench._measured(name)
    types = [type(v) for v in measured.index[0]]
    for key, value in trajectory:  # Kernel Tuner saw exactly the dataset's value of the space's metric
        config = tuple(t(float(v)) for t, v in zip(types, key.split(",")))
        expected = float(measured.loc[config])
        assert (math.isnan(value) and math.isnan(expected)) or value == pytest.approx(expected), key
    assert not np.isnan([v for _, v in trajectory]).all()
