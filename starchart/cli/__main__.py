"""``python -m starchart.cli``: the same program as ``starchart``."""

from starchart.cli import main

if __name__ == "__main__":
    main()
