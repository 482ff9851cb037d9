"""What the tests under tests/ share: the shared-data fixture (the markers are the root conftest.py's).

- ``shared_dataset("convolution/A100.json.gz")``: the path of a real measurement file under
  ``../shared/datasets``; the test skips, naming the file, in a clone without that folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from shared_data import dataset_path


@pytest.fixture
def shared_dataset() -> Callable[[str], Path]:
    """A function from a path under ``../shared/datasets`` to that file; skips the test where it is absent."""
    return dataset_path
