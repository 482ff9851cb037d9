"""Static XAPP features of the small C kernels in cases/, against hand-derived values.

Each ``cases/NAME.c`` has a ``cases/NAME.yaml`` listing calls of ``static_analysis`` (their
keyword arguments), the features expected (a derivation comment on each), optionally the
expected per-access/branch/loop details, or the error message expected.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from starchart.errors import InputError
from starchart.xapp.static import FEATURES, static_analysis, static_features

CASES = Path(__file__).parent / "cases"
SPECS = sorted(CASES.glob("*.yaml"))


def _calls():
    for spec in SPECS:
        for k, call in enumerate(yaml.safe_load(spec.read_text())["calls"]):
            yield pytest.param(spec.with_suffix(".c"), call, id=f"{spec.stem}-{k}")


def _matches(actual: dict, expected: dict) -> bool:
    for key, want in expected.items():
        got = actual[key]
        if isinstance(want, float) and got is not None:
            if got != pytest.approx(want, rel=1e-6, abs=1e-9):
                return False
        elif key == "reason":
            if want not in got:
                return False
        elif got != want:
            return False
    return True


def test_collection_has_the_required_cases():
    names = {p.stem for p in SPECS}
    assert len(names) >= 12
    assert {"streaming", "strided", "transpose", "matadd2d", "inner_reduction", "pragma_trip", "branch_thread",
            "branch_uniform", "pragma_prob", "math_mix", "fig42"} <= names
    assert {p.stem for p in CASES.glob("*.c")} == names


@pytest.mark.parametrize("source, call", _calls())
def test_case(source: Path, call: dict):
    args = {k: ({int(line): v for line, v in a.items()} if isinstance(a, dict) else a)
            for k, a in call["args"].items()}
    if "error" in call:
        with pytest.raises(InputError) as err:
            static_analysis(source, **args)
        assert call["error"] in str(err.value)
        assert str(source) in str(err.value)
        return
    result = static_analysis(source, **args)
    for name, want in call["features"].items():
        assert result.features[name] == pytest.approx(want, rel=1e-6, abs=1e-9), name
    for section in ("accesses", "branches", "loops"):
        items = [vars(x) for x in getattr(result, section)]
        for want in call.get(section, []):
            assert any(_matches(item, want) for item in items), (section, want, items)


def test_features_are_exactly_the_ten_floats():
    features = static_features(CASES / "streaming.c")
    assert tuple(features) == FEATURES
    assert all(type(v) is float for v in features.values())


def test_analysis_is_json_ready_with_timings():
    result = static_analysis(CASES / "fig42.c")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["band_lines"] == [5] and data["function"] == "search"
    assert {"clang_s", "analysis_s"} <= set(data["timing"])
    assert data["timing"]["analysis_s"] < 1.0
