"""Ray: a local instance with two workers gives the same results as the local path."""

from __future__ import annotations

import sys

import pytest

from starchart.errors import InputError
from starchart.measure import CEvaluator, PythonEvaluator
from starchart.space import Space
from starchart.study.runner import run

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


@pytest.fixture
def ray():
    return pytest.importorskip("ray")


def _results(ds):
    frame = ds.frame.sort_values(["X", "Y"]).reset_index(drop=True)
    return frame[["X", "Y", "time", "status"]].fillna(-1.0).to_dict("records")


def test_ray_path_gives_the_same_results_as_the_local_path(tmp_path, ray):
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


def test_more_workers_than_the_cluster_has_is_an_error_not_a_hang(tmp_path, ray):
    """Actors beyond the cluster's CPUs (GPUs for CUDA) never start, and the configurations handed to
    them never come back: the run used to wait for ever."""
    space = Space({"x": [1, 2, 3, 4]})
    ray.init(num_cpus=1, include_dashboard=False, configure_logging=False)
    try:
        with pytest.raises(InputError, match="the Ray cluster has 1") as caught:
            run(space, PythonEvaluator(lambda c: c["x"]), samples=4, workers=2, ray="auto", progress=False,
                store=tmp_path / "s.db")
        assert caught.value.hint == "use --workers 1"

        class OnGPU(PythonEvaluator):
            needs_gpu = True  # the class says so (the kind's name no longer does)

        with pytest.raises(InputError, match="one GPU: 1 need 1, but the Ray cluster has 0"):
            run(space, OnGPU(lambda c: c["x"]), samples=4, ray="auto", progress=False, store=tmp_path / "g.db")
        ds = run(space, PythonEvaluator(lambda c: c["x"]), samples=4, workers=1, ray="auto", progress=False,
                 store=tmp_path / "one.db")
        assert sorted(ds.frame["time"]) == [1, 2, 3, 4]
    finally:
        ray.shutdown()


def test_without_ray_the_error_names_the_extra_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if it were not installed
    store = tmp_path / "study.db"
    with pytest.raises(InputError, match="Ray is not installed") as caught:
        run(Space({"x": [1, 2, 3]}), PythonEvaluator(lambda c: c["x"]), samples=2, ray="local", progress=False,
            store=store)
    assert 'pip install ".[ray]"' in caught.value.hint
    assert not store.exists()  # no store holding a session that never ran


def test_a_ray_client_address_without_ray_client_says_to_install_it(tmp_path, ray, monkeypatch):
    """A plain `pip install ray` cannot join `ray://HOST:10001`: Ray says `ray[client]` is missing, and the
    hint used to send the user to check an address that was right."""
    def init(**options):
        raise RuntimeError("Ray Client requires pip package `ray[client]`. If you installed the minimal Ray "
                           "(e.g. `pip install ray`), please reinstall by executing `pip install ray[client]`.")

    monkeypatch.setattr(ray, "init", init)
    with pytest.raises(InputError, match="cannot start or join Ray") as caught:
        run(Space({"x": [1, 2]}), PythonEvaluator(lambda c: c["x"]), samples=2, ray="ray://head:10001",
            progress=False, store=tmp_path / "s.db")
    assert 'pip install "ray[client]"' in caught.value.hint
    assert "check the address" not in caught.value.hint


def test_killing_the_driver_stops_the_programs_and_the_local_ray_daemons(tmp_path, ray):
    """``kill -9`` of a run on a local Ray instance. Before: Ray killed each worker's direct children as the
    worker exited, the watchdog among them, so the benchmark's own children ran on (a ``sleep 300`` here), and
    the instance's agents (DashboardAgent, RuntimeEnvAgent) outlived the driver for good."""
    from starchart.measure.process import descendants
    from tests import driver_processes as driving

    script = "sleep 300 & echo $! > grandchild.pid; echo $$ > child.pid; wait"
    driver = driving._start_driver(tmp_path, f"""
        from starchart.measure import CommandEvaluator
        from starchart.study.runner import run
        from starchart.space import Space
        run(Space({{"x": [1]}}), CommandEvaluator({script!r}, shell=True, timeout=600), samples=1, seed=1,
            store="study.db", ray="local", progress=False)
    """)
    child = grandchild = 0
    started: set[int] = set()
    try:
        child, grandchild = driving._read_pid(tmp_path / "child.pid"), driving._read_pid(tmp_path / "grandchild.pid")
        started = descendants(driver.pid)  # the GCS, the raylet and its agents, the worker
        assert len(started) >= 3, started
        driving._kill_driver(driver)
        driving._wait_until(lambda: not driving._alive(child) and not driving._alive(grandchild),
                            "the program and its sleep to die")
        driving._wait_until(lambda: not any(driving._alive(pid) for pid in started),
                            f"Ray's processes {sorted(started)} to end")
    finally:
        driver.kill()
        driving._kill_quietly(child, grandchild, *started)
