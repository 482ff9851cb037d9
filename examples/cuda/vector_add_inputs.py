"""The inputs of vector_add.cu and the answer each configuration is checked against.

The evaluator file names ``inputs: vector_add_inputs.py:make``: starchart calls ``make()`` when it builds the
evaluator (also when a stopped study resumes) and checks every configuration's output against ``answer``.
"""

import numpy as np

N = 50_000_000  # 600 MB on the GPU in three float32 arrays: enough work to time well


def make(n: int = N) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    # one entry per kernel argument: the expected output, or None for arguments not checked
    return {"arguments": [c, a, b, np.int32(n)], "answer": [a + b, None, None, None]}
