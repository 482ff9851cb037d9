"""A program that prints without end is read with bounded memory, keeping the values it prints last."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from child_env import child_env

from starchart.measure import CommandEvaluator
from starchart.measure.capture import BoundedCapture
from starchart.measure.process import run_process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and pipes")

# A child process reports its own peak memory (VmHWM: ru_maxrss would carry over the forking test
# process's peak across exec), so the figure is not shared with other tests.
PEAK = r"""
import json, sys
from starchart.measure.process import run_process
big = run_process("head -c 600000000 /dev/zero | tr '\\0' x; echo; echo time=1.5", shell=True)
endless = run_process("yes 'error: device busy, retrying'", shell=True, timeout=2)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"peak_mb": peak_kb / 1024,
                  "big_end": big.stdout[-9:], "big_dropped": big.output_dropped, "big_ok": big.ok,
                  "endless": endless.failure_reason()[:40], "endless_kept": len(endless.stdout),
                  "endless_dropped": endless.output_dropped}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc")
def test_gigabytes_of_output_keep_memory_bounded_and_the_last_values():
    done = subprocess.run([sys.executable, "-c", PEAK], capture_output=True, text=True, env=child_env(), timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    # Read whole, 600 MB of output is held as bytes and as text (1.2 GB and more); bounded, well under half that.
    assert report["peak_mb"] < 450, report
    assert report["big_ok"] and report["big_end"] == "time=1.5\n"
    assert "stdout: 600,000,001 bytes dropped" in report["big_dropped"]
    assert report["endless"] == "timed out after 2 s"
    assert report["endless_kept"] < 40 * 2**20 and "stdout:" in report["endless_dropped"]


def test_a_measurement_of_a_very_chatty_program_keeps_its_value_and_says_what_was_dropped(tmp_path):
    bench = tmp_path / "chatty.sh"
    bench.write_text("#!/bin/sh\nhead -c 50000000 /dev/zero | tr '\\0' '\\n'\necho time=$1\n")
    bench.chmod(0o755)
    measurement = CommandEvaluator([str(bench), "{value}"], pattern=r"time=(\S+)").evaluate({"value": 2.5})
    assert measurement.ok and measurement.values["time"] == [2.5]
    assert "stdout: " in measurement.extra["output_dropped"] and "bytes dropped" in measurement.extra["output_dropped"]


def test_output_within_the_limit_is_kept_whole_and_unannotated():
    result = run_process(["sh", "-c", "seq 1 100000; seq 1 10 >&2"])
    assert result.stdout == "".join(f"{i}\n" for i in range(1, 100001))
    assert result.stderr == "".join(f"{i}\n" for i in range(1, 11))
    assert result.output_dropped is None


@pytest.mark.parametrize("seed", range(6))
def test_a_capture_keeps_whole_first_and_last_lines_however_the_stream_is_split(seed):
    rng = np.random.default_rng(seed)
    lines = [f"line {i} " + "x" * int(rng.integers(0, 30)) + "\n" for i in range(int(rng.integers(5, 400)))]
    stream = "".join(lines).encode()
    limit, head = int(rng.integers(40, 2000)), int(rng.integers(0, 30))
    capture = BoundedCapture(limit=limit, head=head)
    cuts = np.sort(rng.integers(0, len(stream), size=int(rng.integers(0, 60))))
    for piece in np.split(np.frombuffer(stream, dtype=np.uint8), cuts):
        capture.add(piece.tobytes())
    data = capture.data()
    if len(stream) <= limit:
        assert data == stream and capture.dropped == 0
        return
    first, marker, last = data.decode().partition("[starchart: ")
    last = last.split("]\n", 1)[1]
    kept_first = [line + "\n" for line in first.splitlines()]
    kept_last = [line + "\n" for line in last.splitlines()]
    assert kept_first == lines[:len(kept_first)]  # whole lines from the start
    assert kept_last == lines[len(lines) - len(kept_last):]  # whole lines up to the end
    assert len(first) <= head and len(last) <= limit - head
    assert capture.dropped == len(stream) - len(first) - len(last) > 0
    assert f"{capture.dropped} bytes of output dropped" in marker + data.decode()
