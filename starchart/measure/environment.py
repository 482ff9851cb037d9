"""Where measurements were taken: host, CPU, GPUs, software versions and time.

:func:`environment` is stored with a study so that numbers can be compared only
with numbers from the same machine and software. It never fails: what cannot be
found is ``None`` (or an empty list of GPUs), and without a GPU it takes a few
milliseconds.

Examples
--------
>>> env = environment(extra_packages=["no-such-package-xyz"])
>>> sorted(env)  # doctest: +NORMALIZE_WHITESPACE
['cpu', 'cpu_count', 'gpu_source', 'gpus', 'hostname', 'machine', 'memory_bytes', 'os', 'os_release',
 'packages', 'platform', 'python', 'timestamp']
>>> env["packages"]["no-such-package-xyz"] is None
True
"""

from __future__ import annotations

import datetime as _dt
import importlib.metadata
import os
import platform
import shutil
import socket
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import starchart

__all__ = ["cpu_model", "environment", "gpus", "memory_total", "package_versions", "parse_nvidia_smi"]

#: Packages whose versions are always recorded.
BASE_PACKAGES = ("numpy", "pandas", "starchart")
_SMI_QUERY = ["--query-gpu=index,name,driver_version,memory.total", "--format=csv,noheader,nounits"]
_SMI_TIMEOUT_S = 5.0


def cpu_model(cpuinfo: str | Path = "/proc/cpuinfo") -> str | None:
    """The CPU's model name (Linux ``/proc/cpuinfo``; elsewhere :func:`platform.processor`)."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def memory_total(meminfo: str | Path = "/proc/meminfo") -> int | None:
    """Physical memory in bytes, or None when it cannot be read cheaply."""
    try:
        with open(meminfo, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    parts = line.split()
                    return int(parts[1]) * 1024  # reported in kB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def package_versions(names: Iterable[str]) -> dict[str, str | None]:
    """Installed version of each distribution (None when it is not installed).

    >>> package_versions(["numpy", "surely-not-installed-abc"])["surely-not-installed-abc"] is None
    True
    """
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except Exception:  # noqa: BLE001 - PackageNotFoundError, or a broken installation
            versions[name] = None
    if "starchart" in versions and versions["starchart"] is None:  # running from a source tree
        try:
            versions["starchart"] = getattr(starchart, "__version__", None)
        except Exception:  # noqa: BLE001
            pass
    return versions


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _gpus_from_nvml() -> list[dict[str, Any]] | None:
    try:
        import pynvml
    except Exception:  # noqa: BLE001 - not installed
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001 - no driver
        return None
    try:
        driver = _text(pynvml.nvmlSystemGetDriverVersion())
        found = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            gpu: dict[str, Any] = {"index": index, "name": _text(pynvml.nvmlDeviceGetName(handle)),
                                   "driver_version": driver, "memory_bytes": None}
            try:
                gpu["memory_bytes"] = int(pynvml.nvmlDeviceGetMemoryInfo(handle).total)
            except Exception:  # noqa: BLE001
                pass
            try:
                gpu["uuid"] = _text(pynvml.nvmlDeviceGetUUID(handle))
            except Exception:  # noqa: BLE001
                pass
            found.append(gpu)
        return found
    except Exception:  # noqa: BLE001 - any NVML failure: try nvidia-smi instead
        return None
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass


def parse_nvidia_smi(text: str) -> list[dict[str, Any]]:
    """GPUs from ``nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader,nounits``.

    Examples
    --------
    >>> parse_nvidia_smi("0, NVIDIA H200, 560.35.03, 143771\\n")
    [{'index': 0, 'name': 'NVIDIA H200', 'driver_version': '560.35.03', 'memory_bytes': 150754820096}]
    """
    found = []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) < 4 or not fields[1]:
            continue
        memory: int | None
        try:
            memory = int(float(fields[3].split()[0]) * 1024 * 1024)  # MiB
        except (ValueError, IndexError):
            memory = None
        try:
            index: int | None = int(fields[0])
        except ValueError:
            index = None
        found.append({"index": index, "name": fields[1], "driver_version": fields[2] or None,
                      "memory_bytes": memory})
    return found


def _gpus_from_smi() -> list[dict[str, Any]] | None:
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, *_SMI_QUERY], capture_output=True, text=True, timeout=_SMI_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return parse_nvidia_smi(done.stdout)


def gpus() -> tuple[list[dict[str, Any]], str | None]:
    """The NVIDIA GPUs, and where they were found (``"nvml"``, ``"nvidia-smi"`` or None)."""
    found = _gpus_from_nvml()
    if found is not None:
        return found, "nvml"
    found = _gpus_from_smi()
    if found is not None:
        return found, "nvidia-smi"
    return [], None


def environment(extra_packages: Iterable[str] = ()) -> dict[str, Any]:
    """A JSON-able description of this machine and its software, now.

    Parameters
    ----------
    extra_packages:
        More distributions whose versions to record (``"cupy-cuda12x"``, ``"kernel_tuner"``).

    Returns
    -------
    dict
        ``hostname``, ``platform``, ``os``, ``os_release``, ``machine``, ``python``,
        ``cpu`` (model name), ``cpu_count`` (logical), ``memory_bytes``, ``gpus``
        (each with ``index``, ``name``, ``driver_version``, ``memory_bytes``),
        ``gpu_source``, ``packages`` (``{name: version or None}``) and
        ``timestamp`` (UTC, ISO 8601).
    """
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = None
    found, source = gpus()
    names = list(dict.fromkeys([*BASE_PACKAGES, *extra_packages]))
    return {
        "hostname": hostname,
        "platform": platform.platform(),
        "os": platform.system(),
        "os_release": platform.release(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": memory_total(),
        "gpus": found,
        "gpu_source": source,
        "packages": package_versions(names),
        "timestamp": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
