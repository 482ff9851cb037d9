"""Input sensitivity on the GPU (paper §VII-C): the same configurations measured at several input sizes.

For ``bfs`` (graph nodes) and ``matrix`` (matrix side), a uniform sample of the tuning
space (``--samples``, seed 0) is measured at each size of ``SIZES``, the size being a
parameter ``n`` of the study — a crossed design, so that which parameters' effect
depends on the input can be tested configuration by configuration
(:func:`starchart.explore.input_sensitivity`). Every configuration is checked against
the CPU reference at its size, then timed (CUDA events, a warm-up launch, 10 repeats).
Results go to ``OUT/NAME-inputs.db`` as they arrive (a stopped run resumes), then to
``OUT/NAME-inputs.csv``.

Usage (on the GPU machine, from the repository root)::

    python examples/gpu/inputs_h200.py [KERNEL ...] [--samples 150] [--out data/h200] [--jobs 16]

``--cpu`` is a dry run without a GPU (CPU sizes, the CUDA sources run on the CPU).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a source checkout

import kernels
import measure_h200
import throughput_h200

import starchart
from starchart.space import Space
from starchart.study.store import Store

#: Input sizes per kernel: bfs graph nodes (the spaces are measured at 1,000,000), matrix sides
#: (multiples of 1,024, so every configuration's tiles divide them).
SIZES: dict[str, list[int]] = {"bfs": [62_500, 250_000, 1_000_000], "matrix": [1024, 2048, 4096]}
CPU_SIZES: dict[str, list[int]] = {"bfs": [500, 2000], "matrix": [128, 256]}


def crossed_configs(name: str, samples: int, sizes: list[int], *, cpu: bool, seed: int = 0) -> list[dict[str, Any]]:
    """``samples`` uniform configurations of the kernel's space, each at every size, ordered by size.

    Ordered by size so that each size's inputs are built once (the evaluator holds one size at a time).
    """
    space = kernels.cpu_space(name) if cpu else kernels.space(name)
    sample = space.sample(samples, seed=seed).to_dict("records")
    return [{**config, "n": size} for size in sizes for config in sample]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", metavar="KERNEL", help="bfs and/or matrix (default: both)")
    parser.add_argument("--samples", type=int, default=150)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("data/h200"))
    parser.add_argument("--jobs", type=int, default=16, help="processes that compile ahead (1: none)")
    parser.add_argument("--cpu", action="store_true", help="dry run without a GPU (CPU sizes, wall clock)")
    args = parser.parse_args(argv)
    args.kernels = kernels.chosen(parser, args.kernels, SIZES)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.kernels:
        sizes = CPU_SIZES[name] if args.cpu else SIZES[name]
        configs = crossed_configs(name, args.samples, sizes, cpu=args.cpu)
        base = kernels.cpu_space(name) if args.cpu else kernels.space(name)
        space = Space({**base.tune_params, "n": sizes}, list(base.restrictions))
        store = args.out / f"{name}-inputs.db"
        built = {}
        if not args.cpu and args.jobs > 1:  # the grid is a define, so each size compiles its own binaries
            for size in sizes:
                built[size] = kernels.KERNELS[name]("gpu", repeats=args.repeats,
                                                    **{throughput_h200.SIZE_KEYWORD[name]: size})
                todo = [{k: v for k, v in c.items() if k != "n"} for c in configs if c["n"] == size]
                failures, seconds = measure_h200.precompile(built[size], todo, args.jobs)
                print(f"{name} n={size}: compiled {len(todo)} configurations in {seconds:.0f} s "
                      f"({failures} do not compile)", flush=True)
        evaluator = throughput_h200.sized_evaluator(name, cpu=args.cpu, repeats=args.repeats, built=built)
        data = starchart.run(space, evaluator, configs=configs, store=store, progress=False)
        with Store.open(store, read_only=True) as done:
            done.export(args.out / f"{name}-inputs.csv")
        ok = data.frame[data.valid.to_numpy()]
        print(f"{name}: {len(ok)} of {len(data)} ok; best time per size (ms): "
              f"{ok.groupby('n')['time'].min().round(4).to_dict()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
