"""What the whole suite shares: the shared-data fixture and the markers of tests that need a machine's extras.

- ``shared_dataset("convolution/A100.json.gz")``: the path of a real measurement file under
  ``../shared/datasets``; the test skips, naming the file, in a clone without that folder.
- ``@pytest.mark.gpu`` (CuPy and an NVIDIA GPU), ``@pytest.mark.llvm`` (clang and llvmlite) and
  ``@pytest.mark.browser`` (Chromium): the test skips, saying what it needs, where that is missing.
"""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from shared_data import dataset_path

_NEEDS = {
    "gpu": ("CuPy and an NVIDIA GPU", lambda: importlib.util.find_spec("cupy") is not None
            and shutil.which("nvidia-smi") is not None),
    "llvm": ("clang and llvmlite (pip install '.[xapp]')", lambda: importlib.util.find_spec("llvmlite") is not None
             and (shutil.which("clang") is not None or importlib.util.find_spec("ziglang") is not None)),
    "browser": ("Chromium (Debian package chromium)", lambda: any(shutil.which(name) for name in
                                                                    ("chromium", "chromium-browser", "google-chrome"))),
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


@pytest.fixture
def shared_dataset() -> Callable[[str], Path]:
    """A function from a path under ``../shared/datasets`` to that file; skips the test where it is absent."""
    return dataset_path
