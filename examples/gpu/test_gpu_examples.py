"""The paper's six CUDA kernels (examples/gpu): spaces, references, and the kernels run on the CPU.

No GPU is needed: each kernel's own CUDA source is compiled with g++ and ``cuda_on_cpu.h``
(every GPU thread a CPU thread) for sampled configurations and checked against its
reference exactly as the GPU run checks it; ``nvcc`` (when installed) compiles the same
configurations for the H200 (sm_90).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

GPU_EXAMPLES = Path(__file__).resolve().parent

import kernels
from cpu_check import check_on_cpu, compiler

NAMES = sorted(kernels.KERNELS)

# Table I of the Starchart paper: each kernel's parameters under our names.
TABLE_I = {
    "bfs": {"block_size_x", "npt", "consec", "pa_attrib", "pa_status"},
    "hotspot": {"block_size_x", "block_size_y", "t_temp", "t_power", "t_buffer"},
    "kmeans": {"ppb", "tpp", "consec"},
    "matrix": {"block_size_x", "block_size_y", "tiling", "unroll", "t_a", "t_b", "use_smem"},
    "nbody": {"block_size_x", "block_size_y", "unroll", "n_bodies"},
    "streamcluster": {"block_size_x", "ppt", "pa_point", "use_smem"},
}

# A small change per kernel that makes it wrong: the CPU check must catch each.
MUTATIONS = {
    "bfs": ("level + 1", "level + 2"),
    "hotspot": ("ty > 0 ? TEMP(ty - 1, tx)", "ty > 0 ? TEMP(ty, tx)"),
    "kmeans": ("output[f * npoints + point]", "output[f * npoints + (point ^ 1)]"),
    "matrix": ("for (int k = 0; k < KT; k++)", "for (int k = 0; k < KT - 1; k++)"),
    "nbody": ("for (int row = 1; row < block_size_y; row++)", "for (int row = 2; row < block_size_y; row++)"),
    "streamcluster": ("for (int d = 0; d < DIM; d++)", "for (int d = 1; d < DIM; d++)"),
}


def cpu_configs(name: str, n: int, seed: int = 0) -> list[dict]:
    """``n`` sampled configurations small enough for the CPU-size inputs."""
    return kernels.cpu_space(name).to_frame().sample(n, random_state=seed).to_dict("records")


needs_cxx = pytest.mark.skipif(compiler() is None, reason="no C++ compiler (g++) to run the kernels on the CPU")


@pytest.mark.parametrize("name", NAMES)
def test_each_space_has_table_one_parameters_and_room_for_400_samples(name):
    space = kernels.space(name)
    assert TABLE_I[name] <= set(space.names)
    assert space.size() >= 400  # the issue measures 400 uniformly sampled configurations per kernel
    assert (GPU_EXAMPLES / f"{name}.cu").exists()


@needs_cxx
@pytest.mark.parametrize("name", NAMES)
def test_each_kernel_computes_its_reference_on_the_cpu(name):
    evaluator = kernels.KERNELS[name]("cpu")
    for config in cpu_configs(name, 2):
        assert check_on_cpu(evaluator, config) is None, config


@needs_cxx
@pytest.mark.parametrize("name", NAMES)
def test_the_cpu_check_catches_a_wrong_kernel(name):
    evaluator = kernels.KERNELS[name]("cpu")
    old, new = MUTATIONS[name]
    assert old in evaluator.source
    evaluator.source = evaluator.source.replace(old, new)
    config = cpu_configs(name, 1, seed=1)[0]
    if name == "nbody":
        config["block_size_y"], config["block_size_x"] = 4, 16  # the mutation skips the third row's sums
    assert check_on_cpu(evaluator, config) is not None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("name", NAMES)
def test_each_kernel_compiles_for_the_h200(name, tmp_path):
    evaluator = kernels.KERNELS[name]("cpu")
    for config in kernels.space(name).sample(3, seed=2).to_dict("records"):
        grid, block = evaluator.geometry(config)
        options = evaluator.options(config, grid, block)
        done = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", *options, "-o", str(tmp_path / "k.cubin"),
                               str(GPU_EXAMPLES / f"{name}.cu")], capture_output=True, text=True, check=False)
        assert done.returncode == 0, (config, done.stderr[-2000:])


def test_bfs_levels_match_scipy():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    rng = np.random.default_rng(3)
    starts, edges = kernels.random_graph(400, 2, rng)
    degrees = np.diff(np.append(starts, len(edges))).astype(np.int32)
    rows = np.repeat(np.arange(400), degrees)
    graph = csr_matrix((np.ones(len(edges)), (rows, edges)), shape=(400, 400))
    hops = shortest_path(graph, unweighted=True, indices=0)
    expected = np.where(np.isinf(hops), -1, hops).astype(int)
    assert np.array_equal(kernels.bfs_levels(starts, degrees, edges), expected)


def test_nbody_reference_matches_a_direct_sum():
    rng = np.random.default_rng(4)
    bodies = np.column_stack([rng.uniform(-1, 1, (30, 3)), rng.uniform(0.5, 1, 30)])
    direct = np.zeros((30, 3))
    for i in range(30):
        for j in range(30):
            d = bodies[j, :3] - bodies[i, :3]
            direct[i] += bodies[j, 3] * d / (d @ d + 0.01) ** 1.5
    assert np.allclose(kernels.nbody_accelerations(bodies)[:, :3], direct)


def test_hotspot_reference_matches_rodinia_loops():
    rng = np.random.default_rng(5)
    temp, power = rng.uniform(323, 343, (6, 5)), rng.uniform(0, 1e-3, (6, 5))
    c = kernels.hotspot_constants(6, 5)
    expected = np.empty_like(temp)
    for r in range(6):
        for k in range(5):
            t = temp[r, k]
            n = temp[r - 1, k] if r > 0 else t
            s = temp[r + 1, k] if r < 5 else t
            w = temp[r, k - 1] if k > 0 else t
            e = temp[r, k + 1] if k < 4 else t
            expected[r, k] = t + c["step_div_cap"] * (power[r, k] + (s + n - 2 * t) * c["ry_1"]
                                                      + (e + w - 2 * t) * c["rx_1"] + (80.0 - t) * c["rz_1"])
    assert np.allclose(kernels.hotspot_step(temp, power, c), expected, rtol=0, atol=1e-9)


@needs_cxx
def test_the_measuring_script_stores_resumes_and_exports_in_a_cpu_dry_run(tmp_path):
    import measure_h200

    from starchart import load

    args = ["bfs", "--cpu", "--repeats", "1", "--out", str(tmp_path)]
    assert measure_h200.main([*args, "--samples", "2"]) == 0
    first = load(tmp_path / "bfs.db").frame.set_index(list(TABLE_I["bfs"]))["time"]
    assert measure_h200.main([*args, "--samples", "3"]) == 0
    stored = load(tmp_path / "bfs.db")
    assert len(stored) == 3 and stored.valid.all()
    again = stored.frame.set_index(list(TABLE_I["bfs"]))["time"]
    assert again.loc[first.index].tolist() == first.tolist()  # resumed: the first two were not measured again
    for export in ("bfs.csv", "bfs.json"):
        exported = load(tmp_path / export)
        assert len(exported) == 3 and (exported.y("time") > 0).all(), export


@needs_cxx
def test_the_throughput_script_measures_every_size_in_a_cpu_dry_run(tmp_path, capsys):
    import throughput_h200

    from starchart import load

    assert throughput_h200.main(["hotspot", "--cpu", "--repeats", "1", "--out", str(tmp_path)]) == 0
    curve = load(tmp_path / "hotspot-throughput.db")
    assert sorted(curve.frame["n"]) == throughput_h200.CPU_SIZES["hotspot"] and curve.valid.all()
    assert "MSP" in capsys.readouterr().out
    # every configuration the GPU curves use fits every GPU size (the kernels check no bounds)
    for name, config in throughput_h200.CONFIGS.items():
        assert kernels.space(name).is_valid(config), name


@needs_cxx
def test_the_input_and_search_scripts_run_in_a_cpu_dry_run(tmp_path, capsys):
    import inputs_h200
    import pandas as pd
    import search_h200

    from starchart import load

    assert inputs_h200.main(["bfs", "--cpu", "--samples", "2", "--repeats", "1", "--out", str(tmp_path)]) == 0
    crossed = load(tmp_path / "bfs-inputs.db").frame
    assert crossed.groupby("n").size().to_dict() == {n: 2 for n in inputs_h200.CPU_SIZES["bfs"]}
    # the same two configurations at every size: the design input_sensitivity pairs on
    params = [p for p in crossed.columns if p in TABLE_I["bfs"]]
    assert crossed.groupby(params).size().eq(len(inputs_h200.CPU_SIZES["bfs"])).all()
    assert search_h200.main(["bfs", "--cpu", "--budget", "6", "--out", str(tmp_path)]) == 0
    history = pd.read_csv(tmp_path / "bfs-search-s0.csv")
    assert len(history) == 6 and history["best_so_far"].is_monotonic_decreasing
    assert "bfs" in capsys.readouterr().out
