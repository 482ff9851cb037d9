"""Whether a clang is available for the XAPP tests, and the mark that skips them without one."""

from __future__ import annotations

import pytest

from starchart.xapp import toolchain

try:
    toolchain.clang_command()
    HAVE_CLANG = True
except toolchain.ToolchainError:
    HAVE_CLANG = False

#: ``pytestmark = needs_clang`` in a module whose every test compiles C: the ``llvm`` mark of
#: tests/conftest.py, which skips where no clang is found.
needs_clang = pytest.mark.llvm
