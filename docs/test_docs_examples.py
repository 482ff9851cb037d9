"""Every Python example of the guides and concepts runs as written, in a folder like a fresh clone (the
package and examples/ beside it, no ../shared); those that need a GPU skip, saying so."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import DATASETS as SHARED
from shared_data import FETCHED_COPIES

from starchart import datasets

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([*(ROOT / "docs" / "guides").glob("*.md"), *(ROOT / "docs" / "concepts").glob("*.md"),
                ROOT / "docs" / "getting-started.md"])
#: Examples that need what CI lacks, and why (they are checked where it is there).
NEEDS = {"cuda-kernel.md": "an NVIDIA GPU and CuPy", "datasets.md": "the network (or ../shared as a mirror)"}


def _examples() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for k, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)):
            found.append((f"{page.relative_to(ROOT / 'docs')}#{k}", block))
    return found


def _mirror(tmp_path: Path) -> Path | None:
    """The benchmark hub's layout made of the shared copies, for the fetch examples (None without them)."""
    if not SHARED.exists():
        return None
    root = tmp_path / "mirror"
    for name, relative in FETCHED_COPIES.items():
        target = root / datasets.DATASETS[name].source
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SHARED / relative, target)
    return root


@pytest.mark.parametrize("name, code", _examples(), ids=[name for name, _ in _examples()])
def test_docs_example_runs(name: str, code: str, tmp_path: Path) -> None:
    page = name.split("#")[0].split("/")[-1]
    env = {**os.environ, "STARCHART_DATA": str(tmp_path / "cache")}
    if page == "cuda-kernel.md":
        pytest.skip(f"needs {NEEDS[page]}")
    if page == "datasets.md":
        mirror = _mirror(tmp_path)
        if mirror is None:
            pytest.skip(f"needs {NEEDS[page]}")
        env["STARCHART_DATA_MIRROR"] = mirror.as_uri() + "/"
    for folder in ("starchart", "examples"):  # as in the clone's root, without writing into it
        (tmp_path / folder).symlink_to(ROOT / folder)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
