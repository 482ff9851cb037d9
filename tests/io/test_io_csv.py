"""CSV files: the Starchart kmeans sample, metric selection, bad values, round trips."""

from __future__ import annotations

import pandas as pd
import pytest
from shared_data import dataset_path

from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.load import load


def test_kmeans_sample():
    ds = load(dataset_path("starchart_kmeans/kmeans_hd7970.csv"), metrics=["runtime", "wattage"])
    assert len(ds) == 500 and ds.valid.all()
    assert ds.params == ["ppb", "tpp", "consec"]
    assert ds.metrics == ["runtime", "wattage"]
    assert ds.default_metric == "runtime"
    assert ds.frame["ppb"].dtype.kind == "i"
    assert ds.y("runtime")[0] == pytest.approx(0.0983674)


def test_metrics_required_without_known_names(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,speed\n1,2,3.0\n")
    with pytest.raises(InputError) as err:
        load(path)
    assert "t.csv" in str(err.value) and "metrics=" in str(err.value)
    assert load(path, metrics=["speed"]).params == ["a", "b"]
    assert load(path, params=["a", "b"]).metrics == ["speed"]


def test_non_numeric_metric_names_file_line_column(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,time\n1,0.5\n\n2,0.7\n3,slow\n")  # the blank line still counts
    with pytest.raises(InputError) as err:
        load(path)
    message = str(err.value)
    assert "t.csv" in message and "line 5" in message and "'time'" in message and "'slow'" in message


def test_duplicate_configuration_names_lines(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,time\n1,2,0.5\n1,3,0.6\n1,2,0.7\n")
    with pytest.raises(InputError, match=r"t\.csv: configuration \{'a': 1, 'b': 2\} appears more than once \(lines 2 and 4\)"):
        load(path)


def test_status_column_and_bad_status(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,time,status\n1,0.5,ok\n2,,compile\n")
    ds = load(path)
    assert ds.status.tolist() == ["ok", "compile"] and ds.params == ["a"]
    path.write_text("a,time,status\n1,0.5,ok\n2,,broken\n")
    with pytest.raises(InputError, match=r"t\.csv: unknown status 'broken' in line 3"):
        load(path)


def test_ragged_csv(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,time\n1,0.5\n2,0.6,9\n")
    with pytest.raises(InputError, match=r"t\.csv: cannot parse CSV.*line 3"):
        load(path)


def test_repeated_column_name_is_an_error_not_a_renamed_parameter(tmp_path):
    """pandas renames a repeated header name ('a', 'a.1'): the second column became a parameter 'a.1'
    nobody named, and the tree split on it."""
    path = tmp_path / "t.csv"
    path.write_text("a, a,time\n1,2,0.5\n2,1,0.6\n")
    with pytest.raises(InputError, match=r"t\.csv: column\(s\) \['a'\] appear more than once in the header"):
        load(path)
    path.write_text("a,a.1,time\n1,2,0.5\n2,1,0.6\n")  # a real column named a.1 is fine
    assert load(path).params == ["a", "a.1"]


def test_a_wide_table_loads_and_its_errors_stay_one_short_line(tmp_path):
    """A CSV of 100,000 columns took more than 300 s: every header name was counted in the whole header, and
    each parameter looked up in a list. A duplicated configuration of a wide table printed all its values."""
    width = 5000
    path = tmp_path / "wide.csv"
    header = ",".join(f"p{i}" for i in range(width)) + ",time\n"
    path.write_text(header + "".join(",".join([str(r)] * width) + f",{r + 1}.0\n" for r in range(3)))
    ds = load(path)
    assert len(ds.params) == width and ds.y("time").tolist() == [1.0, 2.0, 3.0]
    path.write_text(header + "".join(",".join(["1"] * width) + f",{r + 1}.0\n" for r in range(2)))
    with pytest.raises(InputError, match=r"configuration \{'p0': 1, 'p1': 1, .*…") as caught:
        load(path)
    assert len(caught.value.message) < 400 and "lines 2 and 3" in caught.value.message
    path.write_text(header.replace("p4999", "p7") + "".join(",".join([str(r)] * width) + ",1\n" for r in range(2)))
    with pytest.raises(InputError, match=r"column\(s\) \['p7'\] appear more than once"):
        load(path)


def test_parse_error_is_one_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,time\n1,0.5\n2,0.6,9\n")
    with pytest.raises(InputError) as err:
        load(path)
    assert "\n" not in err.value.message


def test_tab_separated(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("a\tb\ttime\n1\t2\t0.5\n")
    assert load(path).params == ["a", "b"]


@pytest.mark.parametrize("name", ["copy.csv", "copy.csv.gz"])
def test_round_trip_real(tmp_path, name):
    ds = load(dataset_path("convolution/A6000.json.gz"))
    ds.to_csv(tmp_path / name)
    back = load(tmp_path / name, metrics=ds.metrics)
    assert back.params == ds.params and back.metrics == ds.metrics
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())


def test_round_trip_synthetic(tmp_path):
    df = pd.DataFrame({"a": [1, 2, 3], "flag": ["x", "y", "x"], "time": [0.1, None, 1 / 3],
                       "status": ["ok", "timeout", "ok"], "reason": ["", "took too long", ""]})
    ds = Dataset.from_frame(df)
    ds.to_csv(tmp_path / "s.csv")
    back = load(tmp_path / "s.csv")
    pd.testing.assert_frame_equal(back.to_frame(), ds.to_frame())


def test_a_plain_csv_takes_a_rate_beside_a_time_as_a_metric_not_a_parameter(tmp_path):
    """Without a `# starchart:` line, `GFLOP/s` beside `time` was read as a third parameter."""
    path = tmp_path / "g.csv"
    path.write_text("bx,by,time,GFLOP/s\n16,1,1.0,10.5\n32,2,0.5,20.1\n64,4,0.7,15.0\n")
    ds = load(path)
    assert ds.params == ["bx", "by"]
    assert ds.metrics == ["time", "GFLOP/s"]
    assert ds.frame["GFLOP/s"].tolist() == [10.5, 20.1, 15.0]


def test_units_a_dataset_states_survive_a_csv_round_trip(tmp_path):
    """The kmeans runtime is in ms, which its name does not say: the axes of a plot of its CSV said "runtime"."""
    from starchart import datasets

    path = tmp_path / "kmeans.csv"
    datasets.load_kmeans().to_csv(path)
    assert load(path).meta["units"] == {"runtime": "ms", "wattage": "W"}


def test_a_separator_pandas_refuses_is_named_when_read_directly(tmp_path):
    """Before: pandas' bare ValueError ("a line terminator cannot be used as a separator") was a traceback."""
    from starchart.io.csv import read

    path = tmp_path / "d.csv"
    path.write_text("a,time\n1,0.5\n2,0.7\n")
    with pytest.raises(InputError, match=r"d\.csv: cannot parse CSV with sep='\\r'") as caught:
        read(path, sep="\r")
    assert "sep=';'" in caught.value.hint


def test_a_csv_of_blank_lines_is_read_without_copies_of_it(tmp_path):
    """Before: a gzip file that unpacked to 1.2 GB of blank lines took 11 GB to read: the text was copied four bytes
    a character for pandas (io.StringIO), and split into a list of a billion lines to number them."""
    import tracemalloc

    from starchart.io.csv import read

    text = "bx,time\n1,1.0\n" + "\n" * 20_000_000 + "2,2.0\n"
    tracemalloc.start()
    try:
        ds = read(tmp_path / "d.csv", text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ds.y().tolist() == [1.0, 2.0]
    assert peak < len(text)  # the text itself is not copied whole (before: about 10 times its size)
    with pytest.raises(InputError, match="lines 2 and 20000003"):  # the lines are still counted right
        read(tmp_path / "d.csv", text.replace("2,2.0", "1,2.0"))
