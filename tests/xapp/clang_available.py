"""Whether a clang is available for the XAPP tests, and the mark that skips them without one."""

from __future__ import annotations

import pytest

from starchart.xapp import toolchain

try:
    toolchain.clang_command()
    HAVE_CLANG = True
except toolchain.ToolchainError:
    HAVE_CLANG = False

#: ``pytestmark = needs_clang`` in a module whose every test compiles C.
needs_clang = pytest.mark.skipif(not HAVE_CLANG, reason="no clang: apt-get install clang or pip install ziglang")
