"""``python -m starchart.cli``: the same program as ``starchart``."""

from starchart.cli import main

main()
