"""Resource usage computed without a GPU against what the GPU runtime reported, on KTT's 2080 Ti convolution.

``../shared/datasets/ktt/KTConvolutionOutput_2080Ti.json.gz`` holds, per configuration, the registers and
static shared memory that CUDA reported on an RTX 2080 Ti (KTT's ``CompilationData``). This compiles a
random sample of the same configurations for sm_75 with :class:`starchart.carve.ResourceCompiler` (NVRTC
+ ptxas from PyPI, no GPU) and compares.

The kernel is KTT's ``Examples/KernelTunerConvolution/KernelTunerConvolution.cu`` (HiPerCoRe/KTT, commit
0791880634b40309884ec3e89a2895614c444629), which is not part of this repository: download it and pass
its path.

Run: ``nice python benchmarks/bench_carve_ktt_resources.py --source KernelTunerConvolution.cu [--samples 60]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
from common import dataset, report

from starchart.carve import ResourceCompiler, ktt_resources
from starchart.io.ktt import read

PARAMS = ["BLOCK_SIZE_X", "BLOCK_SIZE_Y", "TILE_SIZE_X", "TILE_SIZE_Y", "PADDING", "IMAGE_WIDTH", "IMAGE_HEIGHT",
          "HFS", "READ_ONLY"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, type=Path, help="KTT's KernelTunerConvolution.cu")
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--max-tile", type=int, default=4, help="largest TILE_SIZE_X × TILE_SIZE_Y compiled "
                        "(bigger tiles unroll thousands of FMAs and take tens of seconds each)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    ds = read(dataset("ktt/KTConvolutionOutput_2080Ti.json.gz"))
    frame = ds.frame[ds.frame.status == "ok"]
    frame = frame.join(ktt_resources(frame))
    # PADDING is a parameter of the file but not of this kernel (it reads use_padding): keep one of each.
    frame = frame[(frame.PADDING == 0) & (frame.TILE_SIZE_X * frame.TILE_SIZE_Y <= args.max_tile)]
    frame = frame.drop_duplicates(PARAMS)
    sample = frame.sample(min(args.samples, len(frame)), random_state=0)

    with tempfile.TemporaryDirectory() as tmp:
        compiler = ResourceCompiler(args.source, "Convolution", "7.5", cache_dir=tmp, jobs=args.jobs)
        start = time.perf_counter()
        ours = compiler.frame(sample, params=PARAMS)
        seconds = time.perf_counter() - start
        tools = compiler.compile(sample[PARAMS].iloc[0].to_dict()).tools

    ok = ours.status == "ok"
    theirs = sample[ok.to_numpy()]
    mine = ours[ok]
    regs_ours, regs_ktt = mine.registers.astype(float).to_numpy(), theirs.registers.astype(float).to_numpy()
    rank = np.corrcoef(np.argsort(np.argsort(regs_ours)), np.argsort(np.argsort(regs_ktt)))[0, 1]
    rows = [{
        "configurations": len(sample), "compiled": int(ok.sum()), "seconds": seconds, "tools": tools,
        "shared_exact": int((mine.shared_bytes.to_numpy() == theirs.shared_bytes.to_numpy()).sum()),
        "registers_exact": int((regs_ours == regs_ktt).sum()),
        "registers_median_ratio": float(np.median(regs_ours / regs_ktt)),
        "registers_spearman": float(rank),
        "ours_spilling": int((mine.spill_stores.to_numpy() > 0).sum()),
        "ktt_local_memory": int((theirs.local_bytes.to_numpy() > 0).sum()),
    }]
    report("carve_ktt_resources", "sm_75 resources without a GPU vs the RTX 2080 Ti's (KTT convolution)", rows,
           {"kernel": "HiPerCoRe/KTT Examples/KernelTunerConvolution/KernelTunerConvolution.cu @0791880",
            "sample": "random_state=0 over Ok configurations with PADDING=0 and "
                      f"TILE_SIZE_X*TILE_SIZE_Y <= {args.max_tile}"})


if __name__ == "__main__":
    main()
