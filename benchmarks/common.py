"""Shared plumbing for the benchmarks: locate the shared datasets, print a table, write JSON.

Benchmarks are run, not asserted: each prints a table and writes its numbers with the
date, machine and versions to ``benchmarks/results/<name>.json``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
RESULTS = ROOT / "benchmarks" / "results"


def best_time(call: Callable[[], object], repeats: int, *, warm: bool = False) -> float:
    """The shortest wall time of ``repeats`` calls (after one untimed call when ``warm``: what a first call
    loads, such as compiled code, is not what is compared)."""
    if warm:
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def dataset(relative: str) -> Path:
    """Path of a shared dataset; exits with a clear message when it is missing."""
    path = DATASETS / relative
    if not path.exists():
        sys.exit(f"dataset {relative} not found under {DATASETS}: put ../shared beside the project")
    return path


def environment() -> dict[str, Any]:
    """Date, machine and library versions, recorded with every result."""
    import numpy
    import pandas

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "host_cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "numpy": numpy.__version__, "pandas": pandas.__version__}


def report(name: str, title: str, rows: list[dict[str, Any]], extra: dict[str, Any] | None = None,
           path: Path | None = None) -> Path:
    """Print ``rows`` as a table and write them (with the environment) to results/NAME.json.

    ``path`` writes elsewhere instead: smoke runs (``--quick``) must not replace the results of record.
    """
    table = Table(title=title)
    for column in rows[0]:
        table.add_column(str(column), justify="right")
    for row in rows:
        table.add_row(*[_cell(v) for v in row.values()])
    Console(width=160).print(table)
    path = RESULTS / f"{name}.json" if path is None else Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": name, "environment": environment(), **(extra or {}), "rows": rows}
    path.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return path


def quick_path(name: str) -> Path:
    """Where a ``--quick`` smoke run writes its JSON: the temporary folder, not ``benchmarks/results/``."""
    return Path(tempfile.gettempdir()) / f"starchart-{name}-quick.json"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
