"""``python -m starchart.cli``: the same program as ``starchart``."""

from starchart.__main__ import main

main()
