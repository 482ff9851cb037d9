"""MSP studies keep every measurement in a store as it arrives, and a rerun (after Ctrl-C, a crash, or with
other settings) measures nothing the store holds. Also the smaller msp defects of the user test: a size where
nothing runs, failures at the target in the notes, the size parameter in --default, huge times."""

from __future__ import annotations

import math
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from child_env import child_env
from typer.testing import CliRunner

from starchart.cli import app
from starchart.errors import InputError
from starchart.io.load import load
from starchart.measure import PythonEvaluator
from starchart.msp import throughput_curve, tune_at_msp
from starchart.space import Space
from starchart.study.store import Store


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """`starchart msp` keeps its measurements in ./msp.db by default: not in the checkout."""
    monkeypatch.chdir(tmp_path)


def lanes_model(config):
    """Simulated kernel time (ms): small inputs leave lanes idle, so the best B grows with n."""
    lanes = min(config["B"], config["n"])
    return 0.05 + config["n"] / lanes * 1e-3 + config["B"] * 2e-4


SPACE = Space({"B": [1, 4, 16, 64, 256]})
SIZES = [2 ** k for k in range(4, 17, 2)]   # 16 ... 65536


class Counting:
    """A model that counts its calls and can be made to stop (Ctrl-C) after a number of them."""

    def __init__(self, model=lanes_model, stop_after: int | None = None):
        self.model, self.stop_after, self.calls = model, stop_after, []

    def __call__(self, config):
        if self.stop_after is not None and len(self.calls) >= self.stop_after:
            raise KeyboardInterrupt
        self.calls.append(dict(config))
        return self.model(config)


def comparable(result):
    """What an MSP study concluded, without its (timing-dependent) costs and speedups."""
    summary = result.summary()
    for key in ("costs", "speedup"):
        summary.pop(key)
    return summary, result.transfer.drop(columns=["search_s", "speedup"]).to_dict("list")


# ---------------------------------------------------------------------- the Python API
def test_a_rerun_on_the_store_measures_nothing_and_concludes_the_same(tmp_path):
    path = tmp_path / "msp.db"
    first = Counting()
    result = tune_at_msp(PythonEvaluator(first), SPACE, SIZES, config={"B": 16}, transfer=True, store=path)
    with Store.open(path) as db:
        assert len(db) == len(first.calls) > 0              # every evaluation is stored, duplicates included
    again = Counting()
    rerun = tune_at_msp(PythonEvaluator(again), SPACE, SIZES, config={"B": 16}, transfer=True, store=path)
    assert again.calls == []                                # before: every measurement was made again
    assert comparable(rerun) == comparable(result)
    # a replayed measurement costs what it cost when it was made: the kernel-time speedup is unchanged
    assert rerun.kernel_speedup == pytest.approx(result.kernel_speedup)


def test_an_interrupted_study_resumes_where_it_stopped(tmp_path):
    path = tmp_path / "msp.db"
    whole = Counting()
    expected = tune_at_msp(PythonEvaluator(whole), SPACE, SIZES, config={"B": 16}, transfer=True)
    stopped = Counting(stop_after=20)
    with pytest.raises(KeyboardInterrupt):
        tune_at_msp(PythonEvaluator(stopped), SPACE, SIZES, config={"B": 16}, transfer=True, store=path)
    with Store.open(path) as db:
        assert len(db) == 20                                # nothing measured was lost
    rest = Counting()
    resumed = tune_at_msp(PythonEvaluator(rest), SPACE, SIZES, config={"B": 16}, transfer=True, store=path)
    assert len(rest.calls) == len(whole.calls) - 20         # only what the interrupted run had not measured
    assert rest.calls == whole.calls[20:]
    assert comparable(resumed) == comparable(expected)


def test_the_store_records_the_study_and_reads_like_any_other(tmp_path):
    path = tmp_path / "msp.db"
    tune_at_msp(PythonEvaluator(lanes_model), SPACE, SIZES, config={"B": 16}, search="uniform", budget=3,
                seed=4, store=path)
    with Store.open(path) as db:
        assert db.get("space")["parameters"] == {"B": [1, 4, 16, 64, 256], "n": SIZES}
        assert db.get("evaluator")["kind"] == "python"
        settings = db.get("msp")
        assert settings["search"] == "uniform" and settings["budget"] == 3 and settings["seed"] == 4
        assert settings["sizes"] == SIZES and settings["config"] == {"B": 16} and settings["threshold"] == 0.1
        assert len(db.get("sessions")) == 1 and db.get("sessions")[0]["msp"] is True
        session = db.get("sessions")[0]                     # as run() records one, with the working folder
        assert session["cwd"] == str(Path.cwd()) and session["workers"] == 1 and "environment" in session
    data = load(path)                                       # `starchart tree msp.db`, inputs --input n ...
    assert data.params == ["B", "n"] and set(data.frame["n"]) == set(SIZES)
    tune_at_msp(PythonEvaluator(lanes_model), SPACE, SIZES, config={"B": 16}, search="uniform", budget=3,
                seed=5, store=path)
    with Store.open(path) as db:                            # other settings: recorded, the earlier kept
        assert db.get("msp")["seed"] == 5 and db.get("msp")["earlier"][0]["seed"] == 4


def test_more_sizes_extend_the_stored_study(tmp_path):
    path = tmp_path / "msp.db"
    tune_at_msp(PythonEvaluator(Counting()), SPACE, SIZES[:-1], config={"B": 16}, store=path)
    more = Counting()
    tune_at_msp(PythonEvaluator(more), SPACE, SIZES, config={"B": 16}, store=path)
    assert {c["n"] for c in more.calls} == {SIZES[-1]}      # only the new size (its curve point and search)
    with Store.open(path) as db:
        assert db.get("space")["parameters"]["n"] == SIZES


def test_a_store_of_another_space_or_evaluator_is_refused_before_measuring(tmp_path):
    path = tmp_path / "msp.db"
    tune_at_msp(PythonEvaluator(lanes_model), SPACE, SIZES, config={"B": 16}, store=path)
    with Store.open(path) as db:
        recorded = {key: db.get(key) for key in ("space", "evaluator", "msp", "sessions")}
    calls = Counting()
    with pytest.raises(InputError, match="holds measurements of another evaluator") as info:
        tune_at_msp(PythonEvaluator(calls, metrics="time_ms"), SPACE, SIZES, config={"B": 16}, store=path)
    # the Python API's words (the command line's: test_cli_keeps_measurements_in_msp_db_by_default...)
    assert "store='new.db'" in info.value.hint and "starchart resume" not in info.value.hint
    with pytest.raises(InputError, match="holds a study of a different space") as info:
        tune_at_msp(PythonEvaluator(calls), Space({"B": [1, 4]}), SIZES, config={"B": 4}, store=path)
    assert "store='new.db'" in info.value.hint and "resume" not in info.value.hint
    # more sizes and another evaluator: before, the refused store's space already listed the new size
    with pytest.raises(InputError, match="holds measurements of another evaluator"):
        tune_at_msp(PythonEvaluator(calls, metrics="time_ms"), SPACE, [*SIZES, 2 ** 18], config={"B": 16},
                    store=path)
    assert calls.calls == []
    with Store.open(path) as db:                            # a refused store is left as it was
        assert {key: db.get(key) for key in recorded} == recorded
        assert db.get("space")["parameters"]["n"] == SIZES


class Sourced(PythonEvaluator):
    """A Python evaluator that describes itself with a source hash, as the C evaluator does."""

    def __init__(self, fn, sha):
        super().__init__(fn)
        self.sha = sha

    def describe(self):
        return {**super().describe(), "source_sha256": self.sha}


def test_a_store_of_another_source_keeps_its_own_hint():
    """Before: msp rewrote every refusal's hint that said "holds", the source's "restore the source" too."""
    db = Store.open(None)
    tune_at_msp(Sourced(lanes_model, "a"), SPACE, SIZES[:3], config={"B": 16}, store=db)
    with pytest.raises(InputError, match="holds measurements of another version of the C source") as info:
        tune_at_msp(Sourced(lanes_model, "b"), SPACE, SIZES[:3], config={"B": 16}, store=db)
    assert info.value.hint.startswith("restore the source to continue this study")


def test_replayed_measurements_cost_what_they_cost_when_made(tmp_path):
    """A stored measurement's wall time is its compile + run + overhead times: no extra field is stored."""
    path = tmp_path / "msp.db"

    def slow(config):
        time.sleep(0.005)
        return lanes_model(config)

    first = tune_at_msp(PythonEvaluator(Counting(slow)), SPACE, SIZES[:3], config={"B": 16}, store=path)
    with Store.open(path) as db:
        assert all("wall_s" not in m.extra for m in db.measurements())
    again = Counting()
    rerun = tune_at_msp(PythonEvaluator(again), SPACE, SIZES[:3], config={"B": 16}, store=path)
    assert again.calls == []
    for phase in ("curve", "msp", "target"):
        made, replayed = first.costs[phase], rerun.costs[phase]
        assert replayed.evaluations == made.evaluations
        assert replayed.wall_s >= made.evaluations * 0.005     # each replay costs what the sleep cost
        # the replayed measurements are the ones made: the same stored times, each counted in the wall time
        stored = (made.compile_s, made.run_s, made.overhead_s)
        assert (replayed.compile_s, replayed.run_s, replayed.overhead_s) == stored
        assert replayed.wall_s >= sum(stored) and made.wall_s >= sum(stored)


def test_a_throughput_curve_resumes_from_its_store(tmp_path):
    path = tmp_path / "curve.db"
    first = Counting()
    curve = throughput_curve(PythonEvaluator(first), [10, 20], config={"B": 4}, repeats=3, store=path)
    again = Counting()
    same = throughput_curve(PythonEvaluator(again), [10, 20], config={"B": 4}, repeats=3, store=path)
    assert len(first.calls) == 6 and again.calls == []      # each repeat replays its own stored measurement
    assert same["time"].tolist() == curve["time"].tolist() and same["evaluations"].tolist() == [3, 3]


# ---------------------------------------------------------------------- the command line
def _command_study(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A shell 'kernel' that logs each run and, while the marker exists, hangs at the size 1024."""
    log, marker = tmp_path / "runs.log", tmp_path / "hang"
    study = tmp_path / "study.yaml"
    script = (f"echo {{n}} {{B}} >> {log}; if [ -e {marker} ] && [ {{n}} -ge 1024 ]; then sleep 60; fi; "
              "echo time_ms=$(( {n} / {B} + {B} ))")
    study.write_text("parameters:\n  B: [1, 4, 16]\nevaluator:\n  kind: command\n"
                     f"  argv: [sh, -c, '{script}']\n  pattern: 'time_ms=(\\S+)'\n")
    return study, log, marker


def test_cli_ctrl_c_keeps_the_measurements_and_the_same_command_resumes(tmp_path):
    """Before: `starchart msp` kept nothing; Ctrl-C lost every measurement and a rerun made them all again."""
    study, log, marker = _command_study(tmp_path)
    marker.touch()
    args = ["msp", str(study), "--sizes", "16..4096*4", "--default", "B=1", "--store", str(tmp_path / "m.db")]
    child = subprocess.Popen([sys.executable, "-m", "starchart", *args], env=child_env(), cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600  # a guard against a hang, not a speed: a loaded machine may be slow
    while time.time() < deadline and not (log.exists() and "1024 1" in log.read_text()):
        time.sleep(0.05)  # until the curve's program hangs at the size 1024
    assert log.exists() and "1024 1" in log.read_text(), "the curve never reached the size 1024"
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=300)
    said = " ".join(stderr.split())
    assert child.returncode == 130, stderr
    assert "Every finished measurement is in" in said and "continue with: starchart msp" in said
    assert "--store" in said.split("continue with:")[1]
    with Store.open(tmp_path / "m.db") as db:
        assert sorted(m.config["n"] for m in db.measurements()) == [16, 64, 256]   # the curve so far
    marker.unlink()
    before = log.read_text().splitlines()
    result = subprocess.run([sys.executable, "-m", "starchart", *args], env=child_env(), cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    rerun = log.read_text().splitlines()[len(before):]
    assert rerun[:2] == ["1024 1", "4096 1"]        # the curve goes on where it stopped: nothing before it again
    with Store.open(tmp_path / "m.db") as db:
        stored = len(db)
    assert len(before) + len(rerun) == stored + 1   # every run is stored, but the one Ctrl-C stopped
    again = subprocess.run([sys.executable, "-m", "starchart", *args], env=child_env(), cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and log.read_text().splitlines()[len(before) + len(rerun):] == []
    assert again.stdout == result.stdout.replace(_speedup_line(result.stdout), _speedup_line(again.stdout))
    with Store.open(tmp_path / "m.db") as db:
        assert len(db) == stored


def _speedup_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("search speedup"))


def test_cli_keeps_measurements_in_msp_db_by_default_and_refuses_another_evaluator(tmp_path):
    study, log, _ = _command_study(tmp_path)
    runner = CliRunner()
    first = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--default", "B=1"])
    assert first.exit_code == 0, first.output
    assert (tmp_path / "msp.db").is_file() and "every measurement is kept in msp.db" in first.output
    runs = len(log.read_text().splitlines())
    second = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--default", "B=1", "--threshold", "0.5"])
    assert second.exit_code == 0 and len(log.read_text().splitlines()) == runs
    other = runner.invoke(app, ["msp", str(study), "--sizes", "16,256", "--default", "B=1", "--repeats", "3"])
    text = " ".join(other.output.split())
    assert other.exit_code == 2 and "msp.db: the store holds measurements of another evaluator" in text
    assert "--store new.db" in text and "starchart resume" not in text
    resumed = runner.invoke(app, ["resume", str(tmp_path / "msp.db")])  # was: "pass --samples N"
    text = " ".join(resumed.output.split())
    assert resumed.exit_code == 2 and "holds a minimum-saturation-point study (starchart msp)" in text
    assert "continue it by running its command again" in text


def test_resume_names_the_folder_and_the_store_of_an_msp_study(tmp_path, monkeypatch):
    """Before: the hint was the recorded command alone: run from another folder, its relative study path
    was wrong and, without --store in it, it measured into a fresh ./msp.db."""
    work = tmp_path / "work"
    work.mkdir()
    study, log, _ = _command_study(tmp_path)
    (work / "study.yaml").write_text(study.read_text())
    monkeypatch.chdir(work)
    typed = ["msp", "study.yaml", "--sizes", "16,256", "--default", "B=1"]
    monkeypatch.setattr(sys, "argv", ["starchart", *typed])      # what the session records
    assert CliRunner().invoke(app, typed).exit_code == 0
    runs = len(log.read_text().splitlines())
    monkeypatch.chdir(tmp_path)
    resumed = CliRunner().invoke(app, ["resume", "work/msp.db"])
    said = " ".join(resumed.output.split())
    again = f"cd {work} && starchart msp study.yaml --sizes 16,256 --default B=1 --store {work / 'msp.db'}"
    assert resumed.exit_code == 2 and again in said
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(again, shell=True, cwd=elsewhere, env=child_env(), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert len(log.read_text().splitlines()) == runs       # replayed: nothing measured again
    assert not (elsewhere / "msp.db").exists()


@pytest.mark.parametrize("bad", [["--sizes", "8..inf"], ["--default", "n=3"], ["--default", "B=7"],
                                 ["--work", "n +"]])
def test_a_command_refused_for_its_options_leaves_no_plots_folder(tmp_path, bad):
    """Before: --plots was created first, and stayed behind, empty, when the command was refused (and a bad
    --work was refused only once the store had recorded the study)."""
    study, log, _ = _command_study(tmp_path)
    args = {"--sizes": "16,256", "--default": "B=1", "--work": "n"}
    args[bad[0]] = bad[1]
    result = CliRunner().invoke(app, ["msp", str(study), *[x for kv in args.items() for x in kv],
                                      "--plots", str(tmp_path / "figures")])
    assert result.exit_code == 2, result.output
    assert not (tmp_path / "figures").exists() and not log.exists() and not (tmp_path / "msp.db").exists()


# ---------------------------------------------------------------------- the smaller defects
def failing_below(limit):
    def model(config):
        if config["n"] < limit:
            raise RuntimeError(f"n={config['n']} is too small")
        return lanes_model(config)
    return model


def test_transfer_goes_on_past_a_size_where_nothing_runs_and_names_it():
    """Before: the whole run stopped with "no configuration of the search ran successfully", naming no size."""
    result = tune_at_msp(PythonEvaluator(failing_below(64)), SPACE, SIZES, config={"B": 16}, transfer=True)
    row = result.transfer.iloc[0]
    assert row["size"] == 16 and row["best_B"] is None and row["quality"] == 0.0 and math.isnan(row["value"])
    assert result.transfer["best_B"].tolist()[1:] == [16, 64, 64, 256, 256, 256]   # ints, not floats
    assert any(n.startswith("at size 16 (n=16): no configuration of the search ran successfully")
               for n in result.notes)
    assert result.winner == {"B": 256}


def test_a_target_where_nothing_runs_names_the_size():
    def model(config):
        if config["n"] == 65536:
            raise RuntimeError("out of memory")
        return lanes_model(config)

    # B=1 saturates by size 1024, so the MSP is read without the target; the search there then finds nothing
    with pytest.raises(InputError, match=r"at size 65536 \(n=65536\): no configuration of the search ran "
                                         r"successfully.*out of memory"):
        tune_at_msp(PythonEvaluator(model), SPACE, SIZES, config={"B": 1})


def test_cli_transfer_table_shows_a_size_where_nothing_ran(tmp_path):
    study = tmp_path / "study.yaml"
    study.write_text("parameters:\n  B: [1, 4, 16]\nevaluator:\n  kind: command\n"
                     "  argv: [sh, -c, 'test {n} -ge 64 || exit 3; echo time_ms=$(( {n} / {B} + {B} ))']\n"
                     "  pattern: 'time_ms=(\\S+)'\n")
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16..4096*4", "--default", "B=1",
                                      "--transfer"])
    assert result.exit_code == 0, result.output
    assert "none: nothing ran" in result.output and "B=16" in result.output and "B=16.0" not in result.output
    assert "at size 16 (n=16): no configuration of the search ran successfully" in " ".join(result.output.split())


def test_notes_name_failures_at_the_target_even_when_the_winner_runs():
    """Before: a failure at the target was noted only when the MSP winner itself failed there."""
    def model(config):
        if config["B"] == 1 and config["n"] == 65536:
            raise RuntimeError("watchdog timeout")
        return lanes_model(config)

    result = tune_at_msp(PythonEvaluator(model), SPACE, SIZES, config={"B": 16})
    assert math.isfinite(result.winner_value_target) and result.quality == 1.0
    noted = [n for n in result.notes if "failed" in n]
    assert len(noted) == 1 and noted[0].startswith(
        "1 of the 5 configurations measured at the target size 65536 failed (e.g. {'B': 1}: runtime: ")
    assert "watchdog timeout" in noted[0] and f"note: {noted[0]}" in str(result)
    clean = tune_at_msp(PythonEvaluator(lanes_model), SPACE, SIZES, config={"B": 16})
    assert not any("failed" in n for n in clean.notes)


def test_a_winner_failing_at_the_target_without_a_baseline_is_noted():
    def model(config):
        if config["B"] == 256 and config["n"] == 65536:
            raise MemoryError("does not fit")
        return lanes_model(config)

    result = tune_at_msp(PythonEvaluator(model), SPACE, SIZES, config={"B": 16}, baseline=None)
    assert result.winner == {"B": 256} and math.isnan(result.winner_value_target)
    assert any("fails at the target size 65536" in n for n in result.notes)
    assert any("1 of the 1 configurations measured at the target size 65536 failed" in n for n in result.notes)


def test_the_size_parameter_in_the_default_configuration_is_refused_by_name(tmp_path):
    """Before: it was dropped silently and the error blamed the others: "{} lacks parameter(s) ['B']"."""
    with pytest.raises(InputError, match="config sets the input-size parameter 'n'"):
        tune_at_msp(PythonEvaluator(lanes_model), SPACE, SIZES, config={"n": 3})
    with pytest.raises(InputError, match="config sets the input-size parameter 'n'"):
        tune_at_msp(PythonEvaluator(lanes_model), SPACE, SIZES, config={"B": 4, "n": 3})
    study, _, _ = _command_study(tmp_path)
    result = CliRunner().invoke(app, ["msp", str(study), "--sizes", "16,256", "--default", "n=3"])
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "error: --default: --default sets the input-size parameter 'n'" in text
    assert "lacks" not in text and not (tmp_path / "msp.db").exists()   # refused before any store is made


@pytest.mark.parametrize("repeats", [1, 2])
def test_huge_times_give_a_kernel_time_speedup(repeats):
    """Before: 1e308 ms times added up to inf, and the kernel-time speedup printed as "nanx" (inf / inf)."""
    result = tune_at_msp(PythonEvaluator(lambda c: 1e308), Space({"B": [1, 4]}), [16, 256], config={"B": 1},
                         repeats=repeats)
    # target search 2 runs / (MSP search 2 runs + the curve's 2 sizes x repeats)
    assert math.isfinite(result.kernel_speedup) and result.kernel_speedup == pytest.approx(2 / (2 + 2 * repeats))
    assert result.curve["time"].tolist() == [1e308, 1e308]     # the median of two huge times is not inf
    assert "nan" not in str(result) and f"kernel-time speedup {2 / (2 + 2 * repeats):.3g}x" in str(result)


def test_an_undefined_speedup_says_so():
    from starchart.msp.tuning import _ratio, _times

    assert math.isnan(_ratio(math.inf, math.inf)) and _ratio(1.0, 0.0) == math.inf
    assert _times(_ratio(math.inf, math.inf)).startswith("undefined")
