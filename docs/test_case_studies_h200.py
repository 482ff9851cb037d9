"""The H200 measurements in data/h200 and the page docs/case_studies_h200.py computes from them.

No GPU is needed: these read the committed data (issue 8), as the page's script does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "h200"

import case_studies_h200 as page

from starchart import load
from starchart.study.store import Store


@pytest.mark.parametrize("name", page.KERNELS)
def test_each_kernel_has_400_checked_configurations_and_its_environment(name):
    data = load(DATA / f"{name}.db")
    assert len(data) == 400
    failed = data.frame[~data.valid.to_numpy()]
    # the only failures are launches the GPU refuses (registers), never a wrong answer or a grid bug
    assert failed["reason"].str.startswith("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES").all(), failed["reason"].tolist()
    assert (data.y("time")[data.valid.to_numpy()] > 0).all()
    with Store.open(DATA / f"{name}.db", read_only=True) as store:
        sessions = store.get("sessions", [])
    gpus = {gpu["name"] for s in sessions for gpu in s["environment"]["gpus"]}
    assert gpus == {"NVIDIA H200"}
    cache = json.loads((DATA / f"{name}.json").read_text())  # the Kernel Tuner cache export
    assert len(cache["cache"]) == 400


def test_kmeans_has_power_and_energy_for_every_configuration():
    data = load(DATA / "kmeans.csv").ok()
    assert len(data) == 400
    power, energy = data.y("power"), data.y("energy")
    assert (power > 100).all() and (power < 800).all()  # watts of a 700 W board under load
    assert (energy > 0).all()


def test_the_page_sections_compute_from_the_data():
    md, numbers = page.spaces_section()
    rows = {r["kernel"]: r for r in numbers["spaces"]}
    assert set(rows) == set(page.KERNELS) and all(r["measured"] == 400 for r in rows.values())
    assert rows["matrix"]["worst / best"] > 10  # what tuning is worth on the slowest kernel
    md, numbers = page.throughput_section()
    for row in numbers["throughput"]:
        assert row["target ÷ MSP"] >= 1, row
    md, numbers = page.tradeoff_section()
    assert numbers["tradeoff"]["coverage"]["inside"] > 0
    assert "kmeans" in "\n".join(md)
