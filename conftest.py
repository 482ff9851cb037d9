"""The markers of tests that need a machine's extras, for every test folder (tests/, docs/, examples/, ...).

- ``@pytest.mark.gpu`` (CuPy and an NVIDIA GPU), ``@pytest.mark.llvm`` (clang and llvmlite) and
  ``@pytest.mark.browser`` (Chromium): the test skips, saying what it needs, where that is missing.
"""

from __future__ import annotations

import pytest
from browser import CHROMIUM

from starchart.xapp import toolchain


def _gpu() -> bool:
    try:
        import cupy  # an optional extra: here only to ask whether there is a GPU
        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: no GPU
        return False


def _clang() -> bool:
    try:
        toolchain.clang_command()
        return True
    except toolchain.ToolchainError:
        return False


_NEEDS = {
    "gpu": ("CuPy and an NVIDIA GPU", _gpu),
    "llvm": ("clang (apt-get install clang, or pip install ziglang)", _clang),
    "browser": ("Chromium (Debian: apt-get install chromium)", lambda: CHROMIUM is not None),
}


def pytest_configure(config: pytest.Config) -> None:
    for name, (what, _) in _NEEDS.items():
        config.addinivalue_line("markers", f"{name}: needs {what}; skipped where missing")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    available = {name: found() for name, (_, found) in _NEEDS.items()}
    for item in items:
        for name, (what, _) in _NEEDS.items():
            if item.get_closest_marker(name) is not None and not available[name]:
                item.add_marker(pytest.mark.skip(reason=f"needs {what}"))


