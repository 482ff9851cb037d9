"""The tree against stepwise linear regression and a forest on real measurements: the paper's §VI-B and Fig. 5.

    python benchmarks/compare_models.py [--seeds 10]

Per dataset, :func:`starchart.compare_models` trains each model on 200 uniformly drawn valid designs and
judges it on 200 others, over ``--seeds`` draws. The table gives each model's median (over seeds) of the
median relative error, and the design it picks as best: predicted against measured. The JSON goes to
``benchmarks/results/compare_models.json``. kmeans (runtime and wattage, the two panels of Fig. 5) and
convolution ship with the package, the H200 kmeans (time and power) is in ``data/h200/``; gemm is read from
``../shared`` (left out when absent).
"""

from __future__ import annotations

import argparse
import sys

from common import DATASETS, ROOT, report

from starchart import compare_models, datasets, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="draws per dataset (default 10)")
    args = parser.parse_args()
    # the paper's Fig. 5 has a performance and a power panel: kmeans on the HD 7970 has both, the H200 kmeans too
    h200 = load(ROOT / "data" / "h200" / "kmeans.csv")
    data = {"kmeans runtime (HD 7970)": (datasets.load_kmeans(), "runtime"),
            "kmeans wattage (HD 7970)": (datasets.load_kmeans(), "wattage"),
            "kmeans power (H200)": (h200, "power"),
            "convolution time (A100)": (datasets.load_convolution("A100"), "time")}
    gemm = DATASETS / "gemm" / "RTX_3090.json.gz"
    if gemm.exists():
        data["gemm time (RTX 3090)"] = (load(gemm), "time")
    else:
        print(f"{gemm} not found: gemm is left out", file=sys.stderr)
    rows = []
    for name, (dataset, metric) in data.items():
        medians = compare_models(dataset, metric, seeds=args.seeds).medians()
        for model, row in medians.iterrows():
            rows.append({"data": name, "model": model, "median_rel_error": float(row["median_rel_error"]),
                         "pick_predicted": float(row["pick_predicted"]), "pick_actual": float(row["pick_actual"]),
                         "best_actual": float(row["best_actual"])})
    report("compare_models", f"Median relative error on 200 unseen designs, 200 trained on, median of {args.seeds} "
           "seeds; the best pick predicted and measured", rows,
           extra={"seeds": args.seeds, "command": f"python benchmarks/compare_models.py --seeds {args.seeds}"})


if __name__ == "__main__":
    main()
