"""Odd files real users feed the readers and `info` / `tree` / `space`: damaged gzip, byte-order marks,
unfinished caches, CSVs under another name, decimal commas, duplicated cache entries, output folders."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import pytest
from shared_data import dataset_path
from typer.testing import CliRunner

from starchart import Space, load
from starchart._util.files import read_text
from starchart.cli import app
from starchart.errors import InputError
from starchart.io.kernel_tuner import UnfinishedCacheWarning

runner = CliRunner()


def run(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def cache_text(entries: dict[str, dict], **header: object) -> str:
    doc = {"device_name": "GPU", "kernel_name": "k", "problem_size": 100, "tune_params_keys": ["bx", "by"],
           "tune_params": {"bx": [16, 32], "by": [1, 2]}, "objective": "time", **header, "cache": entries}
    return json.dumps(doc, indent=1)


ENTRIES = {f"{bx},{by}": {"bx": bx, "by": by, "time": 1.0 + bx / by, "times": [1.0]}
           for bx in (16, 32) for by in (1, 2)}


# ---------------------------------------------------------------------- reading files
def test_a_damaged_gzip_file_is_an_input_error_not_a_traceback(tmp_path):
    path = tmp_path / "cache.json.gz"
    path.write_bytes(b"\x1f\x8b" + b"not really gzip data")
    with pytest.raises(InputError, match="broken gzip data") as info:
        read_text(path)
    assert "cache.json.gz" in str(info.value.where)


def test_a_gzip_file_cut_before_its_content_is_not_called_empty(tmp_path):
    path = tmp_path / "cache.json.gz"
    path.write_bytes(gzip.compress(cache_text(ENTRIES).encode())[:12])
    with pytest.raises(InputError, match="gzip file holds no data"):
        read_text(path)


def test_an_unreadable_file_gets_a_hint_about_access_not_encoding(tmp_path, monkeypatch):
    path = tmp_path / "k.csv"
    path.write_text("bx,time\n1,2\n")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(InputError, match="Permission denied") as info:
        read_text(path)
    assert "permissions" in info.value.hint and "UTF-8" not in info.value.hint


def test_a_cache_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "cache.json"
    path.write_text(cache_text(ENTRIES), encoding="utf-8-sig")  # Windows Notepad's "UTF-8 with BOM"
    ds = load(path)
    assert ds.meta["format"] == "kernel_tuner" and len(ds) == 4


def test_a_utf16_csv_loads(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx\tby\ttime\r\n16\t1\t1.5\r\n32\t1\t0.9\r\n", encoding="utf-16")  # Excel "Unicode text"
    assert load(path).y("time").tolist() == [1.5, 0.9]


def test_a_semicolon_csv_with_decimal_commas_reads_its_numbers(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx;by;time\n16;1;1,5\n32;1;0,9\n8;2;2\n")
    ds = load(path)
    assert ds.y("time").tolist() == [1.5, 0.9, 2.0] and ds.params == ["bx", "by"]


def test_decimal_commas_are_not_guessed_in_comma_separated_files(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text('bx,name,time\n16,"a,1",1.5\n32,"b,2",0.9\n')
    assert load(path).frame["name"].tolist() == ["a,1", "b,2"]


def test_duplicated_cache_entries_are_named_by_their_keys(tmp_path):
    path = tmp_path / "cache.json"
    entries = {"16,1": {"bx": 16, "by": 1, "time": 1.0}, "16,1.0": {"bx": 16, "by": 1, "time": 5.0}}
    path.write_text(cache_text(entries))
    with pytest.raises(InputError, match=r"cache entries '16,1' and '16,1.0' hold the same configuration"):
        load(path)


def test_the_unfinished_cache_warning_counts_one_entry_in_the_singular(tmp_path):
    path = tmp_path / "cache.json"
    text = cache_text({"16,1": ENTRIES["16,1"], "32,1": ENTRIES["32,1"]})
    path.write_text(text[: text.index('"32,1"') + 12])
    with pytest.warns(UnfinishedCacheWarning, match="recovered 1 complete entry$"):
        assert len(load(path)) == 1


# ---------------------------------------------------------------------- space reads what info and tree read
def cut_gzip(tmp_path: Path, text: str, keep: float = 0.6) -> Path:
    data = gzip.compress(text.encode())
    path = tmp_path / "cache.json.gz"
    path.write_bytes(data[: int(len(data) * keep)])
    return path


@pytest.mark.parametrize("name, text", [
    ("data.csv.gz", "a,b,time\n" + "".join(f"{i},{i % 7},{1 + i / 1000}\n" for i in range(20000))),
    ("space.json.gz", json.dumps({"parameters": {"a": [1, 2, 3, 4], "b": {"range": [1, 100, 1]}},
                                  "restrictions": ["a * b < 50", "a != 3"] * 200})),
    ("space.yaml.gz", "parameters:\n  a: [1, 2, 3, 4]\nrestrictions:\n" + "  - a * b < 50\n" * 500
     + "  - a != 3\n"),
], ids=["csv", "space-json", "space-yaml"])
def test_a_cut_gzip_file_other_than_a_cache_is_refused_not_read_in_part(tmp_path, name, text):
    """Any cut gzip file was read as far as it went: a data.csv.gz lost half its rows and a space file its
    last restrictions, with exit 0. Only a Kernel Tuner cache, cut off mid-run, is read in part (with a warning)."""
    path = tmp_path / name
    data = gzip.compress(text.encode())
    path.write_bytes(data[: int(len(data) * 0.6)])
    with pytest.raises(InputError, match="the gzip data is cut off before its end"):
        read_text(path)
    commands = [["space", path], ["info", path]] if name.endswith(".csv.gz") else [["space", path]]
    for command in commands:
        result = run(*command)
        assert result.exit_code == 2 and "the gzip data is cut off" in result.output, result.output
    with pytest.raises(InputError, match="cut off"):
        load(path) if name.endswith(".csv.gz") else Space.from_file(path)
    path.write_bytes(data)  # whole, it reads
    assert read_text(path) == text


def test_space_reads_a_truncated_gzip_cache_like_info_and_tree(tmp_path):
    entries = {f"{bx},{by}": {"bx": bx, "by": by, "time": float(bx * by), "times": [1.0] * 20}
               for bx in range(1, 60) for by in (1, 2)}
    path = cut_gzip(tmp_path, cache_text(entries, tune_params={"bx": list(range(1, 60)), "by": [1, 2]}))
    with pytest.warns(UnfinishedCacheWarning):
        assert run("info", path).exit_code == 0
    with pytest.warns(UnfinishedCacheWarning):
        result = run("space", path)
    assert result.exit_code == 0, result.output
    assert "Cartesian configurations: 118" in result.output and "invalid JSON" not in result.output


def test_space_on_a_truncated_shared_cache(tmp_path):
    path = tmp_path / "A100.json.gz"
    path.write_bytes(dataset_path("convolution/A100.json.gz").read_bytes()[:300_000])
    with pytest.warns(UnfinishedCacheWarning):
        result = run("space", path)
    assert result.exit_code == 0, result.output
    assert "Space with 10 parameters" in result.output


def test_space_still_names_the_line_of_damage_inside_a_cache(tmp_path):
    path = tmp_path / "cache.json"
    path.write_text(cache_text(ENTRIES).replace('"times"', '"times",,', 1))  # damage in the first entry
    result = run("space", path)
    assert result.exit_code == 2 and "invalid JSON" in result.output and ", line " in result.output


def test_space_reads_a_csv_named_json_by_its_content_as_tree_does(tmp_path):
    path = tmp_path / "results.json"
    path.write_text("bx,by,time\n16,1,1.5\n32,1,0.9\n32,2,0.7\n")
    assert run("tree", path).exit_code == 0
    result = run("space", path)
    assert result.exit_code == 0, result.output
    assert "only the 3 configurations of a dataset are allowed" in result.output


def test_space_refuses_a_missing_output_folder_before_describing(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx,time\n1,2\n2,3\n")
    result = run("space", path, "--sample", "1", "-o", tmp_path / "missing" / "s.csv")
    assert result.exit_code == 2
    assert "-o" in result.output and "does not exist" in result.output and "Space with" not in result.output


def test_space_refuses_output_without_a_sample(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx,time\n1,2\n2,3\n")
    result = run("space", path, "-o", tmp_path / "s.csv")
    assert result.exit_code == 2 and "--sample" in result.output
    assert not (tmp_path / "s.csv").exists()


def test_tree_refuses_a_missing_output_folder_by_name(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx,time\n1,2\n2,3\n")
    result = run("tree", path, "-o", tmp_path / "missing" / "t.txt")
    assert result.exit_code == 2 and "the folder" in result.output and "does not exist" in result.output


# ---------------------------------------------------------------------- info and tree say what they left out
def test_info_names_the_fields_that_are_not_metrics(tmp_path):
    path = tmp_path / "cache.json"
    entries = {k: {**v, "observer": "text", "histogram": [1, 2]} for k, v in ENTRIES.items()}
    path.write_text(cache_text(entries))
    result = run("info", path)
    assert result.exit_code == 0, result.output
    assert "not metrics" in result.output and "observer, histogram" in result.output


@pytest.mark.filterwarnings("ignore::starchart.io.load.NothingToModelWarning")  # said, and tested, apart
def test_info_on_a_cache_of_failures_says_there_is_nothing_to_summarise(tmp_path):
    path = tmp_path / "cache.json"
    path.write_text(cache_text({"16,1": {"bx": 16, "by": 1, "time": "CompilationFailedConfig"},
                                "32,1": {"bx": 32, "by": 1, "time": "RuntimeFailedConfig"}}))
    result = run("info", path)
    assert result.exit_code == 0, result.output
    assert "valid: 0" in result.output and "no valid configuration to summarise" in result.output


@pytest.mark.filterwarnings("ignore::starchart.io.load.NothingToModelWarning")  # said, and tested, apart
def test_info_keeps_a_metric_without_finite_values_and_counts_the_missing_ones(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx,time,power\n1,1.0,nan\n2,nan,inf\n3,2.0,nan\n")
    result = run("info", path)
    assert result.exit_code == 0, result.output
    assert any(line.split() == ["power", "│", "–", "│", "–", "│", "–"] for line in result.output.splitlines())
    assert "time is missing in 1 of the 3" in result.output
    assert "power is missing in 2 and infinite in 1 of the 3" in result.output


@pytest.mark.filterwarnings("ignore::starchart.io.load.NothingToModelWarning")  # said, and tested, apart
def test_tree_on_valid_configurations_without_values_does_not_say_none_succeeded(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("bx,time\n1,nan\n2,nan\n")
    result = run("tree", path)
    assert result.exit_code == 2
    assert "no configuration succeeded" not in result.output and "2 valid configuration" in result.output


# ---------------------------------------------------------------------- user text is not rich markup
def test_info_and_space_print_brackets_in_names_and_values_as_written(tmp_path):
    folder = tmp_path / "run[old]"
    folder.mkdir()
    path = folder / "k[v2].csv"
    path.write_text("[/b],[red]x,time\n[/],a,1\n[bold]b,b,2\n")
    result = run("info", path)
    assert result.exit_code == 0, result.output  # was a rich MarkupError traceback
    assert "run[old]/k[v2].csv" in result.output.replace("\n", "")  # (a long path wraps)
    assert "[/b]" in result.output and "[bold]b" in result.output
    result = run("space", path)
    assert result.exit_code == 0, result.output
    assert "[red]x" in result.output and "'[/]'" in result.output


def test_a_file_with_nothing_to_model_is_read_with_a_warning(tmp_path):
    """An all-failed cache and an all-NaN metric column were accepted by the API without a word."""
    from starchart.io.load import NothingToModelWarning

    failed = tmp_path / "failed.json"
    failed.write_text(cache_text({"16,1": {"bx": 16, "by": 1, "time": "CompilationFailedConfig"},
                                  "32,1": {"bx": 32, "by": 1, "time": "RuntimeFailedConfig"}}))
    with pytest.warns(NothingToModelWarning, match=r"all 2 configurations failed \(1 compile, 1 runtime\)"):
        assert len(load(failed)) == 2
    empty = tmp_path / "empty.csv"
    empty.write_text("b,time,power\n1,1.0,\n2,2.0,nan\n")
    with pytest.warns(NothingToModelWarning, match="'power' have no value in any of the 2 valid configurations"):
        assert load(empty).metrics == ["time", "power"]
    fine = tmp_path / "fine.csv"
    fine.write_text("b,time\n1,1.0\n2,2.0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(fine)


def test_a_gzip_file_of_several_members_is_read_whole(tmp_path):
    """`gzip -c b >> f.gz` appends a member, which zcat reads: only the first one was read, without a word."""
    path = tmp_path / "f.csv.gz"
    path.write_bytes(gzip.compress(b"bx,time\n" + b"".join(b"%d,1.0\n" % i for i in range(16)))
                     + gzip.compress(b"".join(b"%d,1.0\n" % i for i in range(16, 32))))
    assert len(load(path)) == 32


def test_a_gzipped_yaml_space_file_is_a_space_on_the_command_line(tmp_path):
    path = tmp_path / "space.yaml.gz"
    path.write_bytes(gzip.compress(b"parameters:\n  bx: [16, 32]\nrestrictions:\n  - bx > 16\n"))
    result = run("space", path)
    assert result.exit_code == 0, result.output
    assert "valid configurations:     1" in result.output


def test_a_negative_duration_in_a_file_is_read_with_a_warning(tmp_path):
    from starchart.io.load import NothingToModelWarning

    path = tmp_path / "neg.csv"
    path.write_text("bx,time\n1,-5\n2,3\n3,4\n")
    with pytest.warns(NothingToModelWarning, match="'time' is negative in 1 of the 3 valid configurations"):
        load(path)
