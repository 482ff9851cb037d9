"""CEvaluator with a real gcc: defines, binary cache, repeats, answer checks, every failure kind, describe."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from fuzzing import broken_text

from starchart.errors import InputError
from starchart.measure.c import CHECKSUM_PATTERN, TIME_PATTERN, CEvaluator, define_flags, read_checksum
from starchart.measure.process import parse_values
from starchart.space import Space

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

# MODE selects a behaviour; the answer (checksum) is 500500 * SCALE unless MODE is 4.
KERNEL = r"""
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef MODE
#define MODE 0
#endif
#ifndef SCALE
#define SCALE 1
#endif
#if MODE == 6
#error "mode 6 does not compile"
#endif
int main(void) {
    const char *r = getenv("STARCHART_REPEATS");
    int repeats = r ? atoi(r) : 1;
    double sum = 0;
    for (int i = 1; i <= 1000; i++) sum += i * SCALE;
#if MODE == 1
    raise(SIGSEGV);
#elif MODE == 2
    fprintf(stderr, "invalid argument\n");
    return 3;
#elif MODE == 3
    volatile int spin = 1;
    while (spin) {}
#elif MODE == 4
    sum += 1;
#elif MODE == 5
    printf("time_ms=oops\n");
    return 0;
#elif MODE == 7
    *(volatile int *)0 = 1;
#endif
    for (int k = 0; k < repeats; k++) printf("time_ms=%d\n", k * 10 + SCALE);
    printf("checksum: %.17g\n", sum);
    return 0;
}
"""

# One value per launch: counts its launches in the file argv[1], prints count * $FACTOR.
ONCE = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "a+");
    fputs(".", f);
    long n = ftell(f);
    fclose(f);
    printf("Time = %ld\n", n * atol(getenv("FACTOR")));
    return 0;
}
"""


@pytest.fixture()
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.c"
    path.write_text(KERNEL)
    return path


def binaries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.iterdir() if not p.name.startswith(".")) if cache.exists() else []


def test_every_failure_is_recorded_and_evaluation_continues(kernel, tmp_path):
    ev = CEvaluator(kernel, reference=500500.0, timeout=1.0, repeats=2, warmup=1, cache_dir=tmp_path / "cache")
    space = Space({"MODE": [0, 1, 2, 3, 4, 5, 6, 7], "SCALE": [1]})
    ev.prepare(space)
    results = {c["MODE"]: ev.evaluate(c) for c in space.to_frame().to_dict("records")}
    ok = results[0]
    assert ok.ok and ok.values == {"time": [11.0, 21.0]} and ok.extra["checksum"] == 500500.0
    assert ok.compile_s > 0 and ok.run_s > 0 and ok.extra["launches"] == 1
    assert results[1].status == "runtime" and results[1].reason.startswith("killed by SIGSEGV")
    assert results[7].status == "runtime" and results[7].reason.startswith("killed by SIGSEGV")
    assert results[2].status == "runtime" and results[2].reason == "exit status 3; stderr: invalid argument"
    assert results[2].extra["stderr_tail"] == "invalid argument"
    assert results[3].status == "timeout" and results[3].reason == "timed out after 1 s"
    assert results[4].status == "wrong-answer"
    assert results[4].reason == "checksum 500501.0 differs from the reference 500500.0 (rtol 1e-06)"
    assert results[4].extra["checksum"] == 500501.0 and results[4].values == {}
    assert results[5].status == "runtime" and results[5].reason.startswith("unparsable output: ")
    assert "matched nothing in the output 'time_ms=oops'" in results[5].reason
    bad = results[6]
    assert bad.status == "compile" and "mode 6 does not compile" in bad.reason and bad.reason.startswith("gcc: ")
    assert "mode 6 does not compile" in bad.extra["stderr_tail"] and bad.compile_s > 0 and bad.run_s == 0
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.startswith(".")]  # no partial binaries left


def test_binary_cache_is_reused(kernel, tmp_path):
    cache = tmp_path / "cache"
    ev = CEvaluator(kernel, repeats=1, warmup=0, cache_dir=cache)
    first = ev.evaluate({"MODE": 0, "SCALE": 2})
    assert first.ok and first.compile_s > 0 and not first.extra["compile_cached"]
    assert len(binaries(cache)) == 1
    second = ev.evaluate({"SCALE": 2, "MODE": 0})  # same configuration, other key order
    assert second.ok and second.compile_s == 0 and second.extra["compile_cached"]
    again = CEvaluator(kernel, repeats=1, warmup=0, cache_dir=cache).evaluate({"MODE": 0, "SCALE": 2})
    assert again.compile_s == 0 and len(binaries(cache)) == 1  # another evaluator, same cache
    CEvaluator(kernel, flags=["-O1"], cache_dir=cache).evaluate({"MODE": 0, "SCALE": 2})
    ev.evaluate({"MODE": 0, "SCALE": 3})
    assert len(binaries(cache)) == 3  # flags and values are part of the key
    kernel.write_text(KERNEL.replace("k * 10", "k * 100"))
    edited = ev.evaluate({"MODE": 0, "SCALE": 2})
    assert edited.compile_s > 0 and len(binaries(cache)) == 4  # so is the source


def test_default_cache_dir_follows_xdg(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    ev = CEvaluator(kernel, repeats=1, warmup=0)
    assert ev.cache_path == tmp_path / "xdg" / "starchart" / "c"
    assert ev.evaluate({"MODE": 0}).ok and len(binaries(ev.cache_path)) == 1


def test_repeats_one_value_per_launch_with_args_and_env(tmp_path):
    source = tmp_path / "once.c"
    source.write_text(ONCE)
    counter = tmp_path / "launches"
    ev = CEvaluator(source, args=[str(counter)], env={"FACTOR": "{F}"}, repeats=3, warmup=2,
                    cache_dir=tmp_path / "cache")
    m = ev.evaluate({"F": 10})
    assert m.ok and m.values == {"time": [30.0, 40.0, 50.0]} and m.extra["launches"] == 5
    assert "checksum" not in m.extra  # no answer printed, none asked for
    assert len(counter.read_text()) == 5


def test_args_are_templates(tmp_path):
    source = tmp_path / "args.c"
    source.write_text('#include <stdio.h>\nint main(int c, char **v) { printf("time: %s\\n", v[1]); return 0; }\n')
    ev = CEvaluator(source, args=["{n}.5"], repeats=1, warmup=0, cache_dir=tmp_path / "cache")
    assert ev.evaluate({"n": 7}).values == {"time": [7.5]}


def test_reference_configuration_is_measured_once(kernel, tmp_path):
    ev = CEvaluator(kernel, reference={"MODE": 0, "SCALE": 1}, repeats=1, warmup=0, cache_dir=tmp_path / "cache")
    space = Space({"MODE": [0, 4], "SCALE": [1, 2]})
    ev.prepare(space)
    scaled = ev.evaluate({"MODE": 0, "SCALE": 2})
    assert scaled.status == "wrong-answer" and "1001000.0" in scaled.reason and "500500.0" in scaled.reason
    assert len(binaries(tmp_path / "cache")) == 2  # the reference was built for the comparison
    assert ev.evaluate({"MODE": 0, "SCALE": 1}).ok
    assert ev.evaluate({"MODE": 4, "SCALE": 1}).status == "wrong-answer"
    assert ev._reference_answer == (500500.0, "")
    with pytest.raises(InputError, match="reference configuration names unknown parameter.*BLOCK"):
        CEvaluator(kernel, reference={"BLOCK": 1}).prepare(space)


def test_reference_configuration_that_fails_is_reported(kernel, tmp_path):
    ev = CEvaluator(kernel, reference={"MODE": 6}, repeats=1, warmup=0, cache_dir=tmp_path / "cache")
    m = ev.evaluate({"MODE": 0})
    assert m.status == "runtime" and m.reason.startswith("cannot check the answer: the reference configuration")
    assert "does not compile" in m.reason
    # A study checks it before it starts: no configuration is charged for a broken reference.
    with pytest.raises(InputError, match=r"no reference answer: the reference configuration .* does not compile"):
        ev.prepare(Space({"MODE": [0, 6]}))


def test_missing_answer_with_a_reference(tmp_path):
    source = tmp_path / "noanswer.c"
    source.write_text('#include <stdio.h>\nint main(void) { puts("time=1"); return 0; }\n')
    ev = CEvaluator(source, reference=1.0, repeats=1, warmup=0, cache_dir=tmp_path / "cache")
    m = ev.evaluate({})
    assert m.status == "runtime" and m.reason.startswith("unparsable output: check_pattern")
    assert CEvaluator(source, reference=1.0, check_pattern=None, repeats=1, warmup=0,
                      cache_dir=tmp_path / "cache").evaluate({}).ok  # no answer read, nothing checked


def test_missing_compiler_and_source(kernel, tmp_path):
    ev = CEvaluator(kernel, compiler="no-such-cc", cache_dir=tmp_path / "cache")
    with pytest.raises(InputError, match="compiler 'no-such-cc' not found.*apt-get install gcc.*compiler="):
        ev.prepare(Space({"MODE": [0]}))
    m = ev.evaluate({"MODE": 0})  # without prepare: recorded, not raised
    assert m.status == "compile" and "'no-such-cc' not found" in m.reason
    assert ev.describe()["compiler_version"] is None
    with pytest.raises(InputError, match="missing.c' not found") as info:
        CEvaluator(tmp_path / "missing.c")
    assert str(tmp_path / "missing.c") in str(info.value)


def test_prepare_checks_templates_and_macro_names(kernel, tmp_path):
    ev = CEvaluator(kernel, args=["{n}"], env={"T": "{threads}"}, cache_dir=tmp_path / "cache")
    ev.prepare(Space({"n": [1], "threads": [2]}))
    with pytest.raises(InputError, match=r"unknown parameter \{threads\}"):
        ev.prepare(Space({"n": [1]}))
    with pytest.raises(InputError, match="'block-size' cannot be a C macro name"):
        CEvaluator(kernel).prepare(Space({"block-size": [1]}))


def test_constructor_errors(kernel):
    with pytest.raises(InputError, match="args must be a list"):
        CEvaluator(kernel, args="--n 4")
    with pytest.raises(InputError, match="not a C macro name"):
        CEvaluator(kernel, defines={"1BAD": 1})
    with pytest.raises(InputError, match="reference must be a number or a configuration"):
        CEvaluator(kernel, reference="500500")
    with pytest.raises(InputError, match="rtol"):
        CEvaluator(kernel, rtol=-1)
    with pytest.raises(InputError, match="check_pattern.*not a valid regular expression"):
        CEvaluator(kernel, check_pattern="checksum=(")
    assert CEvaluator(kernel, flags="-O2 -march=native").flags == ["-O2", "-march=native"]


def test_fixed_defines_and_config_values(tmp_path):
    source = tmp_path / "defs.c"
    source.write_text('#include <stdio.h>\nint main(void) { printf("time=%g\\n", (double)(A + B * FLAG)); '
                      'printf("checksum=%s\\n", NAME); return 0; }\n')
    ev = CEvaluator(source, defines={"A": 100, "B": 1, "NAME": '"fixed"'}, repeats=1, warmup=0,
                    cache_dir=tmp_path / "cache")
    m = ev.evaluate({"B": 5, "FLAG": True})  # the configuration's B wins over the fixed one
    assert m.values == {"time": [105.0]} and m.extra["checksum"] == "fixed"
    assert define_flags({"B": 5, "A": 100, "FLAG": False}) == ["-DA=100", "-DB=5", "-DFLAG=0"]


def test_describe_round_trip(kernel, tmp_path):
    ev = CEvaluator(kernel, args=["{n}"], flags=["-O2"], defines={"N": 8}, reference={"MODE": 0}, rtol=1e-3,
                    timeout=5, compile_timeout=30, cache_dir=tmp_path / "cache", env={"T": "{n}"}, repeats=3,
                    warmup=0, metric="ms")
    d = ev.describe()
    assert d == json.loads(json.dumps(d))
    assert d["kind"] == "c" and d["source"] == str(kernel.resolve())
    assert d["source_sha256"] == hashlib.sha256(kernel.read_bytes()).hexdigest()
    assert d["compiler"] == "gcc" and d["compiler_version"].startswith("gcc")
    assert (d["args"], d["flags"], d["defines"], d["reference"], d["rtol"], d["timeout"], d["compile_timeout"]) == \
        (["{n}"], ["-O2"], {"N": 8}, {"MODE": 0}, 1e-3, 5.0, 30.0)
    assert (d["cache_dir"], d["env"], d["repeats"], d["warmup"], d["metric"], d["metrics"]) == \
        (str(tmp_path / "cache"), {"T": "{n}"}, 3, 0, "ms", ["ms"])
    assert d["pattern"] == TIME_PATTERN and d["check_pattern"] == CHECKSUM_PATTERN
    assert read_checksum(["time_ms: 1\nChecksum = 42.5\n"], d["check_pattern"]) == 42.5  # the default finds it
    assert CEvaluator.from_description(d).describe() == d
    default = CEvaluator(kernel)
    assert default.describe()["cache_dir"] is None and default.describe()["reference"] is None
    assert CEvaluator.from_description(default.describe()).describe() == default.describe()


def test_time_pattern_and_checksums():
    text = "Time: 1.5\ntime_ms=2e-3\nruntime=99\nelapsed_time=98\nTIME = nan\ntime=.5ms\ntime=information\n"
    values = parse_values(text, pattern=TIME_PATTERN)["time"]
    assert values[:2] == [1.5, 0.002] and values[2] != values[2] and values[3] == 0.5 and len(values) == 4
    assert read_checksum(["checksum=1", "checksum: 2.5,"], r"checksum\s*[:=]\s*(\S+)") == 2.5


# A space-file value is compiled into the program: this one would run a shell command inside the kernel binary.
PAYLOAD = '({{extern int system(const char*); system("touch {marker}"); 8;}})'


def test_a_value_that_is_c_code_is_refused_and_never_compiled(kernel, tmp_path):
    marker = tmp_path / "pwned"
    payload = PAYLOAD.format(marker=marker)
    ev = CEvaluator(kernel, repeats=1, warmup=0, cache_dir=tmp_path / "cache")
    with pytest.raises(InputError, match=r"parameter 'SCALE' has the value '\(\{extern int system") as info:
        ev.prepare(Space({"MODE": [0], "SCALE": [1, payload]}))
    assert "raw_defines: true" in info.value.hint and info.value.where == "CEvaluator"
    m = ev.evaluate({"MODE": 0, "SCALE": payload})  # without prepare() too
    assert m.status == "runtime" and "not a C literal or identifier" in m.reason
    assert not marker.exists() and not binaries(tmp_path / "cache")  # nothing was compiled or run


def test_raw_defines_passes_values_through_as_c_code(kernel, tmp_path):
    ev = CEvaluator(kernel, repeats=1, warmup=0, reference=1001000.0, cache_dir=tmp_path / "cache", raw_defines=True)
    ev.prepare(Space({"MODE": [0], "SCALE": ["(1 + 1)"]}))
    m = ev.evaluate({"MODE": 0, "SCALE": "(1 + 1)"})
    assert m.ok and m.extra["checksum"] == 1001000.0
    d = ev.describe()
    assert d["raw_defines"] is True and CEvaluator.from_description(d).raw_defines
    assert "raw_defines" not in CEvaluator(kernel).describe()  # stores described before it stay the same evaluator
    with pytest.raises(InputError, match="raw_defines: must be true or false"):
        CEvaluator(kernel, raw_defines="yes")


def test_literal_and_identifier_values_still_compile(tmp_path):
    source = tmp_path / "values.c"
    source.write_text('#include <stdio.h>\nint main(void) { printf("time=%g\\n", (double)(A + B + C + D + E + F)); '
                      'printf("checksum=%s%c\\n", S, CH); return 0; }\n')
    space = Space({"A": [-3, 2], "B": [0.5, "1.5e1f"], "C": [True], "D": ["0x10", "-2"], "E": ["M_ONE"],
                   "F": ["1u"], "S": ['"ok"'], "CH": ["'!'"]})
    ev = CEvaluator(source, flags=["-O1", "-DM_ONE=1"], repeats=1, warmup=0, cache_dir=tmp_path / "cache")
    ev.prepare(space)
    m = ev.evaluate({"A": -3, "B": "1.5e1f", "C": True, "D": "0x10", "E": "M_ONE", "F": "1u", "S": '"ok"',
                     "CH": "'!'"})
    assert m.ok and m.values == {"time": [31.0]} and m.extra["checksum"] == "ok!"


# ---------------------------------------------------------------------- fuzz (issue 42): broken C sources
#: Pieces spliced into a C source: a missing header, garbage bytes, a redefined parameter, a second main,
#: an #error, an endless loop.
C_PIECES = (b"\n#include <nonexistent.h>\n", b"\x00\xff\xfe", b"\n#define SCALE 3\n", b"int main(void) { return 0; }",
            b"\n#error no\n", b"while (1) {}")

def test_a_broken_c_source_is_a_failed_configuration_or_one_clear_error(tmp_path):
    """C sources cut short, with bytes flipped, or with garbage spliced in: preparing and measuring each ends in
    a measurement (most fail to compile, and say why) or one StarchartError, never another exception."""
    import random

    from starchart.errors import StarchartError

    rng = random.Random("starchart fuzz c")
    space = Space({"MODE": [0], "SCALE": [1, 2]})
    escaped = []
    for number in range(24):
        source = tmp_path / f"k{number}.c"
        source.write_bytes(broken_text(KERNEL, rng, flips=b'{}();#"\\\n\x00\xff 9', pieces=C_PIECES))
        try:
            ev = CEvaluator(source, timeout=2.0, repeats=1, warmup=0, cache_dir=tmp_path / "cache")
            ev.prepare(space)
            result = ev.evaluate({"MODE": 0, "SCALE": 2})
            assert result.ok or result.reason, f"case {number}: a failure without a reason"
        except StarchartError:
            pass
        except Exception as exc:  # noqa: BLE001 - a traceback a user would see
            escaped.append(f"case {number}: {type(exc).__name__}: {exc}")
    assert not escaped, "\n".join(escaped)


def test_a_checksum_pattern_that_backtracks_without_end_is_said_when_the_reference_is_measured(monkeypatch, tmp_path):
    """The reference's answer is read when the evaluator is prepared: there the OutputParseError escaped as a
    plain ValueError."""
    import starchart.measure.process as process
    from starchart.errors import StarchartError

    monkeypatch.setattr(process, "PATTERN_SECONDS", 0.2)
    source = tmp_path / "k.c"
    source.write_text('#include <stdio.h>\nint main(void) { printf("time_ms: 1\\n%s!\\n", '
                      '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"); return 0; }\n')
    ev = CEvaluator(source, check_pattern=r"(a|aa)+$", reference={"S": 1}, cache_dir=tmp_path / "cache")
    with pytest.raises(StarchartError, match="backtracks without end"):
        ev.prepare(Space({"S": [1, 2]}))

