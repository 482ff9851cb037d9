"""Run a corpus CUDA program on the CPU: the dry run of a GPU measurement, without a GPU.

``corpus/harness/emulator/cuda_runtime.h`` stands in for the CUDA runtime (one std::thread per
CUDA thread, real barriers and warp exchanges). A program is rewritten so that its launches
``kernel<<<grid, block>>>(args)`` become calls ``xemu_launch(grid, block, kernel, args)`` and
built with g++. Its checksum can be compared with the C side's; its times mean nothing.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "k.cu").write_text("k<<<blocks, 256>>>(n, x);\\n")
>>> rewrite_launches(folder / "k.cu").strip()
'xemu_launch(blocks, 256, k, n, x);'
"""

from __future__ import annotations

import re
from pathlib import Path

#: How an emulated program is built: {include} is the emulator's folder.
BUILD = ["g++", "-std=c++20", "-O1", "-pthread", "-w", "-I{include}", "{source}", "-o", "{binary}", "-lm"]
_LAUNCH = re.compile(r"(\w+)\s*<<<\s*([^<>]+?)\s*,\s*([^<>]+?)\s*>>>\s*\(")
_INCLUDE = re.compile(r'#include "([^"]+)"')


def rewrite_launches(cu_path: Path) -> str:
    """The CUDA program's text with launches as emulator calls and relative includes absolute."""
    text = _LAUNCH.sub(r"xemu_launch(\2, \3, \1, ", cu_path.read_text())

    def absolute(match: re.Match) -> str:
        target = (cu_path.parent / match.group(1)).resolve()
        return f'#include "{target}"' if target.exists() else match.group(0)

    return _INCLUDE.sub(absolute, text)


def build_command(source: Path, binary: Path, include: Path) -> list[str]:
    """The g++ command that builds a rewritten program against the emulator in ``include``."""
    return [part.replace("{include}", str(include)).replace("{source}", str(source)).replace("{binary}", str(binary))
            for part in BUILD]
