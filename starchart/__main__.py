"""The ``starchart`` program's entry point (also ``python -m starchart``).

It imports the command line inside a guard: the commands' modules take most of a second to load, and
Ctrl-C in that time printed a traceback instead of stopping quietly as it does later.

It also makes the cyclic garbage collector run less often. A command builds its objects once and keeps
most of them (modules, a table of thousands of rows, a tree of thousands of nodes, figures), and with
Python's default threshold (a collection every 700 new container objects) the collector walked that
whole heap over and over: 0.3-0.4 s of a 3 s ``starchart report`` on 17,956 rows. Reference counting
still frees everything that forms no cycle at once; cycles are collected every 10,000 objects instead.
At exit, an ``atexit`` handler freezes the heap before the interpreter's last collection: that collection
over everything the command built took another 0.5 s, to free memory that the exit frees anyway. The
rest of the shutdown (other ``atexit`` handlers, flushing, closing files) runs as usual.
"""

from __future__ import annotations

import atexit
import gc
import sys

#: New container objects between two young-generation collections in the program (Python's default: 700).
GC_THRESHOLD = 10_000


def main(argv: list[str] | None = None) -> None:
    """Run the ``starchart`` command line (:func:`starchart.cli.main`); Ctrl-C while it loads exits 130."""
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    try:
        from starchart.cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("\nstopped before starting.\n")
        raise SystemExit(130) from None
    atexit.register(gc.freeze)  # at exit only: a caller that runs main() in its own process keeps its GC
    cli_main(argv)


if __name__ == "__main__":
    main()
