"""Throughput over input sizes of the paper's kernels on an NVIDIA GPU (issue 8, part 4: MSP inputs).

For each kernel, one fixed configuration (``CONFIGS``: a reasonable default, as Magni et
al. measure the default one) is measured at every input size of ``SIZES``: the kernel's
inputs are generated at that size, the configuration is checked against the CPU
reference, then timed with CUDA events (a warm-up launch, ``--repeats`` timed launches).
Throughput is the kernel's work (``WORK``: n for one pass over the input, n² for a grid
side, n³ for a matrix product) per second. Every measurement goes to ``OUT/NAME-throughput.db``
as it arrives (a stopped run resumes); the curve goes to ``OUT/NAME-throughput.csv`` and the
minimum saturation point (10 % threshold, :func:`starchart.msp.find_msp`) is printed.

Usage (on the GPU machine, from the repository root)::

    python examples/gpu/throughput_h200.py [KERNEL ...] [--out data/h200] [--repeats 10]

``--cpu`` is a dry run without a GPU: the CUDA sources run on the CPU through
:mod:`cpu_check` at the small CPU sizes of ``CPU_SIZES`` (wall-clock times, meaningless as
GPU figures), so the plumbing is tested before GPU time is spent.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a source checkout

import kernels

from starchart.measure import Measurement, PythonEvaluator
from starchart.msp import find_msp, throughput_curve

#: The keyword of each kernel builder that sets its input size.
SIZE_KEYWORD = {"bfs": "n_nodes", "hotspot": "size", "kmeans": "n_points", "matrix": "n",
                "streamcluster": "n_points"}

#: Input sizes measured on the GPU (powers of two, up to beyond the size the spaces are measured at).
SIZES: dict[str, list[int]] = {
    "bfs": [2 ** k for k in range(10, 23)],            # nodes: 1,024 … 4,194,304
    "hotspot": [2 ** k for k in range(6, 14)],          # grid side: 64 … 8,192
    "kmeans": [2 ** k for k in range(10, 23)],          # points of 34 features: 1,024 … 4,194,304
    "matrix": [2 ** k for k in range(7, 13)],           # side: 128 … 4,096
    "streamcluster": [2 ** k for k in range(10, 22)],   # points of 64 dimensions: 1,024 … 2,097,152
}
CPU_SIZES: dict[str, list[int]] = {
    "bfs": [256, 1024, 4096], "hotspot": [16, 32, 64], "kmeans": [256, 1024, 4096], "matrix": [32, 64, 128],
    "streamcluster": [256, 1024, 4096],
}

#: Units of work per input size (:func:`starchart.analyses.throughput.work_function`).
WORK = {"bfs": "n", "hotspot": "n^2", "kmeans": "n", "matrix": "n^3", "streamcluster": "n"}

#: The configuration measured at every size; valid at every size of SIZES and CPU_SIZES.
CONFIGS: dict[str, dict[str, Any]] = {
    "bfs": {"block_size_x": 256, "npt": 1, "consec": 0, "pa_attrib": 0, "pa_status": 1},
    "hotspot": {"block_size_x": 32, "block_size_y": 8, "t_temp": 0, "t_power": 0, "t_buffer": 0},
    "kmeans": {"ppb": 8, "tpp": 32, "consec": 1, "use_l1": 0},
    "matrix": {"block_size_x": 16, "block_size_y": 16, "tiling": 2, "unroll": 4, "t_a": 0, "t_b": 0, "use_smem": 1},
    "streamcluster": {"block_size_x": 256, "ppt": 1, "pa_point": 1, "use_smem": 0},
}


def sized_evaluator(name: str, *, cpu: bool, repeats: int, built: Mapping[int, Any] | None = None) -> PythonEvaluator:
    """An evaluator of the kernel's tuning parameters plus a size parameter ``n``: inputs are built per size.

    One size's inputs live at a time: moving to another size releases the previous one. ``built``
    holds evaluators already built for some sizes (``inputs_h200.py`` builds them to compile ahead);
    they are used instead of building those sizes' inputs and references again.
    """
    pending = dict(built or {})
    scale = "cpu" if cpu else "gpu"
    options = {} if cpu else {"repeats": repeats}
    current: dict[int, Any] = {}

    def run(config: dict[str, Any]) -> Measurement | list[float]:
        size = int(config["n"])
        if size not in current:
            for old in current.values():
                old.close()
            current.clear()
            current[size] = pending.pop(size, None) or kernels.KERNELS[name](
                scale, **{SIZE_KEYWORD[name]: size}, **options)
        setting = {k: v for k, v in config.items() if k != "n"}
        if cpu:
            import cpu_check

            return cpu_check.measure_on_cpu(current[size], setting, repeats)
        measured = current[size].evaluate(setting)
        if not measured.ok:
            return Measurement.failure(config, measured.status, measured.reason)
        return measured.values["time"]

    return PythonEvaluator(run, metrics="time")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", metavar="KERNEL",
                        help=f"kernels to measure (default: {', '.join(sorted(SIZES))})")
    parser.add_argument("--out", type=Path, default=Path("data/h200"))
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--cpu", action="store_true", help="dry run without a GPU (CPU sizes, wall-clock times)")
    args = parser.parse_args(argv)
    args.kernels = kernels.chosen(parser, args.kernels, SIZES)
    args.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for name in args.kernels:
        sizes = CPU_SIZES[name] if args.cpu else SIZES[name]
        curve = throughput_curve(sized_evaluator(name, cpu=args.cpu, repeats=args.repeats), sizes,
                                 config=CONFIGS[name], work=WORK[name], store=args.out / f"{name}-throughput.db")
        curve.drop(columns=["repeats"]).to_csv(args.out / f"{name}-throughput.csv", index=False)
        msp = find_msp(curve)
        lines.append(f"{name:<14} {len(curve):>5} {int((curve['status'] == 'ok').sum()):>3}  "
                     f"{curve['throughput'].max():.3g}/s  MSP {msp.size} ({msp.message})")
        print(lines[-1], flush=True)
    print(f"\n{'kernel':<14} {'sizes':>5} {'ok':>3}  peak throughput, minimum saturation point")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
