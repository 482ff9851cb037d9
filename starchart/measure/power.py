"""GPU power and energy during a run, read with NVML (the ``nvidia-ml-py`` package, module ``pynvml``).

Two readings exist, and :class:`NvmlPowerSampler` takes both when it can:

- **power samples**: a background thread reads the board power every
  ``interval_s`` (10 ms) into ``(timestamp, watts)`` pairs. It asks for the
  instantaneous power field first, because on Ampere (but GA100) and newer GPUs,
  Hopper included, ``nvmlDeviceGetPowerUsage`` is a trailing one-second average;
  it falls back to that average where the field is not supported;
- the **energy counter** (``nvmlDeviceGetTotalEnergyConsumption``, millijoules
  since the driver loaded, Volta and newer), read when sampling starts and
  stops. Its difference is exact over the whole window, so it is preferred.

The arithmetic is in pure functions (:func:`integrate_power`, :func:`mean_power`,
:func:`window_mean_power`, :func:`energy_from_counter`), tested without a GPU.

Examples
--------
>>> integrate_power([0.0, 1.0, 2.0], [100.0, 200.0, 200.0])  # joules
350.0
>>> mean_power([0.0, 1.0, 2.0], [100.0, 200.0, 200.0])  # watts, weighted by time
175.0
>>> energy_from_counter(1_000_000, 1_250_500)  # mJ readings -> J
250.5
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from starchart.errors import StarchartError

__all__ = [
    "NvmlPowerSampler",
    "PowerTrace",
    "energy_from_counter",
    "import_pynvml",
    "integrate_power",
    "mean_power",
    "nvml_field_value",
    "window_mean_power",
]

#: What to do when NVML is missing.
NVML_HINT = ('pip install ".[cuda]" in the starchart source folder (installs CuPy and nvidia-ml-py); '
             "power readings also need an NVIDIA GPU and its driver")
# nvml.h: NVML_FI_DEV_POWER_INSTANT (not in older pynvml releases)
_FIELD_POWER_INSTANT = 186
# nvml.h nvmlValueType_t, in the order of the c_nvmlValue_t union members
_VALUE_MEMBERS = ("dVal", "uiVal", "ulVal", "ullVal", "sllVal", "siVal", "usVal")


# ----------------------------------------------------------------- pure helpers
def _samples(times_s: Sequence[float] | np.ndarray, watts: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(times_s, dtype=np.float64).ravel()
    w = np.asarray(watts, dtype=np.float64).ravel()
    if t.shape != w.shape:
        raise ValueError(f"{t.size} timestamps but {w.size} power readings")
    if t.size > 1 and np.any(np.diff(t) < 0):
        order = np.argsort(t, kind="stable")
        t, w = t[order], w[order]
    return t, w


def integrate_power(times_s: Sequence[float] | np.ndarray, watts: Sequence[float] | np.ndarray) -> float:
    """Energy in joules of power samples ``(t, W)``, by the trapezoid rule.

    Fewer than two samples span no time and give 0.

    Examples
    --------
    >>> integrate_power([0.0, 0.5], [300.0, 300.0])
    150.0
    >>> integrate_power([1.0], [300.0])
    0.0
    """
    t, w = _samples(times_s, watts)
    if t.size < 2:
        return 0.0
    return float(np.sum((w[1:] + w[:-1]) * np.diff(t)) / 2.0)


def mean_power(times_s: Sequence[float] | np.ndarray, watts: Sequence[float] | np.ndarray) -> float:
    """Time-weighted mean power in watts (energy / duration).

    Unequally spaced samples (a late thread wake-up) weigh by the time they cover.
    One sample (or samples at one instant) gives their plain mean; none gives NaN.

    Examples
    --------
    >>> mean_power([0.0, 1.0, 3.0], [100.0, 100.0, 400.0])
    200.0
    >>> mean_power([], [])
    nan
    """
    t, w = _samples(times_s, watts)
    if t.size == 0:
        return math.nan
    duration = float(t[-1] - t[0])
    if duration <= 0:
        return float(np.mean(w))
    return integrate_power(t, w) / duration


def window_mean_power(times_s: Sequence[float] | np.ndarray, watts: Sequence[float] | np.ndarray,
                      start_s: float, end_s: float) -> float:
    """Mean power over the window ``[start_s, end_s]``, interpolating the samples at its edges.

    Samples outside the window are only used to interpolate its edges (or, before
    the first and after the last sample, the nearest reading is held). No samples
    give NaN.

    Examples
    --------
    >>> window_mean_power([0.0, 1.0, 2.0, 3.0], [100.0, 300.0, 300.0, 100.0], 1.0, 2.0)
    300.0
    >>> window_mean_power([0.0, 2.0], [100.0, 300.0], 0.0, 1.0)  # 100 W rising to 200 W
    150.0
    """
    t, w = _samples(times_s, watts)
    if t.size == 0:
        return math.nan
    if end_s <= start_s:
        return float(np.interp(start_s, t, w))
    inside = (t > start_s) & (t < end_s)
    tt = np.concatenate(([start_s], t[inside], [end_s]))
    ww = np.concatenate(([np.interp(start_s, t, w)], w[inside], [np.interp(end_s, t, w)]))
    return integrate_power(tt, ww) / (end_s - start_s)


def energy_from_counter(start_mj: float | None, end_mj: float | None) -> float | None:
    """Joules between two readings of NVML's energy counter (millijoules); None if unusable.

    A missing reading, or a counter that went backwards (driver reloaded), gives None.

    Examples
    --------
    >>> energy_from_counter(5000, 7500)
    2.5
    >>> energy_from_counter(7500, 5000) is None, energy_from_counter(None, 5000) is None
    (True, True)
    """
    if start_mj is None or end_mj is None or end_mj < start_mj:
        return None
    return (end_mj - start_mj) / 1000.0


def nvml_field_value(field_value: Any) -> float | None:
    """The number in a ``pynvml`` field value (``c_nvmlFieldValue_t``), or None if NVML returned an error.

    NVML tags the union with ``valueType``; reading the wrong member would give garbage.
    """
    if getattr(field_value, "nvmlReturn", 1) != 0:
        return None
    kind = int(getattr(field_value, "valueType", 1))
    member = _VALUE_MEMBERS[kind] if 0 <= kind < len(_VALUE_MEMBERS) else "uiVal"
    return float(getattr(field_value.value, member))


# ------------------------------------------------------------------------ trace
@dataclass
class PowerTrace:
    """What one sampling window recorded.

    Attributes
    ----------
    times_s, watts:
        Power samples: ``time.perf_counter()`` timestamps and watts.
    counter_start_mj, counter_end_mj:
        Energy counter readings at the start and end (None if unsupported).
    counter_start_s, counter_end_s:
        ``time.perf_counter()`` when the counter was read.
    source:
        ``"instant"`` or ``"average"``: which power reading the samples are.

    Examples
    --------
    >>> trace = PowerTrace(times_s=np.array([0.0, 1.0]), watts=np.array([200.0, 200.0]),
    ...                    counter_start_mj=0, counter_end_mj=250_000, counter_start_s=0.0, counter_end_s=1.0)
    >>> trace.energy_j, trace.mean_power_w, trace.method
    (250.0, 250.0, 'energy-counter')
    >>> PowerTrace(times_s=np.array([0.0, 1.0]), watts=np.array([200.0, 200.0])).mean_power_w
    200.0
    """

    times_s: np.ndarray = field(default_factory=lambda: np.empty(0))
    watts: np.ndarray = field(default_factory=lambda: np.empty(0))
    counter_start_mj: int | None = None
    counter_end_mj: int | None = None
    counter_start_s: float | None = None
    counter_end_s: float | None = None
    source: str = "instant"

    @property
    def counter_energy_j(self) -> float | None:
        """Joules from the energy counter, or None."""
        return energy_from_counter(self.counter_start_mj, self.counter_end_mj)

    @property
    def duration_s(self) -> float:
        """Seconds the window lasted (between the counter reads, else between the first and last sample)."""
        if self.counter_start_s is not None and self.counter_end_s is not None:
            return self.counter_end_s - self.counter_start_s
        return float(self.times_s[-1] - self.times_s[0]) if len(self.times_s) > 1 else 0.0

    @property
    def method(self) -> str:
        """``"energy-counter"`` when the counter gave a usable difference, else ``"samples"``."""
        usable = self.counter_energy_j is not None and self.duration_s > 0
        return "energy-counter" if usable else "samples"

    @property
    def energy_j(self) -> float:
        """Joules over the window: the counter's difference, else the integral of the samples."""
        if self.method == "energy-counter":
            return float(self.counter_energy_j)  # type: ignore[arg-type]
        return integrate_power(self.times_s, self.watts)

    @property
    def mean_power_w(self) -> float:
        """Mean watts over the window, from the counter when usable, else from the samples."""
        if self.method == "energy-counter":
            return float(self.counter_energy_j) / self.duration_s  # type: ignore[arg-type]
        return mean_power(self.times_s, self.watts)

    def window_power_w(self, start_s: float, end_s: float) -> float:
        """Mean watts over ``[start_s, end_s]`` (``perf_counter`` times) from the samples."""
        return window_mean_power(self.times_s, self.watts, start_s, end_s)

    def summary(self) -> dict[str, Any]:
        """A small JSON-able summary (for a measurement's ``extra``)."""
        return {"power_method": self.method, "power_source": self.source, "power_samples": len(self.times_s),
                "power_window_s": self.duration_s}


# ----------------------------------------------------------------------- NVML
def import_pynvml() -> ModuleType:
    """Import ``pynvml`` or raise a :class:`StarchartError` saying how to install it."""
    try:
        import pynvml
    except ImportError as exc:
        raise StarchartError(f"power measurements need NVML's Python bindings, which are not installed ({exc})",
                             hint=NVML_HINT) from exc
    return pynvml


class NvmlPowerSampler:
    """Sample a GPU's power in a background thread while a ``with`` block runs.

    Parameters
    ----------
    device:
        NVML index of the GPU (used when ``pci_bus_id`` is not given or not found).
    pci_bus_id:
        PCI bus id (``"0000:19:00.0"``), the reliable way to match a CUDA device:
        CUDA and NVML may number GPUs differently.
    interval_s:
        Seconds between samples (10 ms by default).
    instant:
        Prefer the instantaneous power field over the one-second average.

    NVML is initialised on first use (raising :class:`StarchartError` if
    ``pynvml`` is missing or no NVIDIA driver answers) and shut down by
    :meth:`close`. Each ``with`` block records one :class:`PowerTrace`, in
    :attr:`trace` afterwards.

    Examples
    --------
    ::

        sampler = NvmlPowerSampler(0)
        with sampler:
            run_the_kernel_for_a_second()
        print(sampler.trace.mean_power_w, sampler.trace.energy_j)
        sampler.close()
    """

    def __init__(self, device: int = 0, *, pci_bus_id: str | None = None, interval_s: float = 0.01,
                 instant: bool = True):
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s!r}")
        self.device = device
        self.pci_bus_id = pci_bus_id
        self.interval_s = float(interval_s)
        self.instant = instant
        self.trace: PowerTrace | None = None
        self._nvml: ModuleType | None = None
        self._handle: Any = None
        self._read: Callable[[], float] | None = None
        self._source = "average"
        self._has_counter = False
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._times: list[float] = []
        self._watts: list[float] = []
        self._lock = threading.Lock()

    # -- set-up
    def open(self) -> NvmlPowerSampler:
        """Initialise NVML, find the GPU and choose the readings it supports (idempotent)."""
        if self._nvml is not None:
            return self
        nvml = import_pynvml()
        try:
            nvml.nvmlInit()
        except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
            raise StarchartError(f"NVML could not be initialised: {exc}", hint=NVML_HINT) from exc
        try:
            self._handle = self._find_handle(nvml)
            self._read, self._source = self._choose_reading(nvml)
            self._has_counter = self._energy_counter(nvml) is not None
        except BaseException:
            nvml.nvmlShutdown()
            raise
        self._nvml = nvml
        return self

    def _find_handle(self, nvml: ModuleType) -> Any:
        if self.pci_bus_id:
            try:
                return nvml.nvmlDeviceGetHandleByPciBusId(self.pci_bus_id)
            except Exception:  # noqa: BLE001 - formats differ between drivers; fall back to the index
                pass
        try:
            return nvml.nvmlDeviceGetHandleByIndex(self.device)
        except Exception as exc:
            raise StarchartError(f"NVML has no GPU {self.device}: {exc}", where="power",
                                 hint="check the device index (nvidia-smi -L lists the GPUs)") from exc

    def _choose_reading(self, nvml: ModuleType) -> tuple[Callable[[], float], str]:
        handle = self._handle
        field_id = getattr(nvml, "NVML_FI_DEV_POWER_INSTANT", _FIELD_POWER_INSTANT)

        def instant() -> float:
            value = nvml_field_value(nvml.nvmlDeviceGetFieldValues(handle, [field_id])[0])
            if value is None:
                raise RuntimeError("the instantaneous power field is not available")
            return value / 1000.0  # mW

        def average() -> float:
            return nvml.nvmlDeviceGetPowerUsage(handle) / 1000.0  # mW

        if self.instant:
            try:
                instant()
                return instant, "instant"
            except Exception:  # noqa: BLE001 - older driver or GPU: use the averaged reading
                pass
        try:
            average()
        except Exception as exc:
            raise StarchartError(f"this GPU does not report its power through NVML: {exc}", where="power",
                                 hint="power measurements need a GPU with power management (most data-centre "
                                      "GPUs); run without power=True") from exc
        return average, "average"

    def _energy_counter(self, nvml: ModuleType) -> int | None:
        try:
            return int(nvml.nvmlDeviceGetTotalEnergyConsumption(self._handle))
        except Exception:  # noqa: BLE001 - not supported before Volta
            return None

    def _timed_counter(self) -> tuple[int | None, float]:
        """A counter reading and the moment it was taken (a read costs milliseconds: take the middle)."""
        assert self._nvml is not None
        before = time.perf_counter()
        value = self._energy_counter(self._nvml)
        return value, (before + time.perf_counter()) / 2.0

    @property
    def source(self) -> str:
        """``"instant"`` or ``"average"`` (after :meth:`open`)."""
        return self._source

    @property
    def has_energy_counter(self) -> bool:
        """Whether the GPU's energy counter can be read (after :meth:`open`)."""
        return self._has_counter

    def read_power(self) -> float:
        """One power reading in watts."""
        self.open()
        assert self._read is not None
        return self._read()

    # -- sampling
    def _run(self) -> None:
        assert self._read is not None
        while True:
            now = time.perf_counter()
            try:
                watts = self._read()
            except Exception:  # noqa: BLE001 - a failed read is a missing sample, not a crash
                watts = None
            if watts is not None:
                with self._lock:
                    self._times.append(now)
                    self._watts.append(watts)
            if self._stop.wait(self.interval_s):
                return

    def start(self) -> None:
        """Read the energy counter and start the sampling thread."""
        if self._thread is not None:
            raise RuntimeError("the sampler is already running")
        self.open()
        assert self._nvml is not None
        self._times, self._watts = [], []
        self._stop.clear()
        self.trace = PowerTrace(source=self._source)
        if self._has_counter:
            self.trace.counter_start_mj, self.trace.counter_start_s = self._timed_counter()
        self._thread = threading.Thread(target=self._run, name="starchart-nvml-power", daemon=True)
        self._thread.start()

    def stop(self) -> PowerTrace:
        """Stop the thread, take a last sample and read the energy counter; returns the trace."""
        if self._thread is None or self.trace is None:
            raise RuntimeError("the sampler is not running")
        assert self._nvml is not None and self._read is not None
        if self._has_counter:  # read first: the counter window should hug the measured run
            self.trace.counter_end_mj, self.trace.counter_end_s = self._timed_counter()
        self._stop.set()
        self._thread.join()
        self._thread = None
        with self._lock:
            times, watts = list(self._times), list(self._watts)
        try:
            times.append(time.perf_counter())
            watts.append(self._read())
        except Exception:  # noqa: BLE001
            times.pop()
        self.trace.times_s = np.asarray(times, dtype=np.float64)
        self.trace.watts = np.asarray(watts, dtype=np.float64)
        return self.trace

    def __enter__(self) -> NvmlPowerSampler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def close(self) -> None:
        """Stop sampling if needed and shut NVML down."""
        if self._thread is not None:
            self.stop()
        if self._nvml is not None:
            try:
                self._nvml.nvmlShutdown()
            except Exception:  # noqa: BLE001 - shutting down must not fail
                pass
            self._nvml = None
