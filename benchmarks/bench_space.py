"""Benchmark: building, counting, enumerating and sampling tuning spaces, against Kernel Tuner 1.5.

Cases
-----
(a) CLBlast gemm (tune_params of ``gemm/RTX_3090.json.gz``, 82,944 Cartesian points) with
    CLBlast's 7 divisibility restrictions: build + exact size, and build + enumerate all valid;
(b) the same space built by Kernel Tuner's own ``Searchspace`` (python-constraint solver);
(c) gemm's parameters widened to 12,441,600 Cartesian points, same restrictions: exact size,
    full enumeration, and Kernel Tuner's ``Searchspace`` (skip with ``--quick``);
(d) a 10^12-point space: 1000 uniform valid samples, and the exact size.

Run ``python benchmarks/bench_space.py [--quick] [--repeat N]`` (about 15 s); prints a table and writes
``benchmarks/results/space.json`` (with ``--quick``, a JSON file in the temporary folder instead). The
datasets are read from ``../shared/datasets`` beside the project root.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

from common import dataset, quick_path, report

from starchart._util.files import read_json
from starchart.space import Space

GEMM_RESTRICTIONS = [
    "KWG % KWI == 0",
    "MWG % (MDIMC*VWM) == 0",
    "NWG % (NDIMC*VWN) == 0",
    "MWG % (MDIMA*VWM) == 0",
    "NWG % (NDIMB*VWN) == 0",
    "KWG % ((MDIMC*NDIMC)//MDIMA) == 0",
    "KWG % ((MDIMC*NDIMC)//NDIMB) == 0",
]


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """Fastest wall time of ``repeat`` runs (seconds), and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def gemm_tune_params() -> dict[str, list[Any]]:
    cache = read_json(dataset("gemm/RTX_3090.json.gz"))
    return {key: cache["tune_params"][key] for key in cache["tune_params_keys"]}


def wide_gemm_tune_params() -> dict[str, list[Any]]:
    params = gemm_tune_params()
    params.update(MWG=[16, 32, 64, 128, 256], NWG=[16, 32, 64, 128, 256], KWG=[16, 32, 64],
                  KWI=[1, 2, 4, 8], STRM=[0, 1], STRN=[0, 1], PRECISION=[32, 64])
    return params


def huge_space() -> Space:
    """12 parameters of 10 values: 10^12 Cartesian points, about a fifth of them valid."""
    params = {f"p{i}": list(range(1, 11)) for i in range(12)}
    return Space(params, ["p0 * p1 <= 40", "p2 % p3 == 0 or p4 > 3", "p5 + p6 + p7 >= 9",
                          "max(p8, p9) - min(p10, p11) < 7"])


def count_by_enumeration(space: Space) -> int:
    return sum(len(chunk) for chunk in space.enumerate(chunk_size=1_000_000))


def kernel_tuner_size(tune_params: dict[str, list[Any]]) -> int:
    from kernel_tuner.searchspace import Searchspace

    return Searchspace(tune_params, list(GEMM_RESTRICTIONS), 1024).size


def run(quick: bool, repeat: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def record(case: str, what: str, seconds: float, result: Any, cartesian: int) -> None:
        rows.append({"case": case, "what": what, "ms": seconds * 1000, "result": result,
                     "cartesian": cartesian})

    gemm = gemm_tune_params()
    n_gemm = math.prod(len(v) for v in gemm.values())
    seconds, size = best_of(repeat, lambda: Space(gemm, GEMM_RESTRICTIONS).size())
    record("(a) gemm", "starchart: build + size()", seconds, size, n_gemm)
    seconds, size = best_of(repeat, lambda: len(Space(gemm, GEMM_RESTRICTIONS).to_frame()))
    record("(a) gemm", "starchart: build + to_frame() (all valid rows)", seconds, size, n_gemm)
    seconds, size = best_of(repeat, lambda: kernel_tuner_size(gemm))
    record("(b) gemm", "Kernel Tuner 1.5: Searchspace(...)", seconds, size, n_gemm)

    wide = wide_gemm_tune_params()
    n_wide = math.prod(len(v) for v in wide.values())
    seconds, size = best_of(repeat, lambda: Space(wide, GEMM_RESTRICTIONS).size())
    record("(c) gemm widened", "starchart: build + size() (elimination)", seconds, size, n_wide)
    seconds, size = best_of(repeat, lambda: count_by_enumeration(Space(wide, GEMM_RESTRICTIONS)))
    record("(c) gemm widened", "starchart: build + enumerate() all valid", seconds, size, n_wide)
    if not quick:
        seconds, size = best_of(1, lambda: kernel_tuner_size(wide))
        record("(c) gemm widened", "Kernel Tuner 1.5: Searchspace(...)", seconds, size, n_wide)

    n_huge = huge_space().cartesian_size
    seconds, frame = best_of(repeat, lambda: huge_space().sample(1000, seed=42))
    assert len(frame) == 1000 and not frame.duplicated().any()
    record("(d) 10^12 space", "starchart: build + sample(1000)", seconds, len(frame), n_huge)
    seconds, size = best_of(repeat, lambda: huge_space().size())
    record("(d) 10^12 space", "starchart: build + size() (elimination)", seconds, size, n_huge)
    seconds, estimate = best_of(repeat, lambda: _estimate_without_elimination(huge_space()))
    record("(d) 10^12 space", "starchart: size_estimate(n=200000), sampled", seconds, str(estimate), n_huge)
    return rows


def _estimate_without_elimination(space: Space) -> Any:
    space.table_limit = 0  # nothing tabulated: forces the sampled estimate (and the slow path)
    return space.size_estimate(n=200_000, seed=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true",
                        help="skip Kernel Tuner on the 12M-point space (~10 s); the JSON goes to the temporary "
                             "folder, not benchmarks/results/")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the fastest is kept")
    args = parser.parse_args()
    import kernel_tuner

    rows = run(args.quick, args.repeat)
    report("space", "Building, counting, enumerating and sampling spaces (best of repeats)", rows,
           extra={"kernel_tuner": getattr(kernel_tuner, "__version__", "unknown"), "repeat": args.repeat},
           path=quick_path("space") if args.quick else None)


if __name__ == "__main__":
    main()
