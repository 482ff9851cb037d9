"""Where the shared real-measurement datasets live, for integration tests.

They sit beside the project root in ``../shared/datasets/`` (CI always has them);
a test that needs one skips with a clear message where the folder is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"

#: The shared copies of the sets :mod:`starchart.datasets` fetches (the same bytes as the hub's files).
FETCHED_COPIES = {"gemm": "gemm/RTX_3090.json.gz", "dedispersion": "dedispersion/A100.json.gz",
                  "pnpoly": "pnpoly/RTX_3090.json.gz", "ktt_convolution": "ktt/KTConvolutionOutput_2080Ti.json.gz"}


def dataset_path(relative: str) -> Path:
    """Path of a shared dataset file; skips the calling test when it is absent."""
    path = DATASETS / relative
    if not path.exists():
        pytest.skip(f"shared dataset {relative} not found under {DATASETS} "
                    "(clone the project with ../shared beside it to run this test)")
    return path
