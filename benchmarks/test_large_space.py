"""The 123,744-design space of ``benchmarks/large_space.py``: its committed measurements are a uniform sample of
that space, and its record is what the script computes from them (so the paper page's Fig. 4 table can be
regenerated from the CSV alone)."""

from __future__ import annotations

import json

import pytest

from starchart.io.load import load

large_space = pytest.importorskip("large_space")

RECORD = json.loads((large_space.HERE / "results" / "large_space.json").read_text())
DATA = large_space.HERE.parent / RECORD["data"]


def test_the_space_is_of_the_papers_size():
    space = large_space.large_space()
    assert space.size() == RECORD["space_size"] == 123_744 > 10**5
    assert space.names[-3:] == ("OPT", "VECTORIZE", "AVX2")


def test_the_measurements_are_the_seeded_uniform_sample():
    frame = load(DATA).frame
    space = large_space.large_space()
    params = list(space.names)
    assert len(frame) == RECORD["measured"] == len(frame[params].drop_duplicates())
    drawn = space.sample(len(frame), seed=0)[params]  # the sample the script measured, in its order
    assert sorted(map(tuple, frame[params].to_numpy().tolist())) == sorted(map(tuple, drawn.to_numpy().tolist()))
    assert (frame["status"] == "ok").all() and (frame["time"] > 0).all()


def test_the_record_is_recomputed_from_the_csv():
    frame = load(DATA).frame
    space = large_space.large_space()
    runs = large_space.curve(frame, list(space.names), space.size(), splits=10, budget=3200)
    assert large_space.summary(runs) == RECORD["rows"]
    at_paper_share = next(r for r in RECORD["rows"] if r["samples"] == round(large_space.PAPER_SHARE * 123_744))
    assert at_paper_share["share of space"] == "0.300%"
