"""The Starchart paper's six GPU kernels as starchart studies: space, inputs, reference, evaluator.

Each kernel is a CUDA source (``NAME.cu``) whose tuning parameters are macros, a space
file (``NAME.yaml``, the parameters of the paper's Table I adapted to Hopper) and here a
function that builds its :class:`~starchart.CudaEvaluator`: generated inputs (seeded,
never zeros), and a ``reference`` that computes the expected outputs on the CPU (numpy,
float64 where the kernel sums), so that every configuration is checked before it is timed.

``scale="gpu"`` gives the input sizes measured on the H200; ``scale="cpu"`` small ones,
for checking the kernels on the CPU (``cpu_check.py``) without a GPU.

>>> from kernels import KERNELS, space
>>> sorted(KERNELS)
['bfs', 'hotspot', 'kmeans', 'matrix', 'nbody', 'streamcluster']
>>> space("kmeans").size()
664
"""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numba
import numpy as np

from starchart.measure.cuda import CudaEvaluator
from starchart.space import Space

HERE = Path(__file__).resolve().parent


def chosen(parser: argparse.ArgumentParser, names: list[str], known: Iterable[str]) -> list[str]:
    """The kernels a script's positional arguments name (all of ``known`` when none); unknown ones are refused.

    Checked here, not by argparse's ``choices``: Python 3.11 refuses an empty or default list
    of a positional with choices.

    >>> chosen(argparse.ArgumentParser(), [], ["kmeans", "bfs"])
    ['bfs', 'kmeans']
    """
    known = sorted(known)
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"unknown kernel(s) {', '.join(unknown)}: choose from {', '.join(known)}")
    return list(names) or known


def space(name: str) -> Space:
    """The tuning space of kernel ``name`` (``HERE/NAME.yaml``)."""
    return Space.from_file(HERE / f"{name}.yaml")


# The CPU check's inputs are small (256 × 256 matrices, 2,048 bodies): configurations whose
# tiles or body counts do not fit them are left out when the kernels run on the CPU.
CPU_RESTRICTIONS: dict[str, list[str]] = {
    "matrix": ["block_size_y * tiling <= 256", "block_size_x <= 256"],
    "nbody": ["n_bodies <= 2048"],
}


def cpu_space(name: str) -> Space:
    """The configurations of ``space(name)`` that the CPU-size inputs can run.

    >>> cpu_space("nbody").size() < space("nbody").size()
    True
    """
    full = space(name)
    return Space(full.tune_params, [*full.restrictions, *CPU_RESTRICTIONS.get(name, [])])


def _source(name: str) -> Path:
    return HERE / f"{name}.cu"


# ------------------------------------------------------------------------------ bfs
def random_graph(n_nodes: int, connectivity: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random directed graph in CSR form (first edge of each node, edge targets).

    Degrees are uniform on 1 … 2·connectivity − 1 (mean ``connectivity``), targets uniform,
    like Rodinia's graph generator.
    """
    degrees = rng.integers(1, max(2 * connectivity, 2), size=n_nodes).astype(np.int32)
    starts = np.zeros(n_nodes, dtype=np.int32)
    np.cumsum(degrees[:-1], out=starts[1:])
    edges = rng.integers(0, n_nodes, size=int(degrees.sum()), dtype=np.int32)
    return starts, edges


def bfs_levels(starts: np.ndarray, degrees: np.ndarray, edges: np.ndarray, source: int = 0) -> np.ndarray:
    """Each node's BFS level from ``source`` (−1: unreachable)."""
    cost = np.full(len(starts), -1, dtype=np.int32)
    cost[source] = 0
    frontier = np.array([source])
    level = 0
    while len(frontier):
        neighbours = _neighbours(starts, degrees, edges, frontier)
        fresh = np.unique(neighbours[cost[neighbours] < 0])
        level += 1
        cost[fresh] = level
        frontier = fresh
    return cost


def _neighbours(starts: np.ndarray, degrees: np.ndarray, edges: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    counts = degrees[nodes]
    offsets = np.repeat(starts[nodes] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
    return edges[offsets]


def bfs(scale: str = "gpu", *, n_nodes: int | None = None, connectivity: int = 8, seed: int = 0,
        **options: Any) -> CudaEvaluator:
    """One BFS level on a random graph, at the level with the largest frontier (Rodinia's input sizes).

    ``scale="gpu"``: 1,000,000 nodes (the paper's largest graph); ``"cpu"``: 3,000.
    """
    n = n_nodes or (1_000_000 if scale == "gpu" else 3_000)
    rng = np.random.default_rng(seed)
    starts, edges = random_graph(n, connectivity, rng)
    degrees = np.diff(np.append(starts, len(edges))).astype(np.int32)
    levels = bfs_levels(starts, degrees, edges)
    level = int(np.bincount(levels[levels >= 0]).argmax())  # the widest level: the most work
    frontier = (levels == level).astype(np.int32)
    visited = ((levels >= 0) & (levels <= level)).astype(np.int32)
    cost = np.where(visited == 1, levels, -1).astype(np.int32)
    next_ = np.zeros(n, dtype=np.int32)
    nodes = np.column_stack([starts, degrees]).astype(np.int32).ravel()
    status = np.column_stack([frontier, visited, next_, cost]).astype(np.int32).ravel()
    arguments = [nodes, starts, degrees, edges, status, frontier, visited, next_.copy(), cost.copy(), np.int32(n)]

    reached = _neighbours(starts, degrees, edges, np.flatnonzero(frontier))
    reached = np.unique(reached[visited[reached] == 0])
    expected_next, expected_cost = next_.copy(), cost.copy()
    expected_next[reached] = 1
    expected_cost[reached] = level + 1
    expected_status = np.column_stack([frontier, visited, expected_next, expected_cost]).astype(np.int32).ravel()

    def reference(config: dict[str, Any], _: list[Any]) -> list[Any]:
        if config["pa_status"]:
            return [None] * 7 + [expected_next, expected_cost, None]
        return [None] * 4 + [expected_status] + [None] * 5

    return CudaEvaluator(_source("bfs"), "bfs", arguments, problem_size=n, grid_div_x=["block_size_x", "npt"],
                         reference=reference, **options)


# -------------------------------------------------------------------------- hotspot
def hotspot_constants(rows: int, cols: int) -> dict[str, float]:
    """Rodinia hotspot's physical constants for a rows × cols grid on a 16 mm chip."""
    max_pd, precision, spec_heat, k_si, factor_chip = 3.0e6, 0.001, 1.75e6, 100.0, 0.5
    t_chip, chip_height, chip_width = 0.0005, 0.016, 0.016
    grid_height, grid_width = chip_height / rows, chip_width / cols
    cap = factor_chip * spec_heat * t_chip * grid_width * grid_height
    rx = grid_width / (2.0 * k_si * t_chip * grid_height)
    ry = grid_height / (2.0 * k_si * t_chip * grid_width)
    rz = t_chip / (k_si * grid_height * grid_width)
    step = precision / (max_pd / (factor_chip * t_chip * spec_heat))
    return {"step_div_cap": step / cap, "rx_1": 1 / rx, "ry_1": 1 / ry, "rz_1": 1 / rz, "amb_temp": 80.0}


def hotspot_step(temp: np.ndarray, power: np.ndarray, c: dict[str, float]) -> np.ndarray:
    """One hotspot time step in float64 (edge cells use their own temperature for a missing neighbour)."""
    t = temp.astype(np.float64)
    padded = np.pad(t, 1, mode="edge")
    north, south = padded[:-2, 1:-1], padded[2:, 1:-1]
    west, east = padded[1:-1, :-2], padded[1:-1, 2:]
    return t + c["step_div_cap"] * (power + (south + north - 2 * t) * c["ry_1"] + (east + west - 2 * t) * c["rx_1"]
                                     + (c["amb_temp"] - t) * c["rz_1"])


def hotspot(scale: str = "gpu", *, size: int | None = None, seed: int = 0, **options: Any) -> CudaEvaluator:
    """One step on a size × size grid (GPU: 4096, CPU check: 100) of Rodinia-like temperatures and powers."""
    n = size or (4096 if scale == "gpu" else 100)
    rng = np.random.default_rng(seed)
    temp = rng.uniform(323.0, 343.0, size=(n, n)).astype(np.float32)
    power = rng.uniform(0.0, 1e-3, size=(n, n)).astype(np.float32)
    constants = hotspot_constants(n, n)
    expected = hotspot_step(temp, power, constants)
    arguments = [temp.ravel(), power.ravel(), np.full(n * n, np.nan, np.float32), np.int32(n), np.int32(n),
                 *[np.float32(constants[k]) for k in ("step_div_cap", "rx_1", "ry_1", "rz_1", "amb_temp")]]
    answer = [None, None, expected.ravel()] + [None] * 7
    options.setdefault("rtol", 1e-6)
    options.setdefault("atol", 1e-3)
    return CudaEvaluator(_source("hotspot"), "hotspot", arguments, problem_size=(n, n), answer=answer, **options)


# --------------------------------------------------------------------------- kmeans
def kmeans(scale: str = "gpu", *, n_points: int | None = None, n_features: int = 34, seed: int = 0,
           **options: Any) -> CudaEvaluator:
    """The swap of a points × features array (GPU: 494,020 × 34, the size of Rodinia's kdd_cup input)."""
    n = n_points or (494_020 if scale == "gpu" else 2_000)
    rng = np.random.default_rng(seed)
    features = rng.standard_normal((n, n_features)).astype(np.float32)
    arguments = [features.ravel(), np.full(n * n_features, np.nan, np.float32), np.int32(n), np.int32(n_features)]
    answer = [None, np.ascontiguousarray(features.T).ravel(), None, None]
    return CudaEvaluator(_source("kmeans"), "kmeans_swap", arguments, problem_size=(n, 1),
                         block_size_names=("tpp", "ppb", None), grid_div_x=["ppb"], grid_div_y=[],
                         answer=answer, **options)


# --------------------------------------------------------------------------- matrix
def matrix(scale: str = "gpu", *, n: int | None = None, seed: int = 0, **options: Any) -> CudaEvaluator:
    """C = A B for n × n matrices (GPU: 4096; CPU check: 256).

    The kernel does not check bounds: every configuration of the space divides a multiple
    of 1024; with a smaller ``n`` use only configurations whose tiles divide it.
    """
    n = n or (4096 if scale == "gpu" else 256)
    if n % 16:
        raise ValueError(f"n={n}: the matrix kernel steps through k by 16")
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    arguments = [np.full(n * n, np.nan, np.float32), a.ravel(), b.ravel(), np.int32(n)]
    options.setdefault("rtol", 1e-4)
    options.setdefault("atol", 1e-3 * np.sqrt(n))  # float32 sums of n products of size ~1/3
    return CudaEvaluator(_source("matrix"), "matrix", arguments, problem_size=(n, n),
                         grid_div_x=["block_size_x"], grid_div_y=["block_size_y", "tiling"],
                         answer=[expected.ravel(), None, None, None], **options)


# ---------------------------------------------------------------------------- nbody
def nbody_accelerations(positions: np.ndarray, softening_squared: float = 0.01) -> np.ndarray:
    """All-pairs accelerations in float64 (columns x, y, z and a zero fourth, as the kernel writes).

    Compiled with numba and spread over the cores: 32,768 bodies are 10⁹ pairs, over a
    minute in chunked numpy on one core, seconds here — and the GPU machine's time is short.
    """
    pos = np.ascontiguousarray(positions[:, :3], dtype=np.float64)
    mass = np.ascontiguousarray(positions[:, 3], dtype=np.float64)
    out = np.zeros((len(pos), 4))
    _all_pairs(pos, mass, float(softening_squared), out)
    return out


@numba.njit(parallel=True, cache=True)
def _all_pairs(pos: np.ndarray, mass: np.ndarray, softening_squared: float, out: np.ndarray) -> None:
    for i in numba.prange(len(pos)):
        ax = ay = az = 0.0
        for j in range(len(pos)):
            dx, dy, dz = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
            inverse = 1.0 / np.sqrt(dx * dx + dy * dy + dz * dz + softening_squared)
            scale = mass[j] * inverse * inverse * inverse
            ax += dx * scale
            ay += dy * scale
            az += dz * scale
        out[i, 0], out[i, 1], out[i, 2] = ax, ay, az


def nbody(scale: str = "gpu", *, max_bodies: int | None = None, seed: int = 0, **options: Any) -> CudaEvaluator:
    """Accelerations of the first ``n_bodies`` (a parameter) of up to 32,768 bodies (CPU check: 2,048).

    The output starts as NaN, so bodies a configuration does not compute stay NaN; the
    reference (computed once per ``n_bodies``) expects exactly that.
    """
    top = max_bodies or (32_768 if scale == "gpu" else 2_048)
    rng = np.random.default_rng(seed)
    positions = np.column_stack([rng.uniform(-1, 1, (top, 3)), rng.uniform(0.5, 1.0, top)]).astype(np.float32)

    @functools.cache
    def expected(n_bodies: int) -> np.ndarray:
        if n_bodies > top:
            raise ValueError(f"n_bodies={n_bodies} is more than the {top} bodies generated")
        out = np.full((top, 4), np.nan)
        out[:n_bodies] = nbody_accelerations(positions[:n_bodies])
        return out.ravel()

    def reference(config: dict[str, Any], _: list[Any]) -> list[Any]:
        return [None, expected(int(config["n_bodies"]))]

    options.setdefault("rtol", 1e-3)
    options.setdefault("atol", 0.5)  # float32 sums of thousands of terms up to ~100 that cancel
    return CudaEvaluator(_source("nbody"), "nbody", [positions.ravel(), np.full(top * 4, np.nan, np.float32)],
                         problem_size=("n_bodies", 1), grid_div_y=[], reference=reference, **options)


# -------------------------------------------------------------------- streamcluster
def streamcluster(scale: str = "gpu", *, n_points: int | None = None, seed: int = 0,
                  **options: Any) -> CudaEvaluator:
    """Distances of 262,144 points of 64 dimensions (CPU check: 3,000) to a candidate centre.

    Each point's current cost is its new cost times a factor drawn from 0.5–0.9 or 1.1–1.5,
    so whether it switches never hangs on rounding.
    """
    dim = 64
    n = n_points or (262_144 if scale == "gpu" else 3_000)
    rng = np.random.default_rng(seed)
    coords = rng.uniform(0, 1, (n, dim)).astype(np.float32)
    weights = rng.integers(1, 5, n).astype(np.float32)
    centre = rng.uniform(0, 1, dim).astype(np.float32)
    new_cost = ((coords.astype(np.float64) - centre) ** 2).sum(axis=1) * weights
    factor = np.where(rng.random(n) < 0.5, rng.uniform(0.5, 0.9, n), rng.uniform(1.1, 1.5, n))
    costs = (new_cost * factor).astype(np.float32)
    switched = (factor > 1).astype(np.int32)
    gain = np.where(switched == 1, costs - new_cost, 0.0)
    points = np.column_stack([weights, costs, coords]).astype(np.float32).ravel()
    arguments = [points, np.ascontiguousarray(coords.T).ravel(), weights, costs, centre,
                 np.full(n, np.nan, np.float32), np.full(n, -1, np.int32), np.int32(n)]
    options.setdefault("rtol", 1e-4)
    options.setdefault("atol", 1e-3)
    return CudaEvaluator(_source("streamcluster"), "streamcluster", arguments, problem_size=n,
                         grid_div_x=["block_size_x", "ppt"], answer=[None] * 5 + [gain, switched, None], **options)


#: Each kernel's evaluator builder: ``KERNELS[name](scale, **options)``.
KERNELS: dict[str, Callable[..., CudaEvaluator]] = {
    "bfs": bfs, "hotspot": hotspot, "kmeans": kmeans, "matrix": matrix, "nbody": nbody,
    "streamcluster": streamcluster,
}
