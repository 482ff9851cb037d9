"""Regenerate the compiler-output fixtures in this folder with real NVIDIA tools (see README.md).

Run from the repository root: ``python tests/data/ptxas/make_fixtures.py``. Needs nvcc (CUDA 13.0
was used), the PyPI wheels of the ``carve`` extra (NVRTC and ptxas 12.9, nvdisasm and cuobjdump
13.5) and g++ with CUDA's ``cuda_occupancy.h`` for the occupancy oracle.
"""

import subprocess
import tempfile
from pathlib import Path

from starchart.carve.resources import ResourceCompiler
from starchart.carve.toolchain import find_toolchain

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MATMUL = ROOT / "examples" / "carve" / "matmul.cu"


def run(cmd: list[str]) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return out.stdout + out.stderr


def main() -> None:
    tc = find_toolchain(refresh=True)
    nvcc = str(tc.pick("nvcc", 90).path)
    nvdisasm = str(tc.pick("nvdisasm", 80).path)
    cuobjdump = str(tc.pick("cuobjdump", 80).path)
    tmp = Path(tempfile.mkdtemp())
    kernels = HERE / "kernels.cu"
    for sm in (75, 90):
        log = run([nvcc, "-cubin", f"-arch=sm_{sm}", "-Xptxas", "-v", str(kernels), "-o", str(tmp / f"k{sm}.cubin")])
        (HERE / f"nvcc13.0_kernels_sm{sm}.txt").write_text(log)
    (HERE / "cuobjdump13.5_res_usage_sm90_cubin.txt").write_text(run([cuobjdump, "-res-usage", str(tmp / "k90.cubin")]))
    run([nvcc, "-fatbin", "-gencode", "arch=compute_75,code=sm_75", "-gencode", "arch=compute_90,code=sm_90",
         str(kernels), "-o", str(tmp / "k.fatbin")])
    (HERE / "cuobjdump13.5_res_usage_fatbin.txt").write_text(run([cuobjdump, "-res-usage", str(tmp / "k.fatbin")]))
    log = run([nvcc, "-cubin", "-arch=sm_80", "-maxrregcount=16", "-Xptxas", "-v", "-DTILE=32", "-DWPT=4",
               "-DUNROLL=8", str(MATMUL), "-o", str(tmp / "spill.cubin")])
    (HERE / "nvcc13.0_matmul_sm80_spills.txt").write_text(log)
    # NVRTC 12.9 → PTX → ptxas 12.9 -v for every compute capability (the ResourceCompiler path).
    logs = []
    for cc in ("7.0", "7.5", "8.0", "8.6", "8.9", "9.0"):
        r = ResourceCompiler(MATMUL, "matmul", cc, cache_dir=tmp / "cache", backend="nvrtc").compile(
            {"TILE": 16, "WPT": 2, "UNROLL": 4})
        logs.append(r.log)
    (HERE / "ptxas12.9_matmul_all_cc.txt").write_text("\n".join(logs) + "\n")
    for cc, config, name in (("8.0", {"TILE": 16, "WPT": 2, "UNROLL": 4}, "matmul_sm80_t16_w2_u4"),
                             ("8.6", {"TILE": 8, "WPT": 1, "UNROLL": 8}, "matmul_sm86_t8_w1_u8")):
        r = ResourceCompiler(MATMUL, "matmul", cc, cache_dir=tmp / "cache", backend="nvrtc").compile(config)
        (HERE / f"nvdisasm13.5_{name}.sass").write_text(run([nvdisasm, "-c", "-g", str(r.cubin)]))
    r = ResourceCompiler(MATMUL, "matmul", "7.5", cache_dir=tmp / "cache", backend="nvrtc").compile(
        {"TILE": 32, "WPT": 1, "UNROLL": 1})
    (HERE / "cuobjdump13.5_sass_matmul_sm75_t32_w1_u1.sass").write_text(run([cuobjdump, "-sass", str(r.cubin)]))
    r = ResourceCompiler(kernels, "prefetch_sum", "8.0", cache_dir=tmp / "cache", backend="nvrtc").compile({})
    (HERE / "nvdisasm13.5_prefetch_sm80.sass").write_text(run([nvdisasm, "-c", "-g", str(r.cubin)]))


if __name__ == "__main__":
    main()
