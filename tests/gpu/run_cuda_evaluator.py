"""Run CudaEvaluator on a real GPU: a vector add and a tiled matrix multiply over a few configurations.

Usage (on a machine with an NVIDIA GPU, CuPy and, for --power, nvidia-ml-py)::

    python tests/gpu/run_cuda_evaluator.py results.json [--repeats 10] [--power] [--power-duration 1.0]

Prints one line per configuration and writes every measurement, the device and
the environment as JSON to the given path. Each configuration has an expected
status (one block of 2048 threads per kernel must fail with ``runtime``, one
matrix-multiply configuration is built not to compile, one to compute a wrong
answer); the exit code is 1 if any status differs from what was expected, 2 if
the GPU could not be used at all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a source checkout

from starchart.errors import StarchartError  # noqa: E402
from starchart.measure.cuda import VECTOR_ADD, CudaEvaluator  # noqa: E402
from starchart.measure.environment import environment  # noqa: E402
from starchart.space import Space  # noqa: E402

# C = A @ B for n x n matrices (n divisible by the tile sizes). A block computes
# block_size_y * tile_size_y rows and block_size_x columns; the k loop steps by
# block_size_x. `wrong` adds an error on purpose; `broken` does not compile.
MATMUL = r"""
#ifndef wrong
#define wrong 0
#endif
extern "C" __global__ void matmul(float *C, const float *A, const float *B, int n) {
    __shared__ float sA[block_size_y * tile_size_y][block_size_x];
    __shared__ float sB[block_size_x][block_size_x];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * block_size_x + tx;
    int row0 = blockIdx.y * block_size_y * tile_size_y;
    float sum[tile_size_y];
#pragma unroll
    for (int i = 0; i < tile_size_y; i++) {
        sum[i] = 0.0f;
    }
    for (int k0 = 0; k0 < n; k0 += block_size_x) {
#pragma unroll
        for (int i = 0; i < tile_size_y; i++) {
            int r = ty + i * block_size_y;
            sA[r][tx] = A[(row0 + r) * n + k0 + tx];
        }
        for (int r = ty; r < block_size_x; r += block_size_y) {
            sB[r][tx] = B[(k0 + r) * n + col];
        }
        __syncthreads();
        for (int k = 0; k < block_size_x; k++) {
            float b = sB[k][tx];
#pragma unroll
            for (int i = 0; i < tile_size_y; i++) {
                sum[i] += sA[ty + i * block_size_y][k] * b;
            }
        }
        __syncthreads();
    }
#if broken
    this_does_not_compile;
#endif
#pragma unroll
    for (int i = 0; i < tile_size_y; i++) {
        C[(row0 + ty + i * block_size_y) * n + col] = sum[i] + (wrong ? 1.0f : 0.0f);
    }
}
"""


def vector_add_case(repeats: int, power: bool, power_duration: float) -> tuple[CudaEvaluator, Space, list]:
    n = 1 << 24
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    evaluator = CudaEvaluator(VECTOR_ADD, "vector_add", [np.zeros(n, np.float32), a, b, np.int32(n)],
                              problem_size=n, repeats=repeats, answer=[a + b, None, None, None],
                              power=power, power_duration_s=power_duration)
    sizes = [32, 64, 128, 256, 512, 1024, 2048]
    space = Space({"block_size_x": sizes})
    cases = [({"block_size_x": bx}, "runtime" if bx > 1024 else "ok") for bx in sizes]
    return evaluator, space, cases


def matmul_case(repeats: int, power: bool, power_duration: float) -> tuple[CudaEvaluator, Space, list]:
    n = 1024
    rng = np.random.default_rng(1)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    evaluator = CudaEvaluator(MATMUL, "matmul", [np.zeros((n, n), np.float32), a, b, np.int32(n)],
                              problem_size=(n, n), grid_div_y=["block_size_y", "tile_size_y"],
                              repeats=repeats, answer=[c, None, None, None], rtol=1e-4, atol=1e-3,
                              power=power, power_duration_s=power_duration)
    space = Space({"block_size_x": [16, 32, 64], "block_size_y": [2, 4, 8, 16, 32], "tile_size_y": [1, 2, 4],
                   "wrong": [0, 1], "broken": [0, 1]})

    def cfg(bx: int, by: int, ts: int, wrong: int = 0, broken: int = 0) -> dict[str, int]:
        return {"block_size_x": bx, "block_size_y": by, "tile_size_y": ts, "wrong": wrong, "broken": broken}

    cases = [
        (cfg(16, 16, 1), "ok"),
        (cfg(32, 8, 4), "ok"),
        (cfg(32, 32, 1), "ok"),
        (cfg(64, 16, 2), "ok"),
        (cfg(32, 4, 2), "ok"),
        (cfg(64, 32, 1), "runtime"),  # 2048 threads per block
        (cfg(32, 8, 2, wrong=1), "wrong-answer"),
        (cfg(32, 8, 2, broken=1), "compile"),
    ]
    return evaluator, space, cases


def run(evaluator: CudaEvaluator, space: Space, cases: list, label: str) -> tuple[list[dict[str, Any]], int]:
    records, mismatches = [], 0
    evaluator.prepare(space)
    for config, expected in cases:
        measurement = evaluator.evaluate(config)
        summary = measurement.summary()
        matched = measurement.status == expected
        mismatches += not matched
        shown = ", ".join(f"{k}={v}" for k, v in config.items())
        detail = (", ".join(f"{metric}={value:.6g}" for metric, value in summary.items()) if measurement.ok
                  else measurement.reason.splitlines()[0][:160] if measurement.reason else "")
        flag = "" if matched else f"   <-- expected {expected}"
        print(f"{label:10s} {shown:70s} {measurement.status:13s} {detail}{flag}", flush=True)
        record = measurement.to_dict()
        record.update({"kernel": label, "expected_status": expected, "summary": summary})
        records.append(record)
    return records, mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the JSON results")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--power", action="store_true", help="also measure power and energy with NVML")
    parser.add_argument("--power-duration", type=float, default=1.0, help="seconds of the sustained power run")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    results: dict[str, Any] = {
        "environment": environment(extra_packages=["cupy", "cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x", "nvidia-ml-py"]),
        "settings": {"repeats": args.repeats, "power": args.power, "power_duration_s": args.power_duration},
        "measurements": [],
    }
    mismatches = 0
    try:
        for label, build in (("vector_add", vector_add_case), ("matmul", matmul_case)):
            evaluator, space, cases = build(args.repeats, args.power, args.power_duration)
            with evaluator:
                records, bad = run(evaluator, space, cases, label)
                results.setdefault("device", evaluator.device_info)
            results["measurements"].extend(records)
            mismatches += bad
    except StarchartError as exc:
        print(f"cannot run on a GPU here: {exc}", file=sys.stderr)
        results["error"] = str(exc)
        args.output.write_text(json.dumps(results, indent=2, default=str))
        return 2
    results["mismatches"] = mismatches
    results["wall_s"] = time.perf_counter() - started
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2, default=str))
    print(f"{len(results['measurements'])} measurements, {mismatches} unexpected statuses -> {args.output}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
