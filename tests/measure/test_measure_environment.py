"""environment(): keys, speed, never failing, and each GPU source (NVML, nvidia-smi, none)."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import sys
import types

import pytest

from starchart.measure import environment as env_module
from starchart.measure.environment import cpu_model, environment, memory_total, package_versions, parse_nvidia_smi

KEYS = {"hostname", "platform", "os", "os_release", "machine", "python", "cpu", "cpu_count", "memory_bytes",
        "gpus", "gpu_source", "packages", "timestamp"}


@pytest.fixture
def no_gpu_tools(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setattr(env_module.shutil, "which", lambda name: None)


def test_keys_and_types(no_gpu_tools):
    env = environment(extra_packages=["pytest", "definitely-not-installed-pkg"])
    assert set(env) == KEYS
    json.dumps(env)
    assert env["gpus"] == [] and env["gpu_source"] is None
    assert env["python"].count(".") == 2
    assert isinstance(env["cpu_count"], int) and env["cpu_count"] >= 1
    assert env["memory_bytes"] is None or env["memory_bytes"] > 0
    packages = env["packages"]
    assert list(packages)[:3] == ["numpy", "pandas", "starchart"]
    assert packages["numpy"] and packages["starchart"]
    assert packages["pytest"] == pytest.__version__
    assert packages["definitely-not-installed-pkg"] is None
    stamp = dt.datetime.fromisoformat(env["timestamp"])
    assert stamp.utcoffset() == dt.timedelta(0)


def test_cpu_and_memory_readers(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: X\nmodel name\t: Example CPU @ 3.0GHz\n")
    assert cpu_model(cpuinfo) == "Example CPU @ 3.0GHz"
    assert cpu_model(tmp_path / "missing") == (env_module.platform.processor() or None)
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       16384 kB\nMemFree: 1 kB\n")
    assert memory_total(meminfo) == 16384 * 1024
    assert memory_total(tmp_path / "missing") is None or memory_total(tmp_path / "missing") > 0


def test_package_versions_never_fail():
    versions = package_versions(["numpy", "no-such-thing-123"])
    assert versions["numpy"] and versions["no-such-thing-123"] is None


def test_parse_nvidia_smi():
    text = "0, NVIDIA H200, 560.35.03, 143771\n1, NVIDIA A100-SXM4-80GB, 560.35.03, [N/A]\n\ngarbage\n"
    gpus = parse_nvidia_smi(text)
    assert gpus[0] == {"index": 0, "name": "NVIDIA H200", "driver_version": "560.35.03",
                       "memory_bytes": 143771 * 1024 * 1024}
    assert gpus[1]["memory_bytes"] is None and len(gpus) == 2


def test_gpus_from_nvidia_smi(monkeypatch, tmp_path):
    script = tmp_path / "nvidia-smi"
    script.write_text("#!/bin/sh\necho '0, NVIDIA H200, 560.35.03, 143771'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    env = environment()
    assert env["gpu_source"] == "nvidia-smi"
    assert env["gpus"][0]["name"] == "NVIDIA H200"


def test_failing_nvidia_smi_gives_no_gpus(monkeypatch, tmp_path):
    script = tmp_path / "nvidia-smi"
    script.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    env = environment()
    assert env["gpus"] == [] and env["gpu_source"] is None


def test_gpus_from_nvml(monkeypatch):
    fake = types.ModuleType("pynvml")
    fake.nvmlInit = lambda: None
    fake.nvmlShutdown = lambda: None
    fake.nvmlSystemGetDriverVersion = lambda: b"560.35.03"
    fake.nvmlDeviceGetCount = lambda: 2
    fake.nvmlDeviceGetHandleByIndex = lambda i: i
    fake.nvmlDeviceGetName = lambda h: "NVIDIA H200"
    fake.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(total=150_000_000_000)
    fake.nvmlDeviceGetUUID = lambda h: f"GPU-{h}"
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    env = environment()
    assert env["gpu_source"] == "nvml"
    assert env["gpus"] == [
        {"index": i, "name": "NVIDIA H200", "driver_version": "560.35.03", "memory_bytes": 150_000_000_000,
         "uuid": f"GPU-{i}"} for i in range(2)]


def test_nvml_without_driver_falls_back(monkeypatch, no_gpu_tools):
    fake = types.ModuleType("pynvml")

    def fail():
        raise RuntimeError("NVML Shared Library Not Found")
    fake.nvmlInit = fail
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    env = environment()
    assert env["gpus"] == [] and env["gpu_source"] is None
