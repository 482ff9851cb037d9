"""The static host-side feature: how many times the loops around the parallel band run it."""

from __future__ import annotations

from pathlib import Path

import pytest
from clang_available import needs_clang

from starchart.xapp.static import DEFAULT_TRIP, static_analysis
from starchart.xapp.training import static_row

pytestmark = needs_clang


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "k.c"
    path.write_text(body)
    return path


BAND = ["#pragma xapp parallel trip(1000)", "        for (long i = 0; i < n; i++) x[i] = x[i] * 0.5f + 1.0f;"]


def test_a_band_alone_runs_once(tmp_path: Path):
    path = _write(tmp_path, "\n".join(["void f(long n, float *x) {", *BAND, "}"]))
    analysis = static_analysis(path)
    assert analysis.host_steps == 1.0
    assert [loop.role for loop in analysis.loops] == ["band"]


@pytest.mark.parametrize("header, want, source", [
    ("#pragma xapp trip(250)\n    for (long t = 0; t < steps; t++) {", 250.0, "pragma"),
    ("    for (int t = 0; t < 40; t++) {", 40.0, "constant"),
    ("    for (long t = 0; t < steps; t++) {", DEFAULT_TRIP, "default"),
], ids=["pragma", "constant", "unknown"])
def test_loops_around_the_band_count_launches(tmp_path: Path, header: str, want: float, source: str):
    path = _write(tmp_path, "\n".join(["void f(long n, long steps, float *x) {", header, *BAND, "    }", "}"]))
    analysis = static_analysis(path)
    assert analysis.host_steps == want
    host = [loop for loop in analysis.loops if loop.role == "host"]
    assert [(loop.trip, loop.trip_source, loop.depth) for loop in host] == [(want, source, 0)]
    # the thesis's 10 features do not see the host loop: the band is the same either way
    assert analysis.features["parallelism"] == 1000.0


def test_nested_host_loops_multiply_and_static_row_carries_them(tmp_path: Path):
    path = _write(tmp_path, "\n".join([
        "void f(long n, float *x) {",
        "    for (int s = 0; s < 3; s++) {",
        "#pragma xapp trip(7)",
        "        for (long t = 0; t < n; t++) {", *BAND, "        }", "    }", "}"]))
    assert static_analysis(path).host_steps == 21.0
    row = static_row(path)
    assert row["host_steps"] == 21.0 and len(row) == 11
