"""The ``starchart`` program's entry point (also ``python -m starchart``).

It imports the command line inside a guard: the commands' modules take most of a second to load, and
Ctrl-C in that time printed a traceback instead of stopping quietly as it does later.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Run the ``starchart`` command line (:func:`starchart.cli.main`); Ctrl-C while it loads exits 130."""
    try:
        from starchart.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("\nstopped before starting.\n")
        raise SystemExit(130) from None
    cli_main(argv)


if __name__ == "__main__":
    main()
