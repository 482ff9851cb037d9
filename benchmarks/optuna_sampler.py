"""The starchart Optuna sampler against Optuna's RandomSampler and TPESampler, side by side in one run.

    python benchmarks/optuna_sampler.py [--trials 100] [--repeats 5] [--quick]

Per trial: each sampler runs ``--trials`` trials of the same study (an in-memory Optuna study, the
objective a pure-Python model of a kernel's time over five tuning parameters, 2,592 configurations, with
the ones over 1,024 threads per block failing as they do on a GPU). The samplers take turns, seed by
seed, so a drift in the machine's speed touches all alike. ``ms_per_trial`` is the median over the
repeats after the first; ``first_study_ms_per_trial`` is the first study in the process (for starchart
it includes loading its compiled kernels from numba's cache), ``ratio_to_random`` is to RandomSampler's
median. The objective itself costs microseconds, so the figures are the samplers' and Optuna's own
overhead. ``best`` is the median best value (the optimum is 1.0), ``optimum_found`` in how many repeats.

Construction: a space with one parameter of 10^5, 10^6 and 10^7 values (and one of three): seconds to
build the ``Space``, the sampler, and the first trial of a study (whose objective suggests the parameter
from the whole list, as Optuna users write it), then the ms per trial of the next 14 (up to 10^6 values:
10 uniform, then the model's), for the starchart sampler and for RandomSampler (Optuna's own cost of a
categorical distribution that long). Beyond ``starchart.space.MAX_VALUES`` values a parameter is refused:
the row says how fast.

About 30 s on 2 cores; prints two tables and writes ``benchmarks/results/optuna_sampler.json`` (with
``--quick``: 30 trials, 2 repeats, up to 10^5 values, a JSON file in the temporary folder instead).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import optuna
from common import quick_path, report
from rich.console import Console
from rich.table import Table

from starchart import Space, StarchartSampler
from starchart.errors import StarchartError

SPACE: dict[str, list[Any]] = {
    "block_size_x": [16, 32, 64, 128, 256, 512], "block_size_y": [1, 2, 4, 8, 16, 32],
    "tile": [1, 2, 3, 4, 6, 8], "unroll": [0, 1, 2, 4], "cache": ["shared", "global", "texture"],
}
CACHE_COST = {"shared": 0.0, "global": 0.5, "texture": 0.3}
OPTIMUM = 1.0  # block_size_x=128, block_size_y=4, tile=4, unroll=2, cache=shared


def kernel_time(config: dict[str, Any]) -> float:
    """A kernel's time in ms: bowls in the block sizes and the tile, steps in unroll and cache; over 1,024
    threads per block it fails."""
    bx, by = config["block_size_x"], config["block_size_y"]
    if bx * by > 1024:
        raise RuntimeError("too many threads per block")
    return (OPTIMUM + 0.3 * abs(math.log2(bx) - 7) + 0.3 * abs(math.log2(by) - 2) + (config["tile"] - 4) ** 2 / 16
            + 0.2 * (config["unroll"] != 2) + CACHE_COST[config["cache"]])


def objective(trial: optuna.Trial) -> float:
    return kernel_time({name: trial.suggest_categorical(name, values) for name, values in SPACE.items()})


SAMPLERS: dict[str, Callable[[int, int], Any]] = {
    "RandomSampler": lambda seed, trials: optuna.samplers.RandomSampler(seed=seed),
    "TPESampler": lambda seed, trials: optuna.samplers.TPESampler(seed=seed),
    "StarchartSampler": lambda seed, trials: StarchartSampler(SPACE, budget=trials, seed=seed),
}


def one_study(name: str, seed: int, trials: int) -> tuple[float, float, int]:
    """ms per trial, best value and failed trials of one study."""
    study = optuna.create_study(sampler=SAMPLERS[name](seed, trials))
    start = time.perf_counter()
    study.optimize(objective, n_trials=trials, catch=(RuntimeError,))
    ms = (time.perf_counter() - start) * 1000 / trials
    failed = sum(t.state == optuna.trial.TrialState.FAIL for t in study.trials)
    return ms, study.best_value, failed


def per_trial(trials: int, repeats: int) -> list[dict[str, Any]]:
    runs: dict[str, list[tuple[float, float, int]]] = {name: [] for name in SAMPLERS}
    for seed in range(repeats + 1):  # seed 0: the first study in the process, reported apart
        for name in SAMPLERS:
            runs[name].append(one_study(name, seed, trials))
    base = statistics.median(ms for ms, _, _ in runs["RandomSampler"][1:])
    rows = []
    for name, results in runs.items():
        counted = results[1:]
        ms = statistics.median(r[0] for r in counted)
        rows.append({"sampler": name, "trials": trials, "repeats": repeats, "ms_per_trial": ms,
                     "first_study_ms_per_trial": results[0][0], "ratio_to_random": ms / base,
                     "best": statistics.median(r[1] for r in counted),
                     "optimum_found": f"{sum(r[1] <= OPTIMUM + 1e-12 for r in counted)}/{repeats}",
                     "failed_trials": statistics.median(r[2] for r in counted)})
    return rows


def construction(sizes: list[int], more: int) -> list[dict[str, Any]]:
    """Seconds to build a space, a sampler and a first trial over a parameter of ``n`` values, and the ms per
    trial of ``more`` trials after it (up to 10^6 values)."""
    rows = []
    for n in sizes:
        values = list(range(n))
        space = {"x": values, "y": [1, 2, 4]}

        def trials(study: optuna.Study, count: int, values: list[int] = values, n: int = n) -> float:
            start = time.perf_counter()
            study.optimize(lambda t: abs(t.suggest_categorical("x", values) - n / 3)
                           + t.suggest_categorical("y", [1, 2, 4]), n_trials=count)
            return time.perf_counter() - start

        row: dict[str, Any] = {"values": f"{n:,}"}
        start = time.perf_counter()
        try:
            Space(space)
            row["space_s"] = time.perf_counter() - start
            start = time.perf_counter()
            sampler = StarchartSampler(space, seed=0)
            row["sampler_s"] = time.perf_counter() - start
            study = optuna.create_study(sampler=sampler)
            row["first_trial_s"] = trials(study, 1)
            row[f"next_{more}_ms_per_trial"] = trials(study, more) * 1000 / more if n <= 10**6 else None
            row["outcome"] = "built"
        except StarchartError as exc:
            row.update({key: None for key in ("space_s", "sampler_s", "first_trial_s",
                                              f"next_{more}_ms_per_trial") if key not in row})
            row["outcome"] = f"refused after {time.perf_counter() - start:.2g} s: {exc.message}"
        study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
        row["random_first_trial_s"] = trials(study, 1)
        row[f"random_next_{more}_ms_per_trial"] = trials(study, more) * 1000 / more if n <= 10**6 else None
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100, help="trials per study (default 100)")
    parser.add_argument("--repeats", type=int, default=5, help="studies per sampler after the first (default 5)")
    parser.add_argument("--quick", action="store_true",
                        help="30 trials, 2 repeats, up to 10^5 values; the JSON goes to the temporary folder")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    trials, repeats = (30, 2) if args.quick else (args.trials, args.repeats)
    sizes = [10**5] if args.quick else [10**5, 10**6, 10**7]
    rows = per_trial(trials, repeats)
    built = construction(sizes, more=5 if args.quick else 14)
    table = Table(title="A parameter of n values: seconds to build the Space, the sampler, a first trial; "
                        "ms per trial after it")
    for column in built[0]:
        table.add_column(column, justify="right")
    for row in built:
        table.add_row(*[f"{v:.3g}" if isinstance(v, float) else "-" if v is None else str(v)
                        for v in row.values()])
    Console(width=160).print(table)
    command = "python benchmarks/optuna_sampler.py" + (" --quick" if args.quick else
                                                        f" --trials {trials} --repeats {repeats}")
    report("optuna_sampler", f"ms per Optuna trial, {trials} trials, median of {repeats} studies "
                             "(ratio to RandomSampler)", rows,
           extra={"optuna": optuna.__version__, "command": command, "construction": built},
           path=quick_path("optuna_sampler") if args.quick else None)


if __name__ == "__main__":
    main()
