"""Power arithmetic on synthetic samples, and the NVML sampler against a stand-in pynvml."""

from __future__ import annotations

import math
import sys
import time
import types

import numpy as np
import pytest

from starchart.errors import StarchartError
from starchart.measure.power import (
    NvmlPowerSampler,
    PowerTrace,
    energy_from_counter,
    import_pynvml,
    integrate_power,
    mean_power,
    nvml_field_value,
    window_mean_power,
)


def test_integrate_constant_and_linear_power():
    t = np.linspace(0.0, 2.0, 201)
    assert integrate_power(t, np.full_like(t, 250.0)) == pytest.approx(500.0)
    assert integrate_power(t, 100.0 + 50.0 * t) == pytest.approx(100.0 * 2 + 25.0 * 4)  # exact for linear
    assert integrate_power([], []) == 0.0
    assert integrate_power([3.0], [100.0]) == 0.0


def test_integrate_sorts_out_of_order_samples():
    assert integrate_power([1.0, 0.0, 2.0], [200.0, 100.0, 200.0]) == pytest.approx(350.0)


def test_mean_power_is_time_weighted():
    # 100 W for 9 s then 1000 W for 1 s, sampled unevenly
    t = np.array([0.0, 9.0, 9.0001, 10.0])
    w = np.array([100.0, 100.0, 1000.0, 1000.0])
    assert mean_power(t, w) == pytest.approx((900 + 1000) / 10, rel=1e-4)
    assert mean_power([1.0, 1.0], [10.0, 30.0]) == 20.0  # no time spanned: plain mean
    assert math.isnan(mean_power([], []))
    with pytest.raises(ValueError, match="timestamps"):
        mean_power([0.0, 1.0], [1.0])


def test_window_mean_power_interpolates_edges():
    t = np.arange(0.0, 10.01, 0.01)
    w = np.where(t < 5.0, 100.0, 300.0)
    assert window_mean_power(t, w, 6.0, 9.0) == pytest.approx(300.0)
    assert window_mean_power(t, w, 1.0, 4.0) == pytest.approx(100.0)
    assert window_mean_power(t, w, 4.0, 6.0) == pytest.approx(200.0, rel=0.01)
    assert window_mean_power([0.0, 1.0], [100.0, 200.0], 0.5, 0.5) == 150.0
    assert window_mean_power([5.0], [123.0], 0.0, 10.0) == 123.0  # one sample held
    assert math.isnan(window_mean_power([], [], 0.0, 1.0))


def test_energy_from_counter():
    assert energy_from_counter(1_000, 3_500) == 2.5
    assert energy_from_counter(10**15, 10**15 + 1_000_000) == 1000.0
    assert energy_from_counter(5, 4) is None
    assert energy_from_counter(None, 4) is None


def test_trace_prefers_the_counter():
    t = np.linspace(0.0, 1.0, 101)
    samples = PowerTrace(times_s=t, watts=np.full_like(t, 200.0))
    assert samples.method == "samples"
    assert samples.energy_j == pytest.approx(200.0) and samples.mean_power_w == pytest.approx(200.0)
    assert samples.duration_s == pytest.approx(1.0)
    counted = PowerTrace(times_s=t, watts=np.full_like(t, 200.0), counter_start_mj=0, counter_end_mj=220_000,
                         counter_start_s=0.0, counter_end_s=1.1)
    assert counted.method == "energy-counter"
    assert counted.energy_j == 220.0 and counted.mean_power_w == pytest.approx(200.0)
    assert counted.window_power_w(0.2, 0.4) == pytest.approx(200.0)
    broken = PowerTrace(times_s=t, watts=np.full_like(t, 50.0), counter_start_mj=10, counter_end_mj=5,
                        counter_start_s=0.0, counter_end_s=1.0)
    assert broken.method == "samples" and broken.mean_power_w == pytest.approx(50.0)
    assert counted.summary()["power_method"] == "energy-counter"
    assert PowerTrace().duration_s == 0.0


def test_field_value_reads_the_tagged_member():
    value = types.SimpleNamespace(dVal=1.5, uiVal=123_000, ullVal=7, siVal=-3)
    assert nvml_field_value(types.SimpleNamespace(nvmlReturn=0, valueType=1, value=value)) == 123_000.0
    assert nvml_field_value(types.SimpleNamespace(nvmlReturn=0, valueType=0, value=value)) == 1.5
    assert nvml_field_value(types.SimpleNamespace(nvmlReturn=0, valueType=5, value=value)) == -3.0
    assert nvml_field_value(types.SimpleNamespace(nvmlReturn=3, valueType=1, value=value)) is None


def test_missing_pynvml_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(StarchartError) as err:
        import_pynvml()
    assert '.[cuda]' in str(err.value) and "nvidia-ml-py" in str(err.value)
    with pytest.raises(StarchartError, match=r"need NVML's Python bindings.*pip install \"\.\[cuda\]\""):
        NvmlPowerSampler(0).open()


class FakeNvml(types.ModuleType):
    """A stand-in pynvml: 250 W, an energy counter rising at 250 W of wall time."""

    NVML_FI_DEV_POWER_INSTANT = 186

    def __init__(self, instant=True, counter=True, power=True):
        super().__init__("pynvml")
        self.instant, self.counter, self.power = instant, counter, power
        self.t0 = time.perf_counter()
        self.inits = 0

    def nvmlInit(self):
        self.inits += 1

    def nvmlShutdown(self):
        self.inits -= 1

    def nvmlDeviceGetHandleByPciBusId(self, bus):
        raise RuntimeError("not found")

    def nvmlDeviceGetHandleByIndex(self, index):
        if index != 0:
            raise RuntimeError("Invalid Argument")
        return "handle0"

    def nvmlDeviceGetFieldValues(self, handle, ids):
        ok = 0 if self.instant else 3
        return [types.SimpleNamespace(nvmlReturn=ok, valueType=1, value=types.SimpleNamespace(uiVal=250_000))]

    def nvmlDeviceGetPowerUsage(self, handle):
        if not self.power:
            raise RuntimeError("Not Supported")
        return 240_000

    def nvmlDeviceGetTotalEnergyConsumption(self, handle):
        if not self.counter:
            raise RuntimeError("Not Supported")
        return int(1e9 + (time.perf_counter() - self.t0) * 250_000)


def test_sampler_with_a_fake_nvml(monkeypatch):
    fake = FakeNvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    sampler = NvmlPowerSampler(0, pci_bus_id="0000:01:00.0", interval_s=0.005)
    with sampler:
        time.sleep(0.06)
    trace = sampler.trace
    assert sampler.source == "instant" and sampler.has_energy_counter
    assert len(trace.times_s) >= 3 and np.all(trace.watts == 250.0)
    assert trace.method == "energy-counter"
    assert trace.mean_power_w == pytest.approx(250.0, rel=0.02)
    assert trace.duration_s >= 0.06  # the counter reads bracket the 0.06 s slept between them
    with sampler:  # reusable
        time.sleep(0.01)
    assert sampler.trace is not trace
    sampler.close()
    assert fake.inits == 0


def test_sampler_falls_back_to_average_power_and_samples(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", FakeNvml(instant=False, counter=False))
    sampler = NvmlPowerSampler(0, interval_s=0.005)
    assert sampler.read_power() == 240.0
    with sampler:
        time.sleep(0.03)
    assert sampler.source == "average" and not sampler.has_energy_counter
    assert sampler.trace.method == "samples" and sampler.trace.mean_power_w == pytest.approx(240.0)
    sampler.close()


def test_sampler_errors(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", FakeNvml(instant=False, power=False))
    with pytest.raises(StarchartError, match="does not report its power"):
        NvmlPowerSampler(0).open()
    monkeypatch.setitem(sys.modules, "pynvml", FakeNvml())
    with pytest.raises(StarchartError, match="no GPU 3"):
        NvmlPowerSampler(3).open()
    with pytest.raises(ValueError, match="interval_s must be positive, got 0"):
        NvmlPowerSampler(0, interval_s=0)
    sampler = NvmlPowerSampler(0)
    with pytest.raises(RuntimeError, match="not running"):
        sampler.stop()
    sampler.start()
    with pytest.raises(RuntimeError, match="already running"):
        sampler.start()
    sampler.close()  # stops the thread too
