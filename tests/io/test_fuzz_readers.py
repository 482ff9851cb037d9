"""Fuzzing the readers: malformed files of every format end in a result or one clear error.

Each case starts from a small valid file (a Kernel Tuner cache, T4 results, KTT output, CSV, a space file in
JSON and in YAML) and breaks it: values of the wrong type put anywhere in its JSON (null, lists, objects, NaN,
huge numbers), keys removed or added, bytes flipped, text cut short or spliced in. The cases are drawn from a
fixed seed, so a failure names a case that reproduces. A case passes when reading it returns a dataset (or a
space), or raises a :class:`~starchart.errors.StarchartError`; any other exception is a traceback a user
would see. A case that ran past two minutes would be a hang (reading a small file takes milliseconds).
"""

from __future__ import annotations

import copy
import gzip
import json
import random
import signal
import sys
import zlib
from pathlib import Path

import pandas as pd
import pytest
from fuzzing import broken_text
from typer.testing import CliRunner

from starchart import Dataset, Space, load
from starchart.cli import app
from starchart.errors import StarchartError

#: Cases per reader (six readers: 480 in all), and how many of them go through `starchart info` too.
CASES = 80
CLI_CASES = 8
#: Values that do not belong: of every JSON type, and the numbers that break arithmetic (10**300: no float holds
#: the product of two, as KTT's launch sizes are multiplied).
WRONG = [None, True, 0, -1, 1e308, float("nan"), float("inf"), "", "x", "16", [], [1, 2], {}, {"a": 1}, [[1]],
         2**70, 10**300]
KTT = {"Metadata": {"TimeUnit": "Microseconds", "KttVersion": "2.1", "GlobalSizeType": "CUDA"},
       "Results": [{"Configuration": [{"Name": "B", "Value": b}], "Status": "Ok", "KernelName": "k",
                    "TotalDuration": 3000.0,
                    "ComputationResults": [{"KernelFunction": "k", "Duration": 1000.0, "Overhead": 5.0,
                                            "LocalSize": {"X": 32, "Y": 4, "Z": 1}, "GlobalSize": {"X": 100},
                                            "CompilationData": {"RegistersCount": 32},
                                            "ProfilingData": {"Counters": [{"Name": "c", "Value": 7.0}]}}]}
                   for b in (1, 2, 4)]}
SPACE_YAML = "parameters:\n  bx: [16, 32, 64]\n  by: {range: [1, 8, 1]}\nrestrictions:\n  - bx * by <= 256\n"
SPACE_JSON = {"parameters": {"bx": [16, 32], "by": {"pow2": [1, 8]}}, "restrictions": ["bx > by"]}


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    """The valid file of each reader, as text."""
    folder = tmp_path_factory.mktemp("valid")
    frame = pd.DataFrame({"bx": [16, 32, 64, 16], "by": [1, 2, 4, 8], "time": [1.5, 0.9, 2.0, 1.1]})
    data = Dataset.from_frame(frame, metrics=["time"], meta={"kernel_name": "k", "device_name": "d",
                                                             "problem_size": [64]})
    data.to_kernel_tuner(folder / "kt.json")
    data.to_t4(folder / "r.t4.json")
    data.to_csv(folder / "d.csv")
    return {"kernel_tuner": (folder / "kt.json").read_text(), "t4": (folder / "r.t4.json").read_text(),
            "ktt": json.dumps(KTT), "csv": (folder / "d.csv").read_text(), "space_json": json.dumps(SPACE_JSON),
            "space_yaml": SPACE_YAML}


def broken_json(doc: object, rng: random.Random) -> object:
    """``doc`` with one to three things broken: a value replaced by a wrong one, a key removed or added."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        places: list[list[object]] = []

        def walk(node: object, path: list[object]) -> None:
            places.append(path)
            if isinstance(node, dict):
                for key, value in node.items():
                    walk(value, [*path, key])
            elif isinstance(node, list):
                for index, value in enumerate(node[:5]):
                    walk(value, [*path, index])

        walk(doc, [])
        if len(places) == 1:
            return copy.deepcopy(rng.choice(WRONG))
        path = rng.choice(places[1:])
        parent: object = doc
        for key in path[:-1]:
            parent = parent[key]  # type: ignore[index]
        action = rng.random()
        if action < 0.6:
            parent[path[-1]] = copy.deepcopy(rng.choice(WRONG))  # type: ignore[index]
        elif isinstance(parent, dict) and action < 0.8:
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[rng.choice(["zz", "1", ""])] = copy.deepcopy(rng.choice(WRONG))
    return doc


#: reader → (file name, how a case is made, how it is read)
READERS = {
    "kernel_tuner": ("cache.json", "json", lambda p: load(p)),
    "t4": ("results.t4.json", "json", lambda p: load(p)),
    "ktt": ("output.json", "json", lambda p: load(p, format="ktt")),
    "csv": ("data.csv", "text", lambda p: load(p)),
    "space_json": ("space.json", "json", lambda p: Space.from_file(p)),
    "space_yaml": ("space.yaml", "text", lambda p: Space.from_file(p)),
}


def cases(reader: str, valid: dict[str, str], folder: Path) -> list[Path]:
    name, how, _ = READERS[reader]
    rng = random.Random(f"starchart fuzz {reader}")
    made = []
    for number in range(CASES):
        path = folder / f"{reader}_{number:03d}" / name
        path.parent.mkdir(parents=True)
        if how == "json" and number % 4:  # three in four break the structure, one in four the text
            path.write_text(json.dumps(broken_json(json.loads(valid[reader]), rng), allow_nan=True))
        else:
            path.write_bytes(broken_text(valid[reader], rng))
        made.append(path)
    return made


class _Hang(Exception):
    pass


def _read_within(read, path: Path, seconds: int = 120) -> object:
    """``read(path)``, stopped by an alarm after ``seconds`` (Unix): a hang, not a slow read."""
    def hang(*_: object) -> None:
        raise _Hang(f"{path} was still being read after {seconds} s")

    if sys.platform == "win32":
        return read(path)
    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        return read(path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.filterwarnings("ignore::UserWarning")  # an unfinished cache recovered, a space's own warnings
@pytest.mark.parametrize("reader", list(READERS))
def test_a_broken_file_gives_a_result_or_one_clear_error(reader, valid, tmp_path):
    _, _, read = READERS[reader]
    raw = []
    for path in cases(reader, valid, tmp_path):
        try:
            result = _read_within(read, path)
        except StarchartError as exc:
            assert str(path) in str(exc) or exc.where, f"{path}: the error names no file or key: {exc}"
            continue
        except _Hang:
            raise
        except Exception as exc:  # a traceback a user would see
            raw.append(f"{path.parent.name}: {type(exc).__name__}: {exc}")
            continue
        assert isinstance(result, (Dataset, Space)), f"{path}: read as {type(result).__name__}"
    assert not raw, "\n".join(raw)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("reader", ["kernel_tuner", "t4", "ktt", "csv"])
def test_the_command_line_prints_one_line_for_a_broken_file(reader, valid, tmp_path):
    runner = CliRunner()
    for path in cases(reader, valid, tmp_path)[:CLI_CASES]:
        result = runner.invoke(app, ["info", str(path)])  # the format is told from the content
        assert result.exit_code in (0, 2), (path, result.output, result.exception)
        assert "Traceback" not in result.output
        if result.exit_code == 2:
            assert result.output.startswith("error: "), (path, result.output)


# ----------------------------------------------------------------------------- inputs that never end or never fit
@pytest.mark.skipif(sys.platform == "win32", reason="named pipes and /dev/zero are Unix's")
def test_a_pipe_or_a_device_is_refused_not_waited_on(tmp_path):
    """Before: `starchart info pipe.csv` waited forever for a writer, and /dev/zero filled the memory."""
    import os

    pipe = tmp_path / "pipe.csv"
    os.mkfifo(pipe)
    for path in (pipe, Path("/dev/zero")):
        with pytest.raises(StarchartError, match="is not a regular file"):
            _read_within(load, path, seconds=30)
        result = CliRunner().invoke(app, ["info", str(path)])
        assert result.exit_code == 2 and "is not a regular file" in result.output


def test_a_file_or_a_gzip_bomb_beyond_the_limit_is_refused(tmp_path, monkeypatch):
    """The limit ($STARCHART_MAX_INPUT_BYTES, 2 GiB by default) holds for what a gzip file unpacks to, checked
    while unpacking: before, a 1 MB file that unpacked to 1 GiB peaked at 5.4 GB of memory."""
    csv = tmp_path / "big.csv"
    csv.write_text("x,time\n" + "".join(f"{i},2.0\n" for i in range(20_000)))  # 200 KB
    bomb = tmp_path / "bomb.csv.gz"
    bomb.write_bytes(gzip.compress(b"x,time\n" + b"1,2.0\n" * 200_000))  # 1.2 MB unpacked, a few KB packed
    monkeypatch.setenv("STARCHART_MAX_INPUT_BYTES", "100000")
    with pytest.raises(StarchartError, match="is 188,897 bytes, more than the 100,000 starchart reads"):
        load(csv)
    with pytest.raises(StarchartError, match="unpacks to more than the 100,000 bytes") as caught:
        load(bomb)
    assert "STARCHART_MAX_INPUT_BYTES" in caught.value.hint
    monkeypatch.setenv("STARCHART_MAX_INPUT_BYTES", "2000000")
    with pytest.raises(StarchartError, match="appears more than once"):  # unpacked whole: read, and its rows judged
        load(bomb)


def _zeros_gz(path: Path, size: int, *, members: tuple[bytes, ...] = ()) -> Path:
    """A gzip bomb: ``size`` zero bytes packed (about a thousand to one), then ``members`` packed one by one."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    with open(path, "wb") as handle:
        for _ in range(size // 2**20):
            handle.write(packer.compress(bytes(2**20)))
        handle.write(packer.flush())
        for member in members:
            handle.write(gzip.compress(member))
    return path


@pytest.mark.parametrize("members", [(), (b"x,time\n",)], ids=["trailer-says-its-size", "trailer-of-a-small-member"])
def test_a_gzip_bomb_is_refused_in_a_fraction_of_the_memory_of_the_limit(tmp_path, monkeypatch, members):
    """Before: unpacking went on to the limit, and copied what it had at each step: a bomb peaked at twice the
    limit (4.3 GB for the 2 GiB one) before it was refused. Now a gzip trailer saying more than the limit is
    checked by unpacking without keeping, and so is a file once it has unpacked 64 MiB (a bomb of two members
    ends in the trailer of its small last one)."""
    import tracemalloc

    from starchart._util.files import read_text

    limit = 300_000_000
    bomb = _zeros_gz(tmp_path / "bomb.csv.gz", 320 * 2**20, members=members)
    monkeypatch.setenv("STARCHART_MAX_INPUT_BYTES", str(limit))
    tracemalloc.start()
    try:
        with pytest.raises(StarchartError, match="unpacks to more than the 300,000,000 bytes") as caught:
            read_text(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit / 2
    assert "at most 300,000,000 bytes" in caught.value.hint and "STARCHART_MAX_INPUT_BYTES" in caught.value.hint


def test_a_cut_gzip_whose_last_bytes_read_as_a_huge_size_still_gives_its_entries(tmp_path, monkeypatch):
    """A gzip file cut off mid-write has no trailer: its last four bytes are packed data. Taken for the size,
    they would refuse an unfinished cache that :func:`~starchart.io.kernel_tuner.read` recovers."""
    from starchart.io.kernel_tuner import UnfinishedCacheWarning

    lines = [f'"{i}": {{"x": {i}, "time": {1 + i % 7}.5}},' for i in range(20_000)]
    text = '{"tune_params_keys": ["x"], "tune_params": {"x": []}, "cache": {\n' + "\n".join(lines)
    packed = gzip.compress(text.encode())
    # a cut whose last four bytes say more than the whole text unpacks to
    cut = next(n for n in range(len(packed) // 2, len(packed)) if int.from_bytes(packed[n - 4:n], "little") > 10**8)
    path = tmp_path / "crashed.json.gz"
    path.write_bytes(packed[:cut])
    monkeypatch.setenv("STARCHART_MAX_INPUT_BYTES", str(10**8))
    with pytest.warns(UnfinishedCacheWarning):
        ds = load(path)
    assert len(ds) > 5000


def test_a_key_given_twice_in_a_space_file_is_refused(tmp_path):
    """Before: the last one won without a word (here the restrictions would have been lost)."""
    path = tmp_path / "space.json"
    path.write_text('{"parameters": {"x": [1, 2]}, "restrictions": ["x > 1"], "restrictions": []}')
    with pytest.raises(StarchartError, match="the key 'restrictions' appears twice"):
        Space.from_file(path)


def test_a_parameter_named_like_a_python_constant_is_not_read_as_the_constant():
    """Before: in `True == 1`, a parameter named True read as Python's True, so nothing was restricted."""
    with pytest.raises(StarchartError, match="the parameter 'True' reads as Python's True"):
        Space({"True": [0, 1], "x": [1, 2]}, "True == 1")
    assert Space({"True": [0, 1], "x": [1, 2]}, "x > 1").size() == 2  # a restriction not naming it is fine


DEEP = 100_000  # levels: Python's parsers stop near 1,000


@pytest.mark.parametrize("reader", [reader for reader in READERS if reader != "csv"])  # CSV does not nest
def test_a_file_nested_thousands_deep_is_one_clear_error(reader, valid, tmp_path):
    """Arrays inside arrays 100,000 deep put in a file's first value: ``RecursionError`` came out of
    Python's JSON and YAML parsers as a traceback."""
    name, how, read = READERS[reader]
    path = tmp_path / name
    deep = "[" * DEEP + "]" * DEEP
    if reader == "space_yaml":
        path.write_text("parameters:\n  bx: " + "[" * 5000 + "]" * 5000 + "\n")
    else:  # the first number of the file becomes the deep value
        text = valid[reader]
        at = next(i for i, c in enumerate(text) if c.isdigit() and text[i - 1] in " :[")
        path.write_text(text[:at] + deep + text[at:].lstrip("0123456789."))
    with pytest.raises(StarchartError, match="nested too deeply to read") as caught:
        _read_within(read, path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("restriction", ["not " * 5000 + "bx > 1", "-" * 20000 + "bx > 1",
                                         "bx" + " + bx" * 20000 + " > 1", "bx" + " + bx" * 300 + " > 1"])
def test_a_restriction_of_thousands_of_nested_operators_is_one_clear_error(restriction):
    """``not not …`` and ``- - …`` made Python's parser raise ``RecursionError`` or ``MemoryError``; a chain a
    few hundred long parsed, then overflowed the stack when compiled or evaluated."""
    from starchart.constraints import MAX_NESTING
    from starchart.errors import SpaceError

    with pytest.raises(SpaceError, match=f"nested more than {MAX_NESTING} levels deep") as caught:
        Space({"bx": [1, 2, 4]}, [restriction])
    assert len(str(caught.value)) < 500  # the restriction is shown shortened
    # just under the limit, it compiles and is evaluated
    assert Space({"bx": [1, 2, 4]}, ["bx" + " + bx" * 190 + " > 200"]).size() == 2


def test_a_deep_launch_expression_or_carving_predicate_is_one_clear_error():
    from starchart.carve.metrics import resolve
    from starchart.measure.launch import check_expression

    deep = "-" * 20000 + "n"
    for call in (lambda: check_expression(deep, ["n"]), lambda: resolve(pd.DataFrame({"n": [1]}), deep, "predicate")):
        with pytest.raises(StarchartError, match="nested too deeply"):
            call()
