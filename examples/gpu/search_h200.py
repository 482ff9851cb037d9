"""The tree-guided search on the live GPU: how few measurements find each kernel's best configuration.

For each kernel, :func:`starchart.search` runs over the kernel's *whole* space (not the
400-configuration sample) with a budget of ``--budget`` evaluations, measuring on the GPU
as it goes (every configuration checked, then timed: CUDA events, a warm-up launch, 10
repeats). Each search is stored in ``OUT/NAME-search-sSEED.db`` as it runs (a stopped run
resumes) and its history written to ``OUT/NAME-search-sSEED.csv``. The table compares the
best found after 20, 50 and ``budget`` evaluations with the best of the uniform sample
that ``measure_h200.py`` stored in ``OUT/NAME.db`` (when there is one).

Usage (on the GPU machine, from the repository root)::

    python examples/gpu/search_h200.py [KERNEL ...] [--budget 100] [--seed 0] [--out data/h200]

``--cpu`` is a dry run without a GPU (the CUDA sources run on the CPU with small inputs,
as ``measure_h200.py --cpu``).
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

import starchart
from starchart.study.store import Store

CHECKPOINTS = (20, 50)


def uniform_best(path: Path) -> tuple[float, int] | None:
    """The fastest time of a stored uniform sample and the sample's size (None without one)."""
    if not path.exists():
        return None
    with Store.open(path, read_only=True) as store:
        data = store.to_dataset()
    times = data.frame.loc[data.valid.to_numpy(), data.default_metric]
    return (float(times.min()), len(data)) if len(times) else None


def search_one(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Search one kernel's space; returns the figures of its table row."""
    if args.cpu:
        space, evaluator = kernels.cpu_space(name), measure_h200.cpu_evaluator(name, repeats=1)
    else:
        space, evaluator = kernels.space(name), kernels.KERNELS[name]("gpu", repeats=10)
    stem = args.out / f"{name}-search-s{args.seed}"
    result = starchart.search(evaluator, space, args.budget, seed=args.seed, store=stem.with_suffix(".db"))
    result.history.to_csv(stem.with_suffix(".csv"), index=False)
    best_so_far = result.best_so_far
    row = {"kernel": name, "space": space.size(), "evaluations": len(result.history), "failed": result.failures,
           **{f"best@{k}": float(best_so_far.loc[min(k, len(best_so_far))]) for k in CHECKPOINTS},
           "best": result.best.value if result.best else float("nan"),
           "best_step": result.best.step if result.best else None,
           "best_config": result.best.config if result.best else None}
    uniform = uniform_best(args.out / f"{name}.db")
    if uniform is not None:
        row["uniform_best"], row["uniform_n"] = uniform
        reached = best_so_far[best_so_far <= uniform[0]]
        row["steps_to_uniform_best"] = int(reached.index[0]) if len(reached) else None
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", metavar="KERNEL", help="kernels to search (default: all six)")
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("data/h200"))
    parser.add_argument("--cpu", action="store_true", help="dry run without a GPU (CPU-size inputs, wall clock)")
    args = parser.parse_args(argv)
    args.kernels = kernels.chosen(parser, args.kernels, kernels.KERNELS)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"{'kernel':<14} {'space':>6} {'evals':>5} {'failed':>6} {'best@20':>9} {'best@50':>9} {'best':>9} "
          f"{'at step':>7} {'uniform best (n)':>18} {'search reaches it at':>20}", flush=True)
    for name in args.kernels:
        r = search_one(name, args)
        uniform = f"{r['uniform_best']:.4g} ({r['uniform_n']})" if "uniform_best" in r else "-"
        print(f"{name:<14} {r['space']:>6} {r['evaluations']:>5} {r['failed']:>6} {r['best@20']:>9.4g} "
              f"{r['best@50']:>9.4g} {r['best']:>9.4g} {r['best_step']!s:>7} {uniform:>18} "
              f"{r.get('steps_to_uniform_best')!s:>20}  {r['best_config']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
