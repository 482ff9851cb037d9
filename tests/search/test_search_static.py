"""The search told what the compiler says: static metrics as features, and the ``static`` strategy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from starchart import Space, search
from starchart.errors import InputError
from starchart.measure import PythonEvaluator
from starchart.strategies.encoding import Encoding
from starchart.strategies.search import resume_search
from starchart.strategies.static import MAX_LEVELS, StaticFeatures, static_table

SPACE = Space({"x": list(range(40)), "y": list(range(40))})


def registers(x: int, y: int) -> int:
    """A compiler fact that the parameters hide: scrambled over the grid, as register counts look to a tree."""
    return (7 * x + 13 * y) % 20


def slowness(config: dict) -> float:
    return 1.0 + registers(config["x"], config["y"])


def table(kept: int = 0) -> pd.DataFrame:
    """The static metrics of every configuration of SPACE; carving keeps the ``kept`` fastest by registers."""
    frame = SPACE.to_frame()
    frame["registers"] = [registers(x, y) for x, y in zip(frame.x, frame.y)]
    frame["occupancy"] = 1.0
    frame.loc[frame.index[:7], "occupancy"] = 0.5
    frame["carved_by"] = np.where(frame["registers"] < kept, "", "dominated")
    return frame


def test_each_metric_becomes_ordered_codes_with_zero_for_what_the_table_lacks():
    enc = Encoding.from_space(SPACE)
    frame = table()
    frame["instr"] = np.arange(len(frame), dtype=float)  # 1600 distinct values: banded
    frame.loc[3, "instr"] = np.nan
    static = StaticFeatures.from_table(enc, frame.drop(index=[5]))
    assert static.names == ("registers", "occupancy", "instr")
    rows = frame.loc[[0, 3, 5, 1599]]
    codes = static.features(enc.encode(rows[["x", "y"]]))
    assert codes[:, 0].tolist() == [1 + rows.registers[0], 1 + rows.registers[3], 0, 1 + rows.registers[1599]]
    assert codes[:, 1].tolist() == [1, 1, 0, 2]
    assert codes[1, 2] == 0 and codes[2].tolist() == [0, 0, 0]  # NaN, and a row the table lacks
    assert static.levels.tolist()[:2] == [21, 3] and static.levels[2] == MAX_LEVELS
    assert np.all(np.diff(static.features(enc.encode(frame.loc[frame.index[6:], ["x", "y"]]))[:, 2]) >= 0)


def test_constant_and_repeated_metrics_are_left_out():
    # a kernel without shared memory: no wavefronts, and its weighted efficiency is its efficiency
    frame = table().assign(efficiency=lambda f: 1 / (1 + f.registers), shared_wavefronts=0.0, bank_conflicts=0.0)
    frame["weighted_efficiency"] = frame["efficiency"]
    static = StaticFeatures.from_table(Encoding.from_space(SPACE), frame)
    assert static.names == ("registers", "occupancy", "efficiency")
    frame.loc[0, "weighted_efficiency"] *= 0.5  # conflicts somewhere: now it says something of its own
    assert "weighted_efficiency" in StaticFeatures.from_table(Encoding.from_space(SPACE), frame).names


def test_rows_outside_the_space_are_ignored_and_named_metrics_are_checked():
    enc = Encoding.from_space(SPACE)
    frame = pd.concat([table(), pd.DataFrame({"x": [99], "y": [0], "registers": [0], "occupancy": [1.0]})])
    assert len(StaticFeatures.from_table(enc, frame, metrics=["registers"]).rows) == len(SPACE.to_frame())
    with pytest.raises(InputError, match="no column 'regs'"):
        StaticFeatures.from_table(enc, frame, metrics=["regs"])
    with pytest.raises(InputError, match="'x' is a parameter"):
        StaticFeatures.from_table(enc, frame, metrics=["x"])
    with pytest.raises(InputError, match="lack the parameter.*y"):
        StaticFeatures.from_table(enc, frame.drop(columns="y"))
    with pytest.raises(InputError, match="no row of the static metrics"):
        StaticFeatures.from_table(enc, frame.assign(x=frame.x + 100))
    with pytest.raises(InputError, match="none of the known metric columns"):
        StaticFeatures.from_table(enc, frame[["x", "y"]].assign(speed=1.0))


@pytest.mark.parametrize("name, content, message", [
    ("metrics.txt", "x,y\n", "read from .csv, .json or .parquet"),
    ("metrics.json", "{not json", "could not be read as a table"),
    ("absent.csv", None, "is not a file"),
], ids=["suffix", "unreadable", "absent"])
def test_a_static_file_that_cannot_be_read_is_named(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=message) as caught:
        static_table(path)
    assert caught.value.where in (str(path), "static")
    with pytest.raises(InputError, match="must be a table or a file"):
        static_table(42)


def test_the_static_strategy_starts_among_what_carving_kept():
    result = search(PythonEvaluator(slowness), SPACE, budget=30, seed=3, static=table(kept=2))
    first = result.history.head(11)  # the initial design: 2√30 ≈ 11 draws, all among the 160 kept
    assert all(registers(x, y) < 2 for x, y in zip(first.x, first.y))
    assert result.best.value == 1.0


def test_static_metrics_let_the_search_see_what_the_parameters_hide():
    # time follows a compiler fact scrambled over the grid: 80 of 1600 configurations are optimal
    found = {"tree": [], "features": []}
    for seed in range(6):
        found["tree"].append(search(PythonEvaluator(slowness), SPACE, budget=25, seed=seed).best.value)
        found["features"].append(search(PythonEvaluator(slowness), SPACE, budget=25, seed=seed, strategy="tree",
                                         static=table()).best.value)
    assert found["features"] == [1.0] * 6
    assert np.mean(found["tree"]) > 1.0


def test_a_search_told_a_static_file_resumes_with_it(tmp_path):
    path = tmp_path / "carved.csv"
    table(kept=2).to_csv(path, index=False)
    store = tmp_path / "s.db"
    first = search(PythonEvaluator(slowness), SPACE, budget=12, seed=4, store=store, static=path, time_limit=1e-9)
    assert len(first.history) < 12 and first.stopped
    whole = search(PythonEvaluator(slowness), SPACE, budget=12, seed=4, static=path)
    assert resume_search(store).history.equals(whole.history)


def test_a_static_table_given_in_memory_must_be_given_again_to_resume(tmp_path):
    store = tmp_path / "s.db"
    search(PythonEvaluator(slowness), SPACE, budget=12, seed=4, store=store, static=table(), time_limit=1e-9)
    with pytest.raises(InputError, match="static metrics given as a table") as caught:
        resume_search(store)
    assert "static=..." in caught.value.hint


def test_strategies_that_cannot_use_static_metrics_say_so():
    with pytest.raises(InputError, match="'uniform' strategy cannot use static metrics"):
        search(PythonEvaluator(slowness), SPACE, budget=5, seed=0, strategy="uniform", static=table())
    with pytest.raises(InputError, match="needs the static metrics"):
        search(PythonEvaluator(slowness), SPACE, budget=5, seed=0, strategy="static")
