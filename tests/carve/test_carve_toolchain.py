"""Finding the CUDA tools: a tool whose ``--version`` fails (a wrapper left pointing at a removed toolkit) is
left out and named in the error, instead of being picked and failing every compile with "fix the source"."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from starchart.carve import toolchain
from starchart.carve.resources import ResourceCompiler
from starchart.carve.toolchain import find_toolchain
from starchart.errors import StarchartError

KERNEL = 'extern "C" __global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }'


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def fake_tools(tmp_path, monkeypatch):
    """``find_toolchain`` over the given nvcc candidates only (no NVRTC, no other tool); cache restored after."""
    saved = toolchain._TOOLCHAIN

    def use(nvcc: list[Path]):
        monkeypatch.setattr(toolchain, "_candidates", lambda name: list(nvcc) if name == "nvcc" else [])
        monkeypatch.setattr(toolchain, "_nvrtc_libraries", list)
        return find_toolchain(refresh=True)

    yield use
    toolchain._TOOLCHAIN = saved


def test_a_broken_wrapper_is_not_picked_over_a_working_compiler(tmp_path, fake_tools):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    broken = _script(tmp_path / "a" / "nvcc", "exec /opt/cuda-missing/bin/nvcc \"$@\"")
    working = _script(tmp_path / "b" / "nvcc", 'echo "Cuda compilation tools, release 12.4, V12.4.131"')
    tc = fake_tools([broken, working])
    # Before: the broken one was kept with an unknown version and, as the "oldest", picked for every compile.
    assert [t.path for t in tc.nvcc] == [working]
    assert tc.pick("nvcc", 90).path == working
    assert [p for p, _ in tc.broken] == [broken] and "exited with 127" in tc.broken[0][1]
    assert "broken" in tc.describe()


def test_only_broken_tools_say_the_toolchain_is_broken(tmp_path, fake_tools):
    broken = _script(tmp_path / "nvcc", "exec /opt/cuda-missing/bin/nvcc \"$@\"")
    tc = fake_tools([broken])
    assert tc.nvcc == ()
    rc = ResourceCompiler(KERNEL, "k", "9.0", cache_dir=False, toolchain=tc)
    with pytest.raises(StarchartError, match="broken tool") as info:
        rc.compile({})
    assert str(broken) in str(info.value) and "fix or remove" in str(info.value)
