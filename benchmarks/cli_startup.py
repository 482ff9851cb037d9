"""How fast the ``starchart`` program starts, against a bare Python, side by side in one run.

    python benchmarks/cli_startup.py [--runs 15]

Each command is started ``--runs`` times, the commands taking turns (``starchart --help``, ``python -c pass``,
``import starchart``, a command's own help) so that a drift in the machine's speed touches all of them alike.
The table gives each command's median wall time and its ratio to ``python -c pass``; the JSON goes to
``benchmarks/results/cli_startup.json``. The CLI is a leaf that loads its commands' modules on use, so
``--help`` imports neither numpy nor pandas nor matplotlib (the test ``tests/cli/test_cli_startup.py``
asserts that; this measures what it buys).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from common import report

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import starchart": [sys.executable, "-c", "import starchart"],
    "starchart --help": [sys.executable, "-m", "starchart", "--help"],
    "starchart tree --help": [sys.executable, "-m", "starchart", "tree", "--help"],
}


def wall_seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="starts of each command (default 15)")
    args = parser.parse_args()
    for argv in COMMANDS.values():  # warm the file cache and the byte-code caches first
        wall_seconds(argv)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, argv in COMMANDS.items():
            times[name].append(wall_seconds(argv))
    base = statistics.median(times["python -c pass"])
    rows = [{"command": name, "median_s": statistics.median(runs), "min_s": min(runs), "max_s": max(runs),
             "ratio_to_python": statistics.median(runs) / base} for name, runs in times.items()]
    report("cli_startup", f"Start-up, median of {args.runs} runs each (ratio to python -c pass)", rows,
           extra={"runs": args.runs, "command": "python benchmarks/cli_startup.py --runs " + str(args.runs)})


if __name__ == "__main__":
    main()
