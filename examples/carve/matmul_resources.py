"""Resource usage, occupancy and instruction counts of every configuration of matmul.cu, without a GPU.

    pip install 'starchart[carve]'      # NVIDIA's NVRTC, ptxas, nvdisasm and cuobjdump from PyPI
    python examples/carve/matmul_resources.py [cc]    # cc defaults to 8.6

Each configuration is compiled with its parameters as -D macros (cached in ~/.cache/starchart/carve),
its registers and shared memory give the occupancy on the chosen compute capability, and its SASS gives
the dynamic instructions per thread (loop trip counts read from the code, or from the `// trips:` comments).
"""

import sys
from pathlib import Path

import pandas as pd

from starchart.carve import ResourceCompiler, occupancy_frame

HERE = Path(__file__).resolve().parent


def main(cc: str = "8.6") -> pd.DataFrame:
    space = pd.DataFrame([{"TILE": t, "WPT": w, "UNROLL": u} for t in (8, 16, 32) for w in (1, 2, 4)
                          for u in (1, 4, 32) if u <= t and t % w == 0])
    compiler = ResourceCompiler(HERE / "matmul.cu", "matmul", cc, jobs=2)
    table = compiler.frame(space, trip_counts="source", constants={"N": 1024})
    occupancy = occupancy_frame(table, cc, threads=lambda f: f.TILE * f.TILE // f.WPT, registers="registers",
                                shared="shared_bytes")
    table = pd.concat([table, occupancy[["blocks_per_sm", "occupancy", "limiting"]]], axis=1)
    columns = ["TILE", "WPT", "UNROLL", "registers", "shared_bytes", "blocks_per_sm", "occupancy", "limiting",
               "instructions", "regions"]
    print(table[columns].to_string(index=False))
    return table


if __name__ == "__main__":
    main(*sys.argv[1:])
