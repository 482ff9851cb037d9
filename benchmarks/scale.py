"""Benchmark: a demanding user's large studies — how long each step takes and how much memory it needs.

The data (generated in a temporary folder from a seeded generator; a GEMM-like space of 8 parameters,
1.4 million valid configurations, one restriction):

- ``study.db``: a store of 200,000 measurements (5 repeats of ``time`` and ``power`` each, about 4 %
  failed — compile, runtime, timeout — with their reasons), planned for 200,010: ``starchart resume`` has
  10 left to measure, as after a week of tuning stopped near its end;
- ``cache.json``: a Kernel Tuner 1.5 cache of 200,000 configurations (7 repeats, timing fields,
  failures as error strings), one entry per line as Kernel Tuner writes it;
- ``results.t4.json``: the same 200,000 configurations as T4 results;
- ``big.csv``: 1,000,000 configurations (``time``, ``power``, ``status``, ``reason``);
- the largest shared datasets: ``gemm/RTX_3090.json.gz`` and ``dedispersion/A100.json.gz``.

Each case runs in a child process (``--child``), which reports the seconds of the step alone (imports
and set-up excluded) and its peak memory (``ru_maxrss`` at the end minus the resident size before the
step). ``Store.add`` is timed per result over blocks of 1,000 while a fresh store grows to 300,000.
``starchart resume`` is timed up to the first call of the measured function and to the end.

``--old ROOT`` runs every case also with the package under ROOT (e.g. the last commit extracted by
``git archive HEAD starchart | tar -x -C ROOT``), old and new interleaved, and checks that both give
the same result: the same dataset (a digest of its frame and metadata) and byte-identical exported files.

Run ``python benchmarks/scale.py [--old ROOT] [--repeats 3]`` (``--quick``: small sizes, JSON in the
temporary folder); prints a table and writes ``benchmarks/results/scale.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The synthetic study's space: a tiled GEMM-like kernel, 8 parameters, one restriction.
PARAMETERS: dict[str, list[Any]] = {
    "block_size_x": [16, 32, 64, 128, 256, 512, 1024], "block_size_y": [1, 2, 4, 8, 16, 32, 64],
    "tile_size_x": list(range(1, 33)), "tile_size_y": list(range(1, 33)), "loop_unroll": [0, 1, 2, 4],
    "use_shared": [0, 1], "vector": [1, 2, 4], "precision": ["f32", "f16"]}
RESTRICTIONS = ["block_size_x * block_size_y <= 1024"]
SIZES = {"full": {"store": 200_000, "growth": 300_000, "cache": 200_000, "csv": 1_000_000},
         "quick": {"store": 4_000, "growth": 6_000, "cache": 4_000, "csv": 20_000}}
LEFT = 10  # configurations a resumed study still has to measure
SEED = 20240601
REASONS = {"compile": "ptxas error   : Entry function 'gemm' uses too much shared data (0x{:x} bytes, 0xc000 max)",
           "runtime": "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch",
           "timeout": "timed out after 10 s"}

KERNEL_MODULE = '''"""The measured function of the synthetic study (written by benchmarks/scale.py)."""
import time

FIRST = None  # perf_counter() at the first call: when the first new measurement started


def measure(config):
    global FIRST
    if FIRST is None:
        FIRST = time.perf_counter()
    work = config["tile_size_x"] * config["tile_size_y"] * config["vector"]
    return {"time": 0.5 + work / (config["block_size_x"] * config["block_size_y"]), "power": 150.0 + work % 50}
'''


# ---------------------------------------------------------------------- synthetic data
def valid_codes() -> list[np.ndarray]:
    """Every valid configuration of the space as digit arrays (index into each parameter's values)."""
    radices = [len(v) for v in PARAMETERS.values()]
    grid = np.indices(radices).reshape(len(radices), -1)
    bx = np.asarray(PARAMETERS["block_size_x"])[grid[0]]
    by = np.asarray(PARAMETERS["block_size_y"])[grid[1]]
    keep = bx * by <= 1024
    return [row[keep] for row in grid]


def synthetic(digits: list[np.ndarray], rng: np.random.Generator, repeats: int) -> dict[str, Any]:
    """Columns of one synthetic measurement per configuration: parameter values, per-repeat times and powers,
    statuses (about 4 % failed) and reasons."""
    values = {name: np.asarray(vals, dtype=object)[d] for (name, vals), d in zip(PARAMETERS.items(), digits)}
    bx, by = (np.asarray(PARAMETERS[p])[d] for p, d in zip(("block_size_x", "block_size_y"), digits[:2]))
    tx, ty = digits[2] + 1, digits[3] + 1
    vec = np.asarray(PARAMETERS["vector"])[digits[6]]
    threads = bx * by
    base = 0.2 + 40.0 / np.sqrt(threads * tx * ty) + 0.002 * tx * ty * vec + 0.3 * (digits[5] == 0)
    base *= np.where(digits[7] == 1, 0.7, 1.0) * (1 + 0.05 * digits[4])
    n = len(base)
    times = base[:, None] * rng.lognormal(0.0, 0.03, size=(n, repeats))
    power = 120 + 80 * np.tanh(threads / 256)[:, None] + rng.normal(0, 2, size=(n, repeats))
    status = np.full(n, "ok", dtype=object)
    shared = tx * ty * vec * by * 16
    status[shared > 0xC000 * 6] = "compile"
    draw = rng.random(n)
    status[(status == "ok") & (draw < 0.015)] = "runtime"
    status[(status == "ok") & (draw > 0.995)] = "timeout"
    reason = np.array([REASONS[s].format(int(b)) if s != "ok" else "" for s, b in zip(status, shared)], dtype=object)
    return {"params": values, "times": np.round(times, 6), "power": np.round(power, 3), "status": status,
            "reason": reason, "compile_s": np.round(rng.uniform(0.3, 2.5, n), 4)}


def generate(folder: Path, sizes: dict[str, int]) -> dict[str, Any]:
    """Write the synthetic files into ``folder``; returns their paths and sizes."""
    import pandas as pd

    from starchart.measure import Measurement, PythonEvaluator
    from starchart.space import Space
    from starchart.study.runner import session_record
    from starchart.study.store import Store

    rng = np.random.default_rng(SEED)
    (folder / "scale_kernel.py").write_text(KERNEL_MODULE)
    sys.path.insert(0, str(folder))
    import scale_kernel

    space = Space(PARAMETERS, RESTRICTIONS)
    # the store: the sample `starchart run` draws, all but LEFT of it measured
    planned = sizes["store"] + LEFT
    seed = 7
    sample = space.sample(planned, seed=seed)
    skip = set(rng.choice(planned, size=LEFT, replace=False).tolist())
    rows = sample.drop(index=sample.index[sorted(skip)])
    digits = [pd.Index(vals).get_indexer(rows[name].tolist()) for name, vals in PARAMETERS.items()]
    data = synthetic(digits, rng, repeats=5)
    evaluator = PythonEvaluator(scale_kernel.measure, metrics=["time", "power"], repeats=5)
    evaluator.path = str(folder)
    store_path = folder / "study.db"
    with Store.open(store_path) as store:
        store.put("space", space.to_dict())
        store.put("evaluator", evaluator.describe())
        store.put("plan", {"samples": planned, "seed": seed})
        store.add_session(session_record(evaluator))
        names = list(PARAMETERS)
        with store.transaction():
            for i in range(len(rows)):
                config = {name: data["params"][name][i] for name in names}
                config = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in config.items()}
                if data["status"][i] == "ok":
                    m = Measurement(config, values={"time": data["times"][i].tolist(), "power": data["power"][i].tolist()},
                                    compile_s=float(data["compile_s"][i]), run_s=float(data["times"][i].sum() / 1e3),
                                    overhead_s=0.0004)
                else:
                    m = Measurement.failure(config, data["status"][i], data["reason"][i],
                                            compile_s=float(data["compile_s"][i]), overhead_s=0.0004)
                store.add(m)
    # the files of other tools: distinct configurations drawn from every valid one
    everything = valid_codes()
    count = len(everything[0])
    picks = rng.choice(count, size=max(sizes["cache"], sizes["csv"]), replace=False)
    cache_digits = [d[picks[:sizes["cache"]]] for d in everything]
    _write_cache(folder / "cache.json", cache_digits, rng)
    _write_t4(folder / "results.t4.json", cache_digits, rng)
    csv_digits = [d[picks[:sizes["csv"]]] for d in everything]
    csv = synthetic(csv_digits, rng, repeats=1)
    frame = pd.DataFrame(csv["params"])
    ok = csv["status"] == "ok"
    frame["time"] = np.where(ok, csv["times"][:, 0], np.nan)
    frame["power"] = np.where(ok, csv["power"][:, 0], np.nan)
    frame["status"], frame["reason"] = csv["status"], csv["reason"]
    frame.to_csv(folder / "big.csv", index=False)
    return {"valid configurations": count, **{f"{k} size": v for k, v in sizes.items()},
            **{f"{p.name} MB": round(p.stat().st_size / 2**20, 1) for p in sorted(folder.iterdir()) if p.is_file()}}


def _write_cache(path: Path, digits: list[np.ndarray], rng: np.random.Generator) -> None:
    """A Kernel Tuner 1.5 cache, one entry per line as Kernel Tuner writes it."""
    data = synthetic(digits, rng, repeats=7)
    names = list(PARAMETERS)
    header = {"device_name": "NVIDIA A100-PCIE-40GB", "kernel_name": "gemm", "problem_size": [4096, 4096],
              "tune_params_keys": names, "tune_params": PARAMETERS, "objective": "time", "cache": {}}
    lines = [json.dumps(header)[:-2]]
    flops = 2 * 4096**3 / 1e6
    for i in range(len(data["status"])):
        config = {n: (v.item() if isinstance(v, np.generic) else v) for n in names for v in [data["params"][n][i]]}
        entry: dict[str, Any] = dict(config)
        if data["status"][i] == "ok":
            times = data["times"][i].tolist()
            entry.update(time=float(np.mean(times)), times=times, **{"GFLOP/s": round(flops / np.mean(times), 3)})
        else:
            entry["time"] = {"compile": "CompilationFailedConfig"}.get(data["status"][i], "RuntimeFailedConfig")
        entry.update(compile_time=float(data["compile_s"][i] * 1e3), verification_time=0,
                     benchmark_time=float(data["times"][i].sum()), strategy_time=0, framework_time=2.1,
                     timestamp="2024-06-01 12:00:00.000000+00:00")
        key = ",".join(str(v) for v in config.values())
        lines.append(f"\n{json.dumps(key)}: {json.dumps(entry)},")
    path.write_text("".join(lines).removesuffix(",") + "}\n}\n")


def _write_t4(path: Path, digits: list[np.ndarray], rng: np.random.Generator) -> None:
    data = synthetic(digits, rng, repeats=7)
    names = list(PARAMETERS)
    results = []
    for i in range(len(data["status"])):
        config = {n: (v.item() if isinstance(v, np.generic) else v) for n in names for v in [data["params"][n][i]]}
        status = data["status"][i]
        ok = status == "ok"
        times = data["times"][i].tolist()
        measurements = ([{"name": "time", "value": float(np.mean(times)), "unit": "ms"},
                         {"name": "power", "value": float(data["power"][i].mean()), "unit": "W"}] if ok else
                        [{"name": "time", "value": data["reason"][i], "unit": ""}])
        results.append({"configuration": config,
                        "times": {"compilation": float(data["compile_s"][i] * 1e3), "framework": 2.1,
                                  "search_algorithm": 0.0, "validation": 0.0, "runtimes": times if ok else []},
                        "invalidity": {"ok": "correct", "compile": "compile"}.get(status, status),
                        "correctness": 1, "measurements": measurements, "objectives": ["time"]})
    path.write_text(json.dumps({"schema_version": "1.0.0", "results": results,
                                "metadata": {"timeunit": "milliseconds", "device_name": "A100"}}))


# ---------------------------------------------------------------------- the cases (run in a child process)
def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def _rss_mb() -> float:
    """The resident size now, the peak reset to it (so that :func:`_peak` sees the step's own peak)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM, the peak resident size, to the current
    except OSError:
        pass
    return _status_mb("VmRSS")


def _digest(ds: Any) -> str:
    """A digest of a dataset: its columns, values (repeats included) and metadata."""
    text = json.dumps([ds.params, ds.metrics, {k: str(v) for k, v in ds.frame.dtypes.items()},
                       ds.meta], default=str, sort_keys=True)
    return hashlib.sha256(text.encode() + ds.frame.to_csv().encode()).hexdigest()[:16]


def _quiet_cli(argv: list[str]) -> int:
    """Run the starchart CLI with its output thrown away; returns the exit status."""
    import contextlib

    from starchart.cli import main

    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            main(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
    return 0


def child(case: str, folder: Path, arg: str) -> dict[str, Any]:
    """Run one case; returns its seconds, peak memory above the start, and what to compare."""
    import starchart.cli.data  # imported before timing
    from starchart.space import Space
    from starchart.study.store import Store

    out: dict[str, Any] = {}
    if case == "add":  # Store.add per result while a fresh store grows to int(arg)
        from starchart.measure import Measurement

        n = int(arg)
        rng = np.random.default_rng(SEED + 1)
        everything = valid_codes()
        picks = rng.choice(len(everything[0]), size=n, replace=False)
        data = synthetic([d[picks] for d in everything], rng, repeats=5)
        names = list(PARAMETERS)
        measurements = []
        for i in range(n):
            config = {k: (v.item() if isinstance(v, np.generic) else v)
                      for k in names for v in [data["params"][k][i]]}
            measurements.append(Measurement(config, values={"time": data["times"][i].tolist(),
                                                            "power": data["power"][i].tolist()},
                                            compile_s=float(data["compile_s"][i])) if data["status"][i] == "ok" else
                                Measurement.failure(config, data["status"][i], data["reason"][i]))
        path = folder / f"growth-{os.getpid()}.db"
        before = _rss_mb()
        blocks = []
        start = time.perf_counter()
        with Store.open(path) as store:
            for at in range(0, n, 1000):
                t0 = time.perf_counter()
                for m in measurements[at:at + 1000]:
                    store.add(m)
                blocks.append((time.perf_counter() - t0) / len(measurements[at:at + 1000]))
        seconds = time.perf_counter() - start
        for name in ("", "-wal", "-shm"):
            Path(f"{path}{name}").unlink(missing_ok=True)
        edge = max(1, len(blocks) // 30)  # the first and the last 10,000 results of 300,000
        out.update(first_us=1e6 * float(np.median(blocks[:edge])), last_us=1e6 * float(np.median(blocks[-edge:])))
        return {"seconds": seconds, "peak_mb": _peak(before), **out}
    if case == "resume":
        sys.path.insert(0, str(folder))
        import scale_kernel

        before = _rss_mb()
        start = time.perf_counter()
        status = _quiet_cli(["resume", arg])
        seconds = time.perf_counter() - start
        first = scale_kernel.FIRST
        with Store.open(arg, read_only=True) as store:
            out["stored"] = len(store)
        return {"seconds": seconds, "peak_mb": _peak(before), "status": status,
                "to_first_s": None if first is None else first - start, **out}
    if case in ("info", "export"):
        argv = ["info", arg] if case == "info" else ["export", str(folder / "study.db"), "-o", arg]
        before = _rss_mb()
        start = time.perf_counter()
        status = _quiet_cli(argv)
        seconds = time.perf_counter() - start
        if case == "export":
            out["sha256"] = hashlib.sha256(Path(arg).read_bytes()).hexdigest()[:16]
        return {"seconds": seconds, "peak_mb": _peak(before), "status": status, **out}
    if case in ("load", "to_dataset", "from_dataset"):
        import starchart

        before = _rss_mb()
        start = time.perf_counter()
        if case == "to_dataset":
            with Store.open(arg, read_only=True) as store:
                ds = store.to_dataset()
        else:
            ds = starchart.load(arg)
        seconds = time.perf_counter() - start
        peak = _peak(before)
        if case == "from_dataset":
            before = _rss_mb()
            start = time.perf_counter()
            space = Space.from_dataset(ds)
            seconds = time.perf_counter() - start
            peak = _peak(before)
            out["digest"] = hashlib.sha256(f"{space.size()} {space.tune_params}".encode()).hexdigest()[:16]
        else:
            out["digest"] = _digest(ds)
        return {"seconds": seconds, "peak_mb": peak, "rows": len(ds), **out}
    raise SystemExit(f"unknown case {case}")


def _peak(before: float) -> float:
    """The peak resident size since :func:`_rss_mb` returned ``before``, above it (MB)."""
    peak = _status_mb("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return peak - before


# ---------------------------------------------------------------------- the parent
def run_child(root: Path, case: str, folder: Path, arg: str) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", case, str(folder), arg],
                          env=env, capture_output=True, text=True, cwd=folder, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result = json.loads(lines[-1][len("RESULT "):]) if lines else {}
    if done.returncode or not lines or result.get("status", 0) != 0:
        raise SystemExit(f"case {case} {arg} with {root} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return result


def cases(folder: Path, sizes: dict[str, int]) -> list[tuple[str, str, str, str]]:
    """(label, case, argument, output file to compare or "") of every measured step."""
    gemm = ROOT.parent / "shared" / "datasets" / "gemm" / "RTX_3090.json.gz"
    dedisp = ROOT.parent / "shared" / "datasets" / "dedispersion" / "A100.json.gz"
    db = str(folder / "study.db")
    rows = [
        (f"Store.add, fresh store to {sizes['growth']:,}", "add", str(sizes["growth"]), ""),
        (f"Store.to_dataset ({sizes['store']:,} results)", "to_dataset", db, ""),
        ("starchart.load(study.db)", "load", db, ""),
        ("starchart info study.db", "info", db, ""),
        ("starchart export -o x.csv", "export", str(folder / "out-{v}.csv"), "csv"),
        ("starchart export -o cache.json", "export", str(folder / "out-{v}.json"), "json"),
        ("starchart export -o out.t4.json", "export", str(folder / "out-{v}.t4.json"), "t4"),
        (f"starchart resume ({LEFT} left)", "resume", str(folder / "resume-{v}.db"), ""),
        (f"load Kernel Tuner cache ({sizes['cache']:,})", "load", str(folder / "cache.json"), ""),
        ("Space.from_dataset(cache)", "from_dataset", str(folder / "cache.json"), ""),
        ("starchart info cache.json", "info", str(folder / "cache.json"), ""),
        (f"load T4 ({sizes['cache']:,})", "load", str(folder / "results.t4.json"), ""),
        ("Space.from_dataset(T4)", "from_dataset", str(folder / "results.t4.json"), ""),
        (f"load CSV ({sizes['csv']:,} rows)", "load", str(folder / "big.csv"), ""),
        ("Space.from_dataset(CSV)", "from_dataset", str(folder / "big.csv"), ""),
    ]
    for label, path in (("gemm RTX 3090", gemm), ("dedispersion A100", dedisp)):
        if path.exists():
            rows += [(f"load {label}", "load", str(path), ""), (f"Space.from_dataset({label})", "from_dataset",
                                                                   str(path), "")]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, metavar=("CASE", "FOLDER", "ARG"), help=argparse.SUPPRESS)
    parser.add_argument("--old", type=Path, help="root of the previous package, to compare old and new in one run")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each case (and version); the fastest counts")
    parser.add_argument("--quick", action="store_true", help="small sizes; JSON in the temporary folder")
    parser.add_argument("--only", help="run only the cases whose label contains this text (JSON in the temporary folder)")
    parser.add_argument("--keep", type=Path, help="generate the data into this folder (kept; reused when it is there)")
    args = parser.parse_args()
    if args.child:
        case, folder, arg = args.child
        print("RESULT " + json.dumps(child(case, Path(folder), arg), default=str), flush=True)
        return
    from common import quick_path, report

    sizes = SIZES["quick" if args.quick else "full"]
    versions = {"new": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    with tempfile.TemporaryDirectory(prefix="starchart-scale-") as tmp:
        folder = Path(tmp) if args.keep is None else args.keep.resolve()
        ready = folder / "generated.json"
        if ready.exists():
            generated = json.loads(ready.read_text())
        else:
            folder.mkdir(parents=True, exist_ok=True)
            start = time.perf_counter()
            generated = generate(folder, sizes)
            ready.write_text(json.dumps(generated))
            print(f"generated in {time.perf_counter() - start:.0f} s", flush=True)
        print(f"data: {generated}", flush=True)
        rows = []
        for label, case, arg, compare in cases(folder, sizes):
            if args.only and args.only not in label:
                continue
            results: dict[str, list[dict[str, Any]]] = {v: [] for v in versions}
            repeats = 1 if case == "add" and not args.quick else args.repeats
            for _ in range(repeats):
                for version, root in (reversed(versions.items()) if _ % 2 else versions.items()):
                    target = arg.format(v=version)
                    if case == "resume":
                        for name in ("", "-wal", "-shm"):
                            Path(f"{target}{name}").unlink(missing_ok=True)
                        shutil.copyfile(folder / "study.db", target)
                    results[version].append(run_child(root, case, folder, target))
            row: dict[str, Any] = {"step": label}
            best = {v: min(results[v], key=lambda r: r["seconds"]) for v in versions}
            order = [v for v in ("old", "new") if v in versions]
            for version in order:
                row[f"{version} s"] = best[version]["seconds"]
            if "old" in versions:
                row["speed-up"] = row["old s"] / max(row["new s"], 1e-9)
            for version in order:
                row[f"{version} MB"] = float(np.median([r["peak_mb"] for r in results[version]]))
            for version in order:
                if case == "add":  # per result, at the start and at the end of the growth
                    row[f"{version} detail"] = f"{best[version]['first_us']:.0f}→{best[version]['last_us']:.0f} µs/add"
                elif case == "resume":
                    first = min(r["to_first_s"] for r in results[version])
                    row[f"{version} detail"] = f"1st measurement at {first:.2f} s"
                else:
                    row[f"{version} detail"] = ""
            if "old" in versions:
                row["same result"] = _same(case, results)
            rows.append(row)
            print(row, flush=True)
        if not rows:
            raise SystemExit("no case matches --only")
        report("scale", "A demanding user's large studies: seconds and peak memory (MB above the start) per step",
               _columns(rows), extra={"sizes": sizes, "generated": generated, "repeats": args.repeats,
                                      "old": str(args.old) if args.old else None},
               path=quick_path("scale") if args.quick or args.only else None)  # a part never replaces the record


def _same(case: str, results: dict[str, list[dict[str, Any]]]) -> str:
    """Whether old and new gave the same result: dataset digest, exported bytes, stored count."""
    key = {"export": "sha256", "resume": "stored", "add": None}.get(case, "digest")
    if key is None:
        return "-"
    seen = {str(r.get(key)) for version in results for r in results[version]}
    return "yes" if len(seen) == 1 else f"NO {sorted(seen)}"


def _columns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row with every column (the table takes its columns from the first row)."""
    names: list[str] = []
    for row in rows:
        names += [k for k in row if k not in names]
    return [{k: row.get(k, "") for k in names} for row in rows]


if __name__ == "__main__":
    main()
