"""The built-in demo job: a tiled matrix multiply in C, its tuning space and evaluator.

``matmul.c`` (shipped with the package) multiplies two 256 × 256 double matrices
in tiles. Its tuning parameters are compile-time defines: the tile sizes ``TI``,
``TJ``, ``TK``, the ``ORDER`` of the three loops inside a tile (0–5: ``ijk ikj
jik jki kij kji``), the ``UNROLL`` factor of the innermost loop and whether to
``TRANSPOSE_B`` first. They interact the way the Starchart paper's transpose
example does: the loop order decides which matrices are walked with a stride of
a whole row, transposing B turns the bad strides of one order family into good
ones and vice versa, and the tile sizes set the innermost trip count and how much
of the strided data stays in cache. Runtimes span more than an order of magnitude
across the space (2–100 ms, median about 6 ms, at ``-O3`` on a current x86 core;
compiling takes under 0.1 s).

The kernel also takes three code-generation defines that the demo leaves at their
defaults (``OPT`` 2/3, ``VECTORIZE`` 0/1, ``AVX2`` 0/1: GCC options for the kernel
alone, set through pragmas); ``benchmarks/large_space.py`` tunes them too, for a
space of 123,744 designs.

Every configuration computes exactly the same product (the inputs are multiples
of 1/16 and each sum runs in increasing ``k``), so a checksum that differs from
:data:`DEMO_REFERENCE`'s is a wrong answer.

Examples
--------
>>> space = demo_space()
>>> space.names
('TI', 'TJ', 'TK', 'ORDER', 'UNROLL', 'TRANSPOSE_B')
>>> space.size() >= 1000
True
>>> space.is_valid(DEMO_REFERENCE)
True
>>> KERNEL_SOURCE.name, KERNEL_SOURCE.is_file()
('matmul.c', True)
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starchart.measure.c import CEvaluator  # lazy: the demo space needs no compiler
from starchart.space import Space, powers_of_two

if TYPE_CHECKING:
    from starchart.measure.c import CEvaluator

__all__ = ["DEMO_DEFINES", "DEMO_REFERENCE", "DEMO_RESTRICTIONS", "DEMO_TUNE_PARAMS", "KERNEL_SOURCE",
           "demo_evaluator", "demo_space"]


def _kernel_source() -> Path:
    resource = files(__name__).joinpath("matmul.c")
    # Installed packages are plain directories; as_file only copies out of a zip.
    with as_file(resource) as path:
        return Path(path)


#: The demo kernel's C source file (package data).
KERNEL_SOURCE: Path = _kernel_source()

#: Fixed defines of every build: the matrix size.
DEMO_DEFINES: dict[str, Any] = {"N": 256}

#: The tuning parameters: tile sizes, loop order in a tile, innermost unroll, transposed B.
DEMO_TUNE_PARAMS: dict[str, list[int]] = {
    "TI": powers_of_two(4, 256),
    "TJ": powers_of_two(4, 256),
    "TK": powers_of_two(4, 256),
    "ORDER": [0, 1, 2, 3, 4, 5],
    "UNROLL": [1, 2, 4, 8],
    "TRANSPOSE_B": [0, 1],
}

#: Restrictions: unroll at most the innermost loop's trip count (ORDER 0, 2: k innermost;
#: 1, 4: j; 3, 5: i), and a tile of at least 512 multiply-adds, below which the
#: loop overhead of the tiny tiles is all there is to see.
DEMO_RESTRICTIONS: list[str] = [
    "UNROLL <= (TK if ORDER in (0, 2) else TJ if ORDER in (1, 4) else TI)",
    "TI * TJ * TK >= 512",
]

#: The plain configuration whose checksum every other one must reproduce:
#: the naive i-j-k loop nest over the whole matrix (one tile), no unrolling.
#: What each ORDER value means: the order of the three loops inside a tile, outermost first.
ORDER_NAMES: dict[int, str] = {0: "ijk", 1: "ikj", 2: "jik", 3: "jki", 4: "kij", 5: "kji"}


def order_legend() -> str:
    """The ORDER values spelt out, for every output that shows them.

    >>> order_legend()
    'ORDER (loop order in a tile): 0 ijk, 1 ikj, 2 jik, 3 jki, 4 kij, 5 kji'
    """
    return "ORDER (loop order in a tile): " + ", ".join(f"{value} {name}" for value, name in ORDER_NAMES.items())


DEMO_REFERENCE: dict[str, int] = {"TI": 256, "TJ": 256, "TK": 256, "ORDER": 0, "UNROLL": 1,
                                  "TRANSPOSE_B": 0}


def demo_space() -> Space:
    """The demo kernel's tuning space (:data:`DEMO_TUNE_PARAMS` under :data:`DEMO_RESTRICTIONS`).

    Examples
    --------
    >>> demo_space().cartesian_size
    16464
    """
    return Space(DEMO_TUNE_PARAMS, DEMO_RESTRICTIONS)


def demo_evaluator(repeats: int = 5, warmup: int = 1) -> CEvaluator:
    """A :class:`~starchart.measure.c.CEvaluator` that builds and times the demo kernel.

    Each configuration is compiled with ``gcc -O3`` and :data:`DEMO_DEFINES`, run
    once with ``STARCHART_REPEATS = warmup + repeats``, and its checksum compared
    with that of :data:`DEMO_REFERENCE` (the metric is ``time`` in ms).
    """
    return CEvaluator(KERNEL_SOURCE, compiler="gcc", flags=("-O3",), defines=dict(DEMO_DEFINES),
                      metric="time", repeats=repeats, warmup=warmup, reference=dict(DEMO_REFERENCE))
