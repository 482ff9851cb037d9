"""CommandEvaluator: templates, metrics (wall time, regex, JSON lines), repeats, every failure kind, describe."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from starchart.errors import InputError
from starchart.measure.command import CommandEvaluator
from starchart.space import Space

# A tiny "benchmark": argv[1] says what to do, prints time=<argv[2]> when it runs fine.
BENCH = r"""
import json, os, signal, sys, time
mode, value = sys.argv[1], sys.argv[2]
if mode == "ok":
    print(f"time={value}")
elif mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "exit":
    print("bad input", file=sys.stderr); sys.exit(3)
elif mode == "hang":
    time.sleep(60)
elif mode == "garbage":
    print("time=fast")
elif mode == "json":
    print(json.dumps({"time": float(value), "gflops": 2 * float(value)}))
"""


@pytest.fixture()
def bench(tmp_path: Path) -> Path:
    path = tmp_path / "bench.py"
    path.write_text(BENCH)
    return path


def test_every_failure_is_recorded_and_evaluation_continues(bench):
    ev = CommandEvaluator([sys.executable, str(bench), "{mode}", "{value}"], timeout=1.0, pattern=r"time=(\S+)")
    space = Space({"mode": ["ok", "crash", "exit", "hang", "garbage"], "value": [2.5]})
    ev.prepare(space)
    start = time.perf_counter()
    results = {c["mode"]: ev.evaluate(c) for c in space.to_frame().to_dict("records")}
    assert time.perf_counter() - start < 6
    assert results["ok"].ok and results["ok"].values == {"time": [2.5]}
    assert results["crash"].status == "runtime" and results["crash"].reason.startswith("killed by SIGSEGV")
    assert results["exit"].status == "runtime" and results["exit"].reason == "exit status 3; stderr: bad input"
    assert results["exit"].extra["stderr_tail"] == "bad input"
    assert results["hang"].status == "timeout" and results["hang"].reason == "timed out after 1 s"
    assert results["garbage"].status == "runtime"
    assert results["garbage"].reason.startswith("unparsable output: ") and "'fast' is not a number" in \
        results["garbage"].reason
    for m in results.values():
        assert m.run_s > 0 and m.overhead_s >= 0 and m.compile_s == 0
        assert m.ok == (m.values != {})


def test_wall_time_is_the_default_metric():
    ev = CommandEvaluator(["sleep", "{t}"], repeats=2)
    m = ev.evaluate({"t": 0.05})
    assert m.ok and list(m.values) == ["time"] and len(m.values["time"]) == 2
    assert all(45 < v < 2000 for v in m.values["time"])  # milliseconds
    assert m.run_s == pytest.approx(sum(m.values["time"]) / 1e3, rel=0.05)


def test_json_lines_metrics(bench):
    ev = CommandEvaluator([sys.executable, str(bench), "json", "{value}"], json_lines=True, repeats=2)
    m = ev.evaluate({"value": 3})
    assert m.values == {"time": [3.0, 3.0], "gflops": [6.0, 6.0]} and m.extra["launches"] == 2
    throughput = CommandEvaluator([sys.executable, str(bench), "json", "{value}"], json_lines=True,
                                  metric="gflops", minimize=False)
    assert throughput.evaluate({"value": 3}).summary()["gflops"] == 6.0 and throughput.objective == "gflops"
    missing = CommandEvaluator([sys.executable, str(bench), "json", "1"], json_lines=True, metric="power")
    m = missing.evaluate({})
    assert m.status == "runtime" and m.reason.startswith("unparsable output: no JSON line gives a number for 'power'")


def test_repeats_and_warmup_one_value_per_launch(tmp_path):
    counter = tmp_path / "launches"
    ev = CommandEvaluator(["/bin/sh", "-c", f'echo . >> {counter}; echo "time=$(wc -l < {counter})"'],
                          pattern=r"time=\s*(\d+)", repeats=3, warmup=1)
    m = ev.evaluate({})
    assert m.values == {"time": [2.0, 3.0, 4.0]} and len(counter.read_text().splitlines()) == 4


def test_repeats_and_warmup_program_loops(tmp_path):
    counter = tmp_path / "launches"
    script = f'echo . >> {counter}; i=0; while [ $i -lt $STARCHART_REPEATS ]; do echo "time=$i"; i=$((i+1)); done'
    ev = CommandEvaluator(script, shell=True, pattern=r"time=(\d+)", repeats=3, warmup=2)
    m = ev.evaluate({})
    assert m.values == {"time": [2.0, 3.0, 4.0]} and len(counter.read_text().splitlines()) == 1


def test_env_substitution_and_cwd(tmp_path):
    ev = CommandEvaluator(["/bin/sh", "-c", 'echo "time=$SCALE"; pwd > where'], pattern=r"time=(\S+)",
                          env={"SCALE": "{a}.{b}", "FIXED": 1}, cwd=tmp_path)
    assert ev.parameters == {"a", "b"}
    m = ev.evaluate({"a": 1, "b": 25})
    assert m.values == {"time": [1.25]}
    assert Path((tmp_path / "where").read_text().strip()).resolve() == tmp_path.resolve()


def test_shell_command_with_template():
    ev = CommandEvaluator("echo time=$(( {x} * 2 ))", shell=True, pattern=r"time=(\d+)")
    assert ev.evaluate({"x": 21}).values == {"time": [42.0]}
    assert CommandEvaluator(["echo time={x}"], shell=True, pattern=r"time=(\d+)").evaluate({"x": 1}).ok


def test_prepare_rejects_unknown_parameters_and_missing_programs(bench):
    space = Space({"block": [32, 64], "unroll": [1, 2]})
    CommandEvaluator(["python3", "--block={block}"], env={"U": "{unroll}"}).prepare(space)
    with pytest.raises(InputError, match=r"\{blok\}.*known parameters: block, unroll"):
        CommandEvaluator(["python3", "--block={blok}"]).prepare(space)
    with pytest.raises(InputError, match=r"\{threads\}"):
        CommandEvaluator(["python3"], env={"OMP_NUM_THREADS": "{threads}"}).prepare(space)
    with pytest.raises(InputError, match="'no-such-bench' not found"):
        CommandEvaluator(["no-such-bench", "{block}"]).prepare(space)
    with pytest.raises(InputError, match="'./bench.py' not found"):
        CommandEvaluator(["./bench.py"]).prepare(space)  # relative to the current directory: not there
    with pytest.raises(InputError, match="working directory"):
        CommandEvaluator(["python3"], cwd=bench.parent / "missing").prepare(space)
    # a templated program cannot be checked before it is filled in
    CommandEvaluator(["{block}"]).prepare(space)


def test_constructor_errors():
    with pytest.raises(InputError, match=r"list of arguments.*\['./bench', '--n', '4'\].*shell=True"):
        CommandEvaluator("./bench --n 4")
    with pytest.raises(InputError, match="one string"):
        CommandEvaluator(["echo", "hi"], shell=True)
    with pytest.raises(InputError, match="not a valid regular expression"):
        CommandEvaluator(["true"], pattern="time=(")
    with pytest.raises(InputError, match="timeout"):
        CommandEvaluator(["true"], timeout=0)
    with pytest.raises(InputError, match="repeats"):
        CommandEvaluator(["true"], repeats=0)
    with pytest.raises(InputError, match="positional field"):
        CommandEvaluator(["printf", "{}"])
    with pytest.raises(InputError, match=r"\{print \$1\}.*write \{\{ and \}\} for literal braces"):
        CommandEvaluator(["awk", "{print $1}"]).prepare(Space({"n": [1]}))
    with pytest.raises(InputError, match="non-empty list"):
        CommandEvaluator([])
    with pytest.raises(InputError, match="environment variable name"):
        CommandEvaluator(["true"], env={"A=B": "1"})
    assert CommandEvaluator(["awk", "{{print $1}}"]).parameters == set()
    assert CommandEvaluator(["head", "-n", 5]).argv == ["head", "-n", "5"]


def test_missing_program_during_evaluate_is_recorded():
    m = CommandEvaluator(["{prog}"]).evaluate({"prog": "no-such-bench"})
    assert m.status == "runtime" and "'no-such-bench' not found" in m.reason


def test_describe_round_trip(tmp_path):
    ev = CommandEvaluator(["./bench", "{n}"], 2.5, r"time=(\S+)", json_lines=True, metric="ms", repeats=3,
                          warmup=1, env={"N": "{n}"}, cwd=tmp_path, minimize=False)
    d = ev.describe()
    assert d == json.loads(json.dumps(d))
    assert d["kind"] == "command" and d["argv"] == ["./bench", "{n}"] and d["timeout"] == 2.5
    assert (d["pattern"], d["json_lines"], d["metric"], d["repeats"], d["warmup"]) == \
        (r"time=(\S+)", True, "ms", 3, 1)
    assert (d["env"], d["cwd"], d["shell"], d["minimize"], d["metrics"]) == \
        ({"N": "{n}"}, str(tmp_path), False, False, ["ms"])
    again = CommandEvaluator.from_description(d)
    assert again.describe() == d and not again.minimize
    shell = CommandEvaluator("echo time={x}", shell=True)
    assert CommandEvaluator.from_description(shell.describe()).describe() == shell.describe()
    with pytest.raises(InputError, match="kind 'c'"):
        CommandEvaluator.from_description({**d, "kind": "c"})
    with pytest.raises(InputError, match="unknown option.*argvs"):
        CommandEvaluator.from_description({"kind": "command", "argvs": ["true"]})


# --- shell=True: values are data, not shell code ------------------------------------------------------------

def _args(folder: Path) -> list[str]:
    """The arguments ``printf '%s\\0' ...`` wrote to ``args`` (NUL-separated: a value may hold a newline)."""
    return (folder / "args").read_text().split("\0")[:-1]


@pytest.mark.parametrize("value", ["1; touch pwned", "$(touch pwned)", "`touch pwned`", "1 && touch pwned",
                                   "it's; touch pwned; '", 'a"; touch pwned; "', "two words", "*", "",
                                   "line\ntouch pwned", "\\; touch pwned"])
def test_shell_values_are_quoted_and_arrive_as_one_argument(tmp_path, value):
    """Before: 'echo {x}' with value '1; touch /tmp/x' ran the payload."""
    (tmp_path / "other").write_text("")  # an unquoted * would expand to it
    ev = CommandEvaluator("""printf '%s\\0' {x} '{x}' "{x}" --x={x} > args; echo time=1""", shell=True,
                          pattern=r"time=(\d+)", cwd=tmp_path)
    m = ev.evaluate({"x": value})
    assert m.ok, m.reason
    assert not (tmp_path / "pwned").exists()
    assert _args(tmp_path) == [value, value, value, f"--x={value}"]  # as a word, in '...' and in "..."


def test_shell_fields_that_cannot_be_quoted_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for template, where in (("echo `echo {x}`", "inside `...`"), ("echo ${{N:-{x}}}", r"inside \$\{...\}"),
                            ("echo \\{x}", "right after a backslash"), ("true # {x}", "in a comment"),
                            ("cat <<EOF\n{x}\nEOF", "after a here-document"), ("echo $'{x}'", r"inside \$'...'")):
        with pytest.raises(InputError, match=rf"\{{x\}} stands {where}") as info:
            CommandEvaluator(template, shell=True)
        assert "raw_shell_values: true" in info.value.hint
        assert CommandEvaluator(template, shell=True, raw_shell_values=True).parameters == {"x"}
    # arithmetic and command substitution are read as the shell reads them
    ev = CommandEvaluator('echo time=$(( 1 << {x} )) "$(echo {y})"', shell=True, pattern=r"time=(\d+)")
    assert ev.evaluate({"x": 3, "y": "a b"}).values == {"time": [8.0]}
    # bash evaluates arithmetic operands as expressions even when quoted ('a[$(cmd)]' runs cmd): plain tokens only
    for template in ("echo time=$(( {x} * 2 ))", "(( {x} > 1 )); echo time=1", "[[ {x} -gt 1 ]]; echo time=1",
                     "let n={x}; echo time=1"):
        m = CommandEvaluator(template, shell=True, pattern=r"time=(\d+)").evaluate({"x": "a[$(touch pwned)]"})
        assert m.status == "runtime" and "{x} stands in shell arithmetic" in m.reason, template
    assert not Path("pwned").exists()
    # format specs apply before quoting; an unknown name is the same error as before
    assert CommandEvaluator("echo time={x:03d}", shell=True, pattern=r"time=(\d+)").evaluate({"x": 7}).ok
    m = CommandEvaluator("echo {x} {y}", shell=True).evaluate({"x": 1})
    assert m.status == "runtime" and "names {y}, which is not a parameter" in m.reason


def test_raw_shell_values_substitutes_values_as_shell_code(tmp_path):
    ev = CommandEvaluator("echo time={x}", shell=True, raw_shell_values=True, cwd=tmp_path, pattern=r"time=(\d+)")
    assert ev.evaluate({"x": "1; touch opted-in"}).values == {"time": [1.0]}
    assert (tmp_path / "opted-in").exists()
    d = ev.describe()
    assert d["raw_shell_values"] is True and CommandEvaluator.from_description(d).raw_shell_values
    assert "raw_shell_values" not in CommandEvaluator("echo {x}", shell=True).describe()  # stores stay the same
    with pytest.raises(InputError, match="raw_shell_values applies to a shell command only"):
        CommandEvaluator(["echo", "{x}"], raw_shell_values=True)
