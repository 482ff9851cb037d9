"""Static XAPP features of the small C kernels in cases/, against hand-derived values.

Each ``cases/NAME.c`` has a ``cases/NAME.yaml`` listing calls of ``static_analysis`` (their
keyword arguments), the features expected (a derivation comment on each), optionally the
expected per-access/branch/loop details, or the error message expected.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError
from starchart.xapp import measure_corpus
from starchart.xapp.dynamic.features import dynamic_features
from starchart.xapp.model import SpeedupRangeModel
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


# ---------------------------------------------------------------------- review rounds (test_user_edge_cases)
# What a user meets off the happy path: odd option values, folders where files belong, files without
# ``main``, static-only options with ``--dynamic``, unwritable model paths, bad measurement settings and a
# Ctrl-C during the corpus measurement. Each test failed before its fix.


ROOT = Path(__file__).resolve().parents[2]


DYN_CASES = Path(__file__).parent / "dyn_cases"


runner = CliRunner()


#: A band with an inner loop whose trip count is unknown (so --trip applies to it).
INNER = """void f(int n, int m, float *x, const float *a) {
#pragma xapp parallel
    for (int i = 0; i < n; i++) {
        float s = 0;
        for (int j = 0; j < m; j++) s += a[i*m+j];
        x[i] = s;
    }
}
"""


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def _one_line(result) -> str:
    return " ".join(result.output.split())


# ---------------------------------------------------------------- trip counts must be finite
@pytest.mark.parametrize("value", ["nan", "inf"])
def test_trip_option_refuses_nan_and_inf(tmp_path, value):
    """--trip nan/inf printed NaN/Infinity features (not even valid JSON) instead of an error."""
    source = tmp_path / "inner.c"
    source.write_text(INNER)
    result = run("xapp", "features", source, "--trip", value, "--json")
    assert result.exit_code == 2, result.output
    assert f"--trip {value} is not a finite count" in _one_line(result)


def test_trip_counts_by_line_refuse_nan(tmp_path):
    source = tmp_path / "inner.c"
    source.write_text(INNER)
    with pytest.raises(InputError, match="is not a count"):
        static_features(source, trip_counts={5: float("nan")})
    # a finite count is used: the inner loop's body (9 instructions) runs 3 times instead of the default 10,
    # next to the outer band's 3 instructions per iteration
    assert static_features(source, trip_counts={5: 3})["ksize"] == 9 * 3 + 3
    assert static_features(source, trip_counts={5: 6})["ksize"] == 9 * 6 + 3
    assert static_features(source)["ksize"] == 9 * 10 + 3


@pytest.mark.parametrize("pragma", ["trip(nan)", "parallel trip(inf)"])
def test_pragma_trip_must_be_finite(tmp_path, pragma):
    source = tmp_path / "inner.c"
    source.write_text(INNER.replace("#pragma xapp parallel", f"#pragma xapp parallel\n#pragma xapp {pragma}"
                                    if pragma.startswith("trip") else f"#pragma xapp {pragma}"))
    with pytest.raises(InputError, match="not a finite number"):
        static_features(source)


# ---------------------------------------------------------------- what the source path is
def test_a_folder_is_not_reported_as_missing(tmp_path):
    """A folder given as the C file was called "no such C file" although the path exists."""
    result = run("xapp", "features", tmp_path)
    assert result.exit_code == 2
    assert "is a folder, not a C file" in _one_line(result) and "no such" not in result.output
    with pytest.raises(InputError, match="is a folder"):
        dynamic_features(tmp_path)


def test_compile_error_hint_names_only_what_the_user_can_do(tmp_path):
    """The hint said "add -I/-D if needed" when the command line had no such options; now that it has
    them (test_xapp_user_edges3.py), the hint names them, not the Python API's arguments."""
    source = tmp_path / "k.c"
    source.write_text('#include "nothere.h"\n' + INNER)
    result = run("xapp", "features", source)
    assert result.exit_code == 2
    text = _one_line(result)
    assert "'nothere.h' file not found" in text and "-I DIR" in text and "include_dirs=" not in text


def test_unused_static_function_hint(tmp_path):
    """clang drops an uncalled static function, so its marked loop "is not a loop"; the hint says why."""
    source = tmp_path / "k.c"
    source.write_text("static " + INNER)
    with pytest.raises(InputError, match="is not the first line of a loop") as caught:
        static_features(source)
    assert "static" in str(caught.value.hint)


def test_dynamic_without_main_is_the_users_to_fix(tmp_path):
    """A file without main() failed at the link and was called "a bug in starchart.xapp.dynamic"."""
    source = tmp_path / "k.c"
    source.write_text(INNER)
    with pytest.raises(InputError, match=r"no main\(\)") as caught:
        dynamic_features(source, [])
    assert "bug" not in str(caught.value)


# ---------------------------------------------------------------- options that did nothing
def test_static_only_options_with_dynamic_are_refused():
    """--trip, --prob, --coalescing and --details were silently ignored with --dynamic."""
    result = run("xapp", "features", "--dynamic", DYN_CASES / "stream.c", "--trip", "5", "--details",
                 "--", "256")
    assert result.exit_code == 2, result.output
    assert "--trip, --details only apply to static XAPP" in _one_line(result)


def _tiny_static_model(path: Path) -> Path:
    rows = pd.DataFrame([[float(i % 2)] + [float(i)] * (len(FEATURES) - 1) for i in range(8)],
                        columns=list(FEATURES), index=[f"k{i}" for i in range(8)])
    model = SpeedupRangeModel(cutoffs=(3,), n_trees=5)
    model.fit(rows, pd.Series([1.0, 10.0] * 4, index=rows.index))
    model.to_json(path)
    return path


def test_cpu_seconds_with_a_static_model_is_refused(tmp_path):
    """--cpu-seconds was accepted and ignored by a static prediction, which gives no time."""
    model = _tiny_static_model(tmp_path / "m.json")
    result = run("xapp", "predict", CASES / "matadd2d.c", "--model", model, "--cpu-seconds", "2")
    assert result.exit_code == 2, result.output
    assert "--cpu-seconds only applies to --dynamic" in _one_line(result)
    assert run("xapp", "predict", CASES / "matadd2d.c", "--model", model).exit_code == 0


# ---------------------------------------------------------------- the model file, before the work
@pytest.mark.parametrize("where, said", [("missing/m.json", "does not exist"), (".", "is a folder")])
def test_train_refuses_an_unwritable_model_path_before_the_work(tmp_path, where, said):
    """-o in a missing folder (or a folder) failed only after computing features and fitting."""
    # the real corpus has no GPU times: reaching the training would say so instead
    result = run("xapp", "train", ROOT / "corpus", "-o", tmp_path / where)
    assert result.exit_code == 2
    text = _one_line(result)
    assert "error: --output:" in text and said in text and "measure_corpus" not in text


# ---------------------------------------------------------------- corpus measurement settings
def _saxpy_corpus(tmp_path: Path, names: tuple[str, ...] = ("saxpy",)) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    shutil.copy(ROOT / "corpus" / "corpus.yaml", root / "corpus.yaml")
    shutil.copytree(ROOT / "corpus" / "harness", root / "harness")
    for name in names:
        folder = root / "kernels" / name
        shutil.copytree(ROOT / "corpus" / "kernels" / "saxpy", folder)
        meta = folder / "kernel.yaml"
        meta.write_text(meta.read_text().replace("name: saxpy", f"name: {name}"))
    return root


@pytest.mark.parametrize("options, said", [
    ({"timeout_s": 0}, "--timeout 0 is not a positive"),        # silently meant corpus.yaml's timeout
    ({"timeout_s": -1}, "--timeout -1 is not a positive"),      # recorded every kernel as timed out
    ({"timeout_s": float("nan")}, "--timeout nan"),             # a traceback from subprocess
    ({"repeats": 0}, "--repeats 0 is not a count"),             # silently meant corpus.yaml's repeats
    ({"repeats": -2}, "--repeats -2 is not a count"),           # recorded, while the harness ran 5
    ({"core": 10_000}, "--core 10000 is not a CPU"),            # taskset failed: ran unpinned, unsaid
])
def test_measurement_settings_are_checked_before_measuring(tmp_path, options, said):
    root = _saxpy_corpus(tmp_path)
    out = tmp_path / "m.json"
    with pytest.raises(InputError, match=said.replace("(", r"\(")):
        measure_corpus.measure(root, sides=["cpu"], small=True, out=out, progress=False, **options)
    assert not out.exists()


def test_ctrl_c_keeps_the_measured_kernels_and_says_how_to_resume(tmp_path, monkeypatch, capsys):
    """Ctrl-C printed a long traceback and nothing about the file or how to go on."""
    root = _saxpy_corpus(tmp_path, ("a_first", "b_second"))
    out = tmp_path / "m.json"

    def fake_side(corpus, kernel, side, *rest, **options):
        if kernel.name == "b_second":
            raise KeyboardInterrupt
        return {"status": "ok", "time_s": 1.0, "checksum": 1.0, "source_sha256": None, "measured": "now"}

    monkeypatch.setattr(measure_corpus, "_measure_side", fake_side)
    status = measure_corpus.main([str(root), "--side", "cpu", "--small", "--out", str(out), "--no-progress"])
    assert status == 130
    err = capsys.readouterr().err
    assert "interrupted: 1 kernel(s) are kept in" in err and "run the same command again to resume" in err
    assert list(json.loads(out.read_text())["kernels"]) == ["a_first"]
