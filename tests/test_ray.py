"""Ray: a local instance with two workers gives the same results as the local path."""

from __future__ import annotations

import pytest

from starchart.measure import CEvaluator
from starchart.runner import run
from starchart.space import Space

ray = pytest.importorskip("ray")

SOURCE = r"""
#include <stdio.h>
#if X == 3
#error "X = 3 does not compile"
#endif
int main(void) {
    long v = 0;
    for (int i = 0; i < X * 1000; i++) v += i % Y;
    printf("time_ms: %d\n", X * Y);
    printf("checksum: %ld\n", v);
    return 0;
}
"""


def _results(ds):
    frame = ds.frame.sort_values(["X", "Y"]).reset_index(drop=True)
    return frame[["X", "Y", "time", "status"]].fillna(-1.0).to_dict("records")


def test_ray_path_gives_the_same_results_as_the_local_path(tmp_path):
    source = tmp_path / "kernel.c"
    source.write_text(SOURCE)
    space = Space({"X": [1, 2, 3, 4, 5, 6], "Y": [1, 2, 3, 5, 7]})

    def evaluator():
        return CEvaluator(source, repeats=2, warmup=1, cache_dir=tmp_path / "cache")

    local = run(space, evaluator(), samples=16, seed=11, store=tmp_path / "local.db", progress=False)
    remote = run(space, evaluator(), samples=16, seed=11, store=tmp_path / "ray.db", workers=2, ray="local",
                 progress=False)
    assert _results(remote) == _results(local)
    assert (remote.frame.loc[remote.frame["X"] == 3, "status"] == "compile").all()
    assert not ray.is_initialized()  # the private instance was shut down
