"""Carving scored on spaces someone else measured whole: share removed, best kept, random sampling beside it.

    python benchmarks/carving_spaces.py [-j 2] [--only pnpoly]

For each kernel in ``benchmarks/carving/`` (sources and spaces, with their licences and how they were traced to
the caches: ``benchmarks/carving/README.md``), every configuration of the space is compiled for the measured GPU's
compute capability (NVRTC and ptxas from PyPI, no GPU; results cached in ``~/.cache/starchart/carve``, so a
second run compiles nothing) and carved by **the rules stated before scoring** (:data:`RULES`): Ryoo et al.'s
tradeoff carving, the Pareto front of efficiency and utilization (the paper's dominance rule, no predicates, no
margin), the same with the shared-memory wavefronts counted from the SASS weighed into efficiency, and that
with the block run's instruction counts after dropping uncoalesced configurations (``coalescing < 0.5``).

The carving is then scored against the cache of the whole space (``../shared/datasets``):

- *removed*: the share of the configurations that compiled and ran which carving drops;
- *best kept*: the optimum's time over the best time among the kept ones (1.0: the optimum was kept);
- *random*: the same over the expected best of a uniform sample as large as what carving kept (exact order
  statistics, :func:`starchart.carve.sampling.random_sampling_table`), and the sample size random sampling needs
  to reach 95 % of the optimum in expectation;
- *failures*: of the configurations the cache records as failed, how many carving already flagged (does not
  compile, or cannot launch: no block fits on an SM).

Prints a table and writes ``benchmarks/results/carving_spaces.json`` (date, machine, tool versions, command). A
run of some kernels only (``--only``, or without ``--convolution-source``) keeps the record's rows of the others,
so a space can be added without compiling the rest again; ``commands`` says which command scored each space.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from common import DATASETS, RESULTS, report

import starchart
from starchart.carve import carve_source
from starchart.carve.sampling import random_sampling_table
from starchart.carve.toolchain import find_toolchain
from starchart.space import Space

HERE = Path(__file__).resolve().parent / "carving"
ROOT = HERE.parent.parent


@dataclass(frozen=True)
class Kernel:
    """One measured space: where its source, space and cache are, and how it was launched."""

    name: str
    source: Path
    kernel: str
    space: Path
    cache: Path
    cc: str
    threads_per_block: str
    threads: str
    block: str


KERNELS = [
    Kernel("pnpoly", HERE / "pnpoly" / "pnpoly.cu", "cn_pnpoly", HERE / "pnpoly" / "pnpoly.yaml",
           DATASETS / "pnpoly" / "RTX_3090.json.gz", "8.6", "block_size_x",
           "-(-20000000 // (block_size_x * tile_size)) * block_size_x", "block_size_x"),
    # the measuring script divides the grid by the block only (no grid_div): blocks past the data exit at once
    Kernel("dedispersion", HERE / "dedispersion" / "dedispersion.cu", "dedispersion_kernel",
           HERE / "dedispersion" / "dedispersion.yaml", DATASETS / "dedispersion" / "A100.json.gz", "8.0",
           "block_size_x * block_size_y * block_size_z",
           "-(-25000 // block_size_x) * block_size_x * -(-2048 // block_size_y) * block_size_y",
           "block_size_x, block_size_y, block_size_z"),
]

_CONV_THREADS = "-(-4096 // (block_size_x * tile_size_x)) * block_size_x * -(-4096 // (block_size_y * tile_size_y)) * block_size_y"


def convolution_kernels(source: Path) -> list[tuple[str, Kernel]]:
    """The three convolution spaces (their launch: ``benchmarks/carving/SOURCES.md`` §1.3); the source has no
    licence, so it is not in the repository and is given by path."""
    space = ROOT / "examples" / "spaces" / "convolution.yaml"
    return [(f"convolution {gpu}", Kernel("convolution", source, "convolution_kernel", space,
                                          DATASETS / "convolution" / f"{gpu}.json.gz", cc,
                                          "block_size_x * block_size_y", _CONV_THREADS, "block_size_x, block_size_y"))
            for gpu, cc in (("A100", "8.0"), ("A4000", "8.6"), ("A6000", "8.6"))]


#: The rules, stated before scoring: the paper's (Pareto front of efficiency and utilization) and the same with
#: each shared-memory wavefront counted as an instruction in Efficiency (a replay hides no latency, so
#: Utilization stays the paper's). Both with the paper's dominance, no predicates, no margin.
RULES = {"paper": ("efficiency", "utilization"), "wavefronts weighted": ("weighted_efficiency", "utilization"),
         "coalesced executed weighted": ("weighted_efficiency", "utilization")}
#: Stated 2026-11-29 before it was scored on these spaces (see ``carving_conflicts.py`` for how it arose on KTT's
#: convolution): the paper's threshold carving on coalescing from the code (drop configurations whose global
#: accesses take more than twice the sectors their bytes need), then the weighted front with Instr and Regions
#: from the block run.
OPTIONS: dict[str, dict[str, Any]] = {"coalesced executed weighted": {"counts": "executed",
                                                                       "predicates": ("coalescing >= 0.5",)}}


def score(kernel: Kernel, rule: str, jobs: int) -> dict[str, Any]:
    """Carve ``kernel``'s space by ``rule`` and score the result against its measured cache."""
    data = starchart.load(kernel.cache)
    params = list(data.params)
    space = Space.from_file(kernel.space)
    result = carve_source(kernel.source, kernel.kernel, space, kernel.cc, threads_per_block=kernel.threads_per_block,
                          threads=kernel.threads, jobs=jobs, progress=True, block=kernel.block,
                          metrics=RULES[rule], **OPTIONS.get(rule, {}))
    frame = result.frame.merge(data.frame[[*params, "status", "time"]].rename(columns={"status": "measured"}),
                               on=params, how="left", validate="one_to_one")
    if frame["measured"].isna().any():
        missing = int(frame["measured"].isna().sum())
        raise SystemExit(f"{kernel.name}: {missing} configurations of the space are not in {kernel.cache}")
    ran = frame[frame["measured"] == "ok"]
    # carving judged these: compiled, with metrics (a threshold's verdict is a judgement too)
    judged = ran[ran["carved_by"].isin(["", "dominated", *OPTIONS.get(rule, {}).get("predicates", ())])]
    kept = judged[judged["carved_by"] == ""]
    times = ran["time"].to_numpy(dtype=float)
    best_kept = float(kept["time"].min())
    table = random_sampling_table(times, len(kept), best_kept, name=kernel.name, fractions=(0.95,))
    failed = frame[frame["measured"] != "ok"]
    flagged = failed["carved_by"].isin(["does not compile", "missing metrics"]) | (failed.get("occupancy", 1) == 0)
    best_row = ran.loc[ran["time"].idxmin()]
    return {
        "kernel": kernel.name, "rule": rule, "gpu": data.meta.get("device_name"), "cc": kernel.cc,
        "configurations": len(frame), "ran": len(ran), "judged": len(judged), "kept": len(kept),
        "removed_share": 1 - len(kept) / len(judged),
        "optimum_ms": float(times.min()), "best_kept_ms": best_kept,
        "best_kept_relative": table["carving_relative"],
        "random_same_size_relative": table["random_relative"],
        "random_size_for_95": table["random_size_for_95"],
        "optimum_kept": bool(best_row["carved_by"] == ""),
        "optimum_dropped_by": str(best_row["carved_by"]) or None,
        "measured_failures": len(failed), "failures_flagged_by_carving": int(np.sum(flagged)),
        "ran_but_refused_by_carving": len(ran) - len(judged),
        "bank_conflicts_median": float(judged["bank_conflicts"].median()),
        "coalescing_range": [float(judged["coalescing"].min()), float(judged["coalescing"].max())],
        "removed_by_threshold": int(ran["carved_by"].isin(OPTIONS.get(rule, {}).get("predicates", ())).sum()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", "--jobs", type=int, default=2, help="configurations compiled at once (default 2)")
    parser.add_argument("--only", default="",
                        help="score only the spaces whose name ('convolution A100', 'pnpoly RTX_3090') contains this")
    parser.add_argument("--convolution-source", type=Path,
                        help="the unlicensed convolution.cu (benchmarks/carving/SOURCES.md §1): adds convolution on "
                             "the A100 and A4000 (not the A6000: half its file is inferred from the A4000's, "
                             "SOURCES.md §1.6)")
    args = parser.parse_args()
    if not DATASETS.exists():
        sys.exit(f"{DATASETS} not found: the measured caches are needed")
    kernels = list(KERNELS)
    if args.convolution_source:
        kernels += [kernel for name, kernel in convolution_kernels(args.convolution_source) if "A6000" not in name]
    command = ("python benchmarks/carving_spaces.py" + (f" --only {args.only!r}" if args.only else "")
               + (" --convolution-source convolution.cu" if args.convolution_source else ""))
    rows = [score(kernel, rule, args.jobs) for kernel in kernels
            if args.only in f"{kernel.name} {kernel.cache.name.split('.')[0]}" for rule in RULES]
    kept, commands = _kept_rows({_space(row) for row in rows})
    rows = kept + rows
    commands |= {_space(row): command for row in rows if _space(row) not in commands}
    tools = find_toolchain()
    report("carving_spaces", "Carving (Pareto front of efficiency and utilization) against whole measured spaces",
           rows, extra={"rule": "tradeoff carving: Pareto front of (efficiency, utilization), paper's dominance, "
                                "no predicates, within=0; the same with weighted_efficiency (shared-memory "
                                "wavefronts counted as instructions) in place of efficiency; and that with "
                                "Instr and Regions from the block run after dropping coalescing < 0.5",
                        "toolchain": str(tools), "command": command, "commands": commands})


def _space(row: dict[str, Any]) -> str:
    return f"{row['kernel']} {row['gpu']}"


def _kept_rows(scored: set[str]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The record's rows of the spaces not scored now, and the command that scored each of them."""
    path = RESULTS / "carving_spaces.json"
    if not path.exists():
        return [], {}
    record = json.loads(path.read_text())
    rows = [row for row in record["rows"] if _space(row) not in scored]
    old = record.get("commands", {})
    return rows, {_space(row): old.get(_space(row), record["command"]) for row in rows}


if __name__ == "__main__":
    main()
