"""mypy against a committed baseline that may only shrink.

    python .ci/mypy_baseline.py            # fails on any error not in .ci/mypy-baseline.txt
    python .ci/mypy_baseline.py --update   # after fixing errors: write the smaller baseline

Errors are compared without line numbers (``path: [code] message``), so moving code does not churn
the baseline; each distinct error is counted, so a second copy of a known error is new.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path

BASELINE = Path(__file__).with_name("mypy-baseline.txt")
ERROR = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: error: (?P<message>.*?)\s+\[(?P<code>[\w-]+)\]$")


def current_errors() -> list[str]:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context",
                           "--no-pretty", "--show-error-codes"], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"mypy did not run:\n{done.stdout}{done.stderr}")
    errors = []
    for line in done.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            errors.append(f"{match['path']}: [{match['code']}] {match['message']}")
    return sorted(errors)


def main() -> int:
    errors = current_errors()
    if "--update" in sys.argv:
        BASELINE.write_text("".join(f"{e}\n" for e in errors))
        print(f"wrote {BASELINE} ({len(errors)} errors)")
        return 0
    known = collections.Counter(BASELINE.read_text().splitlines()) if BASELINE.exists() else collections.Counter()
    now = collections.Counter(errors)
    new = now - known
    fixed = known - now
    for error in sorted(new.elements()):
        print(f"new mypy error: {error}")
    if new:
        print(f"{sum(new.values())} new mypy error(s): fix them (the baseline may only shrink)")
        return 1
    if fixed:
        print(f"{sum(fixed.values())} baseline error(s) fixed: run python .ci/mypy_baseline.py --update and commit it")
        return 1
    print(f"mypy: {len(errors)} known errors, none new")
    return 0


if __name__ == "__main__":
    sys.exit(main())
