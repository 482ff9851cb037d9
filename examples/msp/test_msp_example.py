"""The MSP example kernel (ensemble.c) and its evaluator: it builds, every configuration agrees, errors are clear.

Run with the suite (``python -m pytest``): pytest puts this folder on the path, so ``ensemble`` is the
example's own module beside this file."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import ensemble
import pytest

from starchart.errors import InputError

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@needs_gcc
def test_example_kernel_builds_and_every_configuration_agrees(tmp_path):
    binary, build_s = ensemble.build(tmp_path)
    assert binary.is_file() and build_s > 0
    checksums = set()
    for block, group, steps in [(64, 4, 1), (16384, 32, 4), (7, 8, 2), (1000, 16, 1)]:
        out = subprocess.run([str(binary), "100", str(block), str(group), str(steps)], capture_output=True,
                             text=True, timeout=30, check=True, env={"STARCHART_REPEATS": "2"}).stdout
        runs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert len(runs) == 2 and all(set(r) == {"time_ms", "cpu_ms"} and r["time_ms"] > 0 for r in runs)
        checksums.add(float(re.search(r"^checksum: (\S+)$", out, flags=re.MULTILINE).group(1)))
    # the vectorised and the scalar leftover paths may contract a*b+c into an FMA differently
    assert max(checksums) - min(checksums) <= 1e-12 * abs(max(checksums))
    bad = subprocess.run([str(binary), "100", "64", "5", "1"], capture_output=True, text=True, timeout=30,
                         check=False)
    assert bad.returncode == 2 and "GROUP=5" in bad.stderr
    evaluator = ensemble.ensemble_evaluator(binary, repeats=2, clock="cpu")
    assert evaluator.objective == "cpu_ms"
    m = evaluator.evaluate({**ensemble.DEFAULT_CONFIG, "n": 64})
    assert m.ok and len(m.values["cpu_ms"]) == 2 and len(m.values["time_ms"]) == 2
    with pytest.raises(InputError, match="unknown clock"):
        ensemble.ensemble_evaluator(binary, clock="tsc")
    assert ensemble.space().size() == 60 and ensemble.space().is_valid(ensemble.DEFAULT_CONFIG)
