"""A clang without its profile runtime is named as such (Debian ships the runtime apart from clang)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from starchart.errors import StarchartError
from starchart.xapp import toolchain
from starchart.xapp.dynamic.crosscheck import clang_profile, missing_profile_runtime


@pytest.fixture(autouse=True)
def _forget_clang():
    """clang_command() is cached: resolve it afresh for the stand-in, and again after it."""
    toolchain.clang_command.cache_clear()
    yield
    toolchain.clang_command.cache_clear()


def _fake_clang(folder: Path, resource: Path) -> Path:
    """A stand-in clang that reports a version and a resource folder, with LLVM's profile tools beside it."""
    folder.mkdir(parents=True)
    clang = folder / "clang"
    clang.write_text("#!/bin/sh\n"
                     'case "$1" in\n'
                     '  --version) echo "clang version 14.0.6" ;;\n'
                     f'  -print-resource-dir) echo "{resource}" ;;\n'
                     "  *) exit 1 ;;\n"
                     "esac\n")
    for tool in ("llvm-profdata", "llvm-cov"):
        (folder / tool).write_text("#!/bin/sh\nexit 1\n")
    for path in folder.iterdir():
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return clang


def test_missing_runtime_is_named_with_its_package(tmp_path, monkeypatch):
    resource = tmp_path / "llvm" / "lib" / "clang" / "14.0.6"
    (resource / "lib" / "linux").mkdir(parents=True)
    monkeypatch.setenv("STARCHART_CLANG", str(_fake_clang(tmp_path / "bin", resource)))
    why = missing_profile_runtime()
    assert why is not None and str(resource) in why and "libclang-rt-14-dev" in why
    source = tmp_path / "k.c"
    source.write_text("int main(void) { return 0; }\n")
    with pytest.raises(StarchartError, match="libclang_rt.profile is not under"):
        clang_profile(source)


def test_installed_runtime_is_found(tmp_path, monkeypatch):
    resource = tmp_path / "llvm" / "lib" / "clang" / "14.0.6"
    (resource / "lib" / "linux").mkdir(parents=True)
    (resource / "lib" / "linux" / "libclang_rt.profile-x86_64.a").write_bytes(b"!<arch>\n")
    monkeypatch.setenv("STARCHART_CLANG", str(_fake_clang(tmp_path / "bin", resource)))
    assert missing_profile_runtime() is None
