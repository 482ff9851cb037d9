"""Tuning runs: sampling, storing, resuming after kill -9, workers, errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from child_env import child_env

from starchart.errors import InputError
from starchart.measure import Measurement, PythonEvaluator
from starchart.space import Space
from starchart.study.runner import run
from starchart.study.store import Store

SPACE = Space({"x": list(range(12)), "y": [1, 2, 4, 8]}, ["x * y <= 40"])


def objective(config):
    """A deterministic objective with a failure region (module level: resumable)."""
    if config["x"] == 11:
        raise RuntimeError("x = 11 crashes")
    return (config["x"] - 4) ** 2 + 3 * config["y"]


def _configs(ds):
    return {(int(r.x), int(r.y)) for r in ds.frame.itertuples()}


def test_run_measures_samples_distinct_configurations_and_records_failures(tmp_path):
    ds = run(SPACE, PythonEvaluator(objective), samples=30, store=tmp_path / "s.db", seed=4, progress=False)
    assert len(ds) == 30 and len(_configs(ds)) == 30
    assert all(SPACE.is_valid({"x": x, "y": y}) for x, y in _configs(ds))
    failed = ds.frame[ds.frame["status"] != "ok"]
    assert (failed["x"] == 11).all() and failed["reason"].str.contains("x = 11 crashes").all()
    ok = ds.frame[ds.frame["status"] == "ok"]
    assert (ok["time"] == (ok["x"] - 4) ** 2 + 3 * ok["y"]).all()


def test_same_seed_same_sample_and_rerun_measures_nothing(tmp_path):
    calls = []

    def counted(config):
        calls.append(config)
        return objective(config)

    first = run(SPACE, PythonEvaluator(counted), samples=20, store=tmp_path / "a.db", seed=7, progress=False)
    n_calls = len(calls)
    again = run(SPACE, PythonEvaluator(counted), samples=20, store=tmp_path / "a.db", seed=7, progress=False)
    assert len(calls) == n_calls == 20 and _configs(again) == _configs(first)
    other = run(SPACE, PythonEvaluator(objective), samples=20, store=tmp_path / "b.db", seed=7, progress=False)
    assert _configs(other) == _configs(first)
    grown = run(SPACE, PythonEvaluator(counted), samples=25, store=tmp_path / "a.db", progress=False)
    assert len(grown) == 25 and len(calls) == 25 and _configs(first) <= _configs(grown)


def test_resume_from_store_alone_rebuilds_space_plan_and_evaluator(tmp_path):
    store = tmp_path / "s.db"
    run(SPACE, PythonEvaluator(objective), samples=10, store=store, seed=1, progress=False)
    with Store.open(store) as db:  # pretend the run stopped after 6 results
        db._db.execute("DELETE FROM results WHERE id > 6")
    ds = run(store=store, progress=False)
    assert len(ds) == 10
    assert _configs(ds) == _configs(run(SPACE, PythonEvaluator(objective), samples=10, seed=1, progress=False))


def other_objective(config):
    return config["x"] + config["y"]


def test_a_store_refuses_measurements_of_another_evaluator(tmp_path):
    """A changed program, metric or source must not mix its results with the stored ones."""
    store = tmp_path / "s.db"
    run(SPACE, PythonEvaluator(objective), samples=5, store=store, seed=1, progress=False)
    run(SPACE, PythonEvaluator(objective), samples=8, store=store, seed=1, progress=False)  # the same: fine
    with pytest.raises(InputError, match=r"another evaluator: function was .*objective.*, now .*other_objective"):
        run(SPACE, PythonEvaluator(other_objective), samples=8, store=store, seed=1, progress=False)
    with pytest.raises(InputError, match=r"another evaluator: metrics was \['time'\], now \['cost'\]") as err:
        run(SPACE, PythonEvaluator(objective, metrics="cost"), samples=8, store=store, seed=1, progress=False)
    assert "starchart resume" in str(err.value)
    with Store.open(store, read_only=True) as db:
        assert len(db.to_dataset()) == 8


def test_a_study_of_another_kind_names_its_own_way_to_continue(tmp_path):
    """continue_with replaces the refusal's `starchart resume` hint (an MSP study is continued by its own
    command), but not the more specific one of another version of a source."""
    from starchart.study.runner import study_evaluator, study_space

    with Store.open(tmp_path / "s.db") as db:
        study_space(db, SPACE)
        study_evaluator(db, PythonEvaluator(objective), SPACE)
        with pytest.raises(InputError, match="another evaluator") as err:
            study_evaluator(db, PythonEvaluator(other_objective), continue_with="rerun its command")
        assert err.value.hint == "rerun its command"
        with pytest.raises(InputError, match="another evaluator") as err:
            study_evaluator(db, PythonEvaluator(other_objective))
        assert "starchart resume" in err.value.hint
        with pytest.raises(InputError, match="a different space") as err:
            study_space(db, Space({"z": [1, 2]}), continue_with="rerun its command")
        assert err.value.hint == "rerun its command"
        db.put("evaluator", {**db.get("evaluator"), "source_sha256": "old"})
        with pytest.raises(InputError, match="another version of the C source") as err:
            study_evaluator(db, PythonEvaluator(objective), continue_with="rerun its command")
        assert err.value.hint.startswith("restore the source")


def test_a_session_records_when_how_and_where(tmp_path):
    run(SPACE, PythonEvaluator(objective), samples=3, store=tmp_path / "s.db", seed=1, workers=2, progress=False)
    with Store.open(tmp_path / "s.db") as db:
        (session,) = db.get("sessions")
    assert session["workers"] == 2 and session["ray"] is None and session["argv"] == sys.argv
    assert session["evaluator"]["kind"] == "python" and "python" in session["environment"]


def test_explicit_configs_skip_stored_ones(tmp_path):
    store = tmp_path / "s.db"
    wanted = [{"x": 1, "y": 1}, {"x": 2, "y": 2}, {"x": 1, "y": 1}]
    assert len(run(SPACE, PythonEvaluator(objective), configs=wanted, store=store, progress=False)) == 2
    ds = run(SPACE, PythonEvaluator(objective), configs=[{"x": 2, "y": 2}, {"x": 3, "y": 1}], store=store,
             progress=False)
    assert len(ds) == 3 and ds.meta["duplicates"] == 0


def test_thread_workers_give_the_same_results_as_serial(tmp_path):
    serial = run(SPACE, PythonEvaluator(objective), samples=25, seed=2, progress=False)
    threaded = run(SPACE, PythonEvaluator(objective), samples=25, seed=2, workers=2, progress=False)
    key = ["x", "y"]
    assert serial.frame.sort_values(key)[["x", "y", "time", "status"]].reset_index(drop=True).equals(
        threaded.frame.sort_values(key)[["x", "y", "time", "status"]].reset_index(drop=True))


def test_progress_bar_runs(tmp_path, capsys):
    ds = run(SPACE, PythonEvaluator(objective), samples=5, seed=0, progress=True)
    assert len(ds) == 5
    # the bar shows done/total, the failures and the best value so far (README: "Measuring")
    bar = " ".join(capsys.readouterr().err.split())
    failed = int((ds.frame["status"] != "ok").sum())
    best = min((config["x"] - 4) ** 2 + 3 * config["y"] for config in ds.frame.to_dict("records")
               if config["x"] != 11)
    assert f"5/5 failed {failed} best {best:g} (time)" in bar, bar


def test_study_errors_are_clear(tmp_path):
    store = tmp_path / "s.db"
    run(SPACE, PythonEvaluator(objective), samples=3, store=store, seed=0, progress=False)
    with pytest.raises(InputError, match="different space"):
        run(Space({"z": [1, 2]}), PythonEvaluator(objective), samples=2, store=store, progress=False)
    with pytest.raises(InputError, match="samples"):
        run(SPACE, PythonEvaluator(objective), progress=False)
    with pytest.raises(InputError, match="none stored"):
        run(store=tmp_path / "empty.db", progress=False)
    with pytest.raises(InputError, match="cannot be imported again"):
        run(SPACE, PythonEvaluator(lambda c: 1.0), samples=2, store=tmp_path / "l.db", progress=False)
        run(store=tmp_path / "l.db", samples=3, progress=False)


KILLED_RUN = textwrap.dedent("""
    import sys, time
    from starchart.measure import PythonEvaluator
    from starchart.study.runner import run
    from starchart.space import Space

    def slow(config):
        time.sleep(0.02)
        return config["x"] * 10 + config["y"]

    space = Space({"x": list(range(30)), "y": list(range(10))})
    run(space, PythonEvaluator(slow), samples=int(sys.argv[2]), store=sys.argv[1], seed=5, progress=False)
""")


def test_killed_run_resumes_to_exactly_n_distinct_configurations(tmp_path):
    script, store, n = tmp_path / "job.py", tmp_path / "k.db", 60
    script.write_text(KILLED_RUN)
    child = subprocess.Popen([sys.executable, str(script), str(store), str(n)], env=child_env())
    deadline = time.time() + 60
    while time.time() < deadline:
        time.sleep(0.05)
        if store.exists():
            try:
                with Store.open(store, create=False) as db:
                    if len(db) >= 15:
                        break
            except InputError:
                pass
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    with Store.open(store) as db:
        before = db.results_frame()
    assert 15 <= len(before) < n, "the run was not killed part-way"
    # resume in another process, as a user would after the crash
    resumed = subprocess.run([sys.executable, str(script), str(store), str(n)], env=child_env(), timeout=120)
    assert resumed.returncode == 0
    with Store.open(store) as db:
        after = db.results_frame()
        ds = db.to_dataset()
    assert len(after) == n and len(ds) == n and after["config_key"].nunique() == n
    kept = after.set_index("id").loc[before["id"], ["config_key", "summary"]]
    assert kept["config_key"].tolist() == before["config_key"].tolist()
    assert kept["summary"].tolist() == before["summary"].tolist()
    assert (ds.frame["time"] == ds.frame["x"] * 10 + ds.frame["y"]).all()


def test_measurement_values_reach_the_store(tmp_path):
    def detailed(config):
        return Measurement(config, values={"time": [1.0, 3.0], "power": [50.0]}, extra={"note": "hi"})

    ds = run(SPACE, PythonEvaluator(detailed), samples=3, seed=0, progress=False)
    assert ds.metrics == ["time", "power"] or set(ds.metrics) == {"time", "power"}
    assert (ds.frame["time"] == 2.0).all()


FAILING_KERNEL = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#if MODE == 1
#error "mode 1 does not compile"
#endif
int main(void) {
    volatile int spin = 1;
    if (MODE == 2) raise(SIGSEGV);                 /* crash */
    if (MODE == 3) return 4;                       /* non-zero exit */
    if (MODE == 4) while (spin) {}                 /* endless loop: timeout */
    if (MODE == 5) { printf("time_ms: 1.0\nchecksum: 99\n"); return 0; }   /* wrong answer */
    if (MODE == 6) { printf("no timing here\n"); return 0; }               /* unparsable output */
    printf("time_ms: %d.5\nchecksum: 42\n", SIZE);
    return 0;
}
"""


def test_every_failure_kind_is_recorded_and_the_run_completes(tmp_path):
    from starchart.measure import CEvaluator

    source = tmp_path / "k.c"
    source.write_text(FAILING_KERNEL)
    space = Space({"MODE": [0, 1, 2, 3, 4, 5, 6], "SIZE": [1, 2]})
    evaluator = CEvaluator(source, repeats=1, warmup=0, timeout=1.0, reference=42.0, cache_dir=tmp_path / "c")
    ds = run(space, evaluator, samples=14, seed=0, store=tmp_path / "f.db", workers=2, progress=False)
    assert len(ds) == 14
    by_mode = ds.frame.groupby("MODE")
    status = by_mode["status"].agg(set).to_dict()
    assert status == {0: {"ok"}, 1: {"compile"}, 2: {"runtime"}, 3: {"runtime"}, 4: {"timeout"},
                      5: {"wrong-answer"}, 6: {"runtime"}}
    reasons = by_mode["reason"].first().to_dict()
    assert "mode 1 does not compile" in reasons[1]
    assert "SIGSEGV" in reasons[2] and "4" in reasons[3] and "1" in reasons[4]
    assert "99" in reasons[5] and "unparsable" in reasons[6]
    ok = ds.frame[ds.frame["MODE"] == 0]
    assert sorted(ok["time"]) == [1.5, 2.5]


def test_a_changed_c_source_is_refused_and_an_old_store_without_a_folder_is_accepted(tmp_path):
    from starchart.measure import CEvaluator, CommandEvaluator
    from starchart.study.runner import check_same_evaluator

    source = tmp_path / "k.c"
    source.write_text('#include <stdio.h>\nint main(void) { printf("time: 1\\n"); return 0; }\n')
    with Store.open(tmp_path / "s.db") as db:
        stored = CEvaluator(source).describe()
        check_same_evaluator(db, stored, CEvaluator(source))  # unchanged: fine
        source.write_text(source.read_text() + "/* edited */\n")
        with pytest.raises(InputError, match="another version of the C source"):
            check_same_evaluator(db, stored, CEvaluator(source))
        command = CommandEvaluator(["./bench", "{x}"])
        check_same_evaluator(db, {**command.describe(), "cwd": None}, command)  # recorded before cwd was
        with pytest.raises(InputError, match="cwd was '/elsewhere'"):
            check_same_evaluator(db, {**command.describe(), "cwd": "/elsewhere"}, command)


def test_an_interrupted_run_of_given_configs_resumes_to_the_same_set(tmp_path):
    store = tmp_path / "c.db"
    wanted = [{"x": x, "y": 1} for x in range(8)]
    run(SPACE, PythonEvaluator(objective), configs=wanted, store=store, progress=False)
    with Store.open(store) as db:  # pretend the run stopped after 3 results
        db._db.execute("DELETE FROM results WHERE id > 3")
    ds = run(store=store, progress=False)
    assert _configs(ds) == {(x, 1) for x in range(8)}


def test_another_seed_is_refused_on_a_store_drawn_with_one(tmp_path):
    store = tmp_path / "s.db"
    run(SPACE, PythonEvaluator(objective), samples=5, store=store, seed=1, progress=False)
    with pytest.raises(InputError, match="drawn with seed 1, not 2"):
        run(SPACE, PythonEvaluator(objective), samples=8, store=store, seed=2, progress=False)
    with Store.open(store, read_only=True) as db:
        assert db.get("plan") == {"samples": 5, "seed": 1} and len(db) == 5
    assert len(run(SPACE, PythonEvaluator(objective), samples=8, store=store, progress=False)) == 8
    with pytest.warns(UserWarning, match="already holds 8 configurations, more than the 3 asked for"):
        assert len(run(SPACE, PythonEvaluator(objective), samples=3, store=store, progress=False)) == 8


def test_asking_for_fewer_samples_than_stored_keeps_the_plan_of_an_interrupted_study(tmp_path):
    store = tmp_path / "s.db"
    run(SPACE, PythonEvaluator(objective), samples=12, store=store, seed=1, progress=False)
    with Store.open(store) as db:  # pretend the run of 12 stopped after 8 results
        db._db.execute("DELETE FROM results WHERE id > 8")
    with pytest.warns(UserWarning, match="more than the 3 asked for: nothing to measure; its plan of 12 stays"):
        assert len(run(store=store, samples=3, progress=False)) == 8
    with pytest.warns(UserWarning, match="as many as the 8 asked for: nothing to measure; its plan of 12 stays"):
        assert len(run(store=store, samples=8, progress=False)) == 8
    with Store.open(store, read_only=True) as db:
        assert db.get("plan") == {"samples": 12, "seed": 1}
    assert len(run(store=store, progress=False)) == 12  # a plain resume still finishes the study


def test_ctrl_c_stops_the_programs_of_every_worker(tmp_path):
    """With --workers, Ctrl-C reaches only the main thread: the workers' programs must be killed,
    not waited for (these would sleep 60 s; without a timeout, forever)."""
    space = tmp_path / "space.yaml"
    space.write_text("parameters:\n  x: [1, 2, 3, 4]\n")
    marker = f"starchart-ctrl-c-test-{os.getpid()}"
    command = f"sh -c 'sleep 60; echo time: {{x}} {marker}'"
    child = subprocess.Popen([sys.executable, "-m", "starchart", "run", str(space), "--command", command,
                              "--pattern", r"time: (\S+)", "--samples", "4", "--workers", "2",
                              "--store", str(tmp_path / "s.db")], env=child_env(), stderr=subprocess.PIPE, text=True)
    programs = ["pgrep", "-f", f"^sh -c sleep 60.*{marker}"]  # the workers' programs, not starchart itself
    deadline = time.time() + 60
    while time.time() < deadline and subprocess.run(programs, capture_output=True).returncode:
        time.sleep(0.1)  # until the workers' programs run
    time.sleep(0.5)
    started = time.time()
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=30)
    assert time.time() - started < 10, "the run waited for its workers' programs"
    assert child.returncode == 130 and "continue with: starchart resume" in " ".join(stderr.split())
    assert subprocess.run(programs, capture_output=True).returncode == 1  # none left running
