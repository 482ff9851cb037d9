"""CLBlast's Xgemm as the CUDA translation unit in ``benchmarks/carving/gemm``: it compiles with NVRTC for the
cache's GPU, its local memory is the tiles the parameters ask for, and its space is the cache's key set."""

from __future__ import annotations

from pathlib import Path

from cuda_toolchain import toolchain_or_skip
from shared_data import dataset_path

import starchart
from starchart import Space
from starchart.carve.resources import ResourceCompiler

GEMM = Path(__file__).resolve().parent / "carving" / "gemm"


def test_the_space_is_the_caches_key_set():
    space = Space.from_file(GEMM / "gemm.yaml")
    assert space.size() == 17_956
    cache = starchart.load(dataset_path("gemm/RTX_3090.json.gz"))
    params = list(space.names)
    measured = {tuple(row) for row in cache.frame[params].to_numpy().tolist()}
    drawn = space.sample(200, seed=0)[params].to_numpy().tolist()
    assert all(tuple(row) in measured for row in drawn)


def test_xgemm_compiles_and_holds_the_tiles_it_is_asked_for(tmp_path):
    toolchain_or_skip(86)
    space = Space.from_file(GEMM / "gemm.yaml")
    configs = space.sample(3, seed=1)
    table = ResourceCompiler(GEMM / "xgemm.cu", "Xgemm", "8.6", jobs=1, cache_dir=tmp_path).frame(
        configs, params=list(space.names), counts=False, progress=False)
    assert (table["status"] == "ok").all(), table.get("reason")
    # SA / SB: A's and B's KWG x MWG (NWG) tiles in local memory, 4-byte floats
    tiles = 4 * table["KWG"] * (table["SA"] * table["MWG"] + table["SB"] * table["NWG"])
    assert table["shared_bytes"].tolist() == tiles.tolist()
    assert (table["registers"] > 0).all()
