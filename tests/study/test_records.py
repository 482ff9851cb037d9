"""Typed study records read and write exactly the objects the stores held before them."""

import pytest

from starchart.errors import InputError
from starchart.study.records import PlanRecord, SampleSizeRecord, SearchRecord
from starchart.study.store import Store

#: The objects as stores made before the records hold them (key by key).
OLD = {
    "search": {"budget": 50, "seed": 7, "objective": "time", "minimize": True, "prior": None},
    "search4": {"budget": 50, "seed": 7, "objective": "time", "minimize": True, "prior": "/a/b.json",
                "workers": 4, "strategy": "uniform", "earlier": [{"budget": 20, "seed": 7, "objective": "time",
                                                                   "minimize": True, "prior": None}]},
    "sample_size": {"validation": 200, "start": 20, "growth": 2.0, "target": 0.05, "budget": 800, "seed": 1,
                    "metric": "time", "tree_options": {"min_samples_split": 2}},
    "plan_sample": {"samples": 100, "seed": 3},
    "plan_configs": {"configs": [{"x": 1}, {"x": 2}]},
}


@pytest.mark.parametrize("cls, name", [(SearchRecord, "search"), (SearchRecord, "search4"),
                                       (SampleSizeRecord, "sample_size"), (PlanRecord, "plan_sample"),
                                       (PlanRecord, "plan_configs")])
def test_a_stored_object_reads_and_writes_back_unchanged(cls, name):
    old = OLD[name]
    with Store.open(None) as db:
        db.put(cls.KEY, old)
        record = cls.read(db)
        record.write(db)
        assert db.get(cls.KEY) == old and list(db.get(cls.KEY)) == list(old)


def test_defaults_are_not_written_and_unknown_keys_are_kept():
    record = SearchRecord(budget=5, seed=1, objective="t", minimize=False)
    assert "workers" not in record.to_json() and "strategy" not in record.to_json()
    assert record.workers == 1 and record.strategy == "tree"
    newer = SearchRecord.from_json({**OLD["search"], "from_a_newer_version": 1})
    assert newer.to_json()["from_a_newer_version"] == 1


def test_after_keeps_each_different_earlier_setting_once():
    first = SearchRecord(budget=20, seed=7, objective="time", minimize=True)
    second = SearchRecord(budget=50, seed=7, objective="time", minimize=True).after(first)
    assert second.earlier == [first.to_json()]
    assert second.after(second).earlier == second.earlier  # the same settings again: nothing new
    assert SearchRecord(budget=20, seed=7, objective="time", minimize=True).after(second).earlier == [
        first.to_json(), second.settings()]


def test_a_record_lacking_a_required_key_is_a_clear_error():
    with pytest.raises(InputError, match="the stored 'search' settings lack seed") as caught:
        SearchRecord.from_json({"budget": 5, "objective": "t", "minimize": True}, where="s.db")
    assert caught.value.where == "s.db"


def test_sample_size_arguments_continue_the_study():
    record = SampleSizeRecord.from_json(OLD["sample_size"])
    assert record.arguments() == OLD["sample_size"]
