"""A copy of a few kernels of the project's XAPP corpus, for tests that write into a corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def corpus_copy(tmp_path: Path, kernels: list[str]) -> Path:
    """``tmp_path/corpus`` with the harness, corpus.yaml, the named kernels and an empty measurements folder."""
    target = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus" / "harness", target / "harness")
    shutil.copy(ROOT / "corpus" / "corpus.yaml", target / "corpus.yaml")
    for name in kernels:
        shutil.copytree(ROOT / "corpus" / "kernels" / name, target / "kernels" / name)
    (target / "measurements").mkdir()
    return target
