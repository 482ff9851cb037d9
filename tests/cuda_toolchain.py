"""Skip a test that needs the CUDA compilers (NVRTC + ptxas, or nvcc) when this machine has none."""

from __future__ import annotations

import pytest

from starchart.carve.toolchain import Toolchain, find_toolchain


def toolchain_or_skip(sm: int = 80, disasm: bool = False) -> Toolchain:
    """The toolchain, or skip: no compiler for ``sm`` (or, with ``disasm``, no disassembler)."""
    tc = find_toolchain()
    has_compiler = any(t.supports(sm) for t in tc.nvrtc) and tc.pick("ptxas", sm) or tc.pick("nvcc", sm)
    if not has_compiler:
        pytest.skip("no CUDA compiler found: pip install '.[carve]' (NVRTC + ptxas from PyPI) "
                    "or put a CUDA toolkit on PATH")
    if disasm and not (tc.pick("nvdisasm", sm) or tc.pick("cuobjdump", sm)):
        pytest.skip("no nvdisasm/cuobjdump: pip install '.[carve]'")
    return tc
