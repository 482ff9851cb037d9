"""The band trip counts annotated in the corpus's C files (``#pragma xapp parallel trip(N)``).

Every band bound in the corpus comes from argv, so without an annotation the static
``parallelism`` feature is the analyser's default 2^20 for every kernel. Each C file's band
pragma (and, for a ``parallel(2)`` band, a ``#pragma xapp trip(M)`` line right before the
inner band loop) carries the band loops' trip counts at the kernel's default ``args``.

:data:`TRIPS` gives, for a handful of kernels, the trip count of each band loop (outer
first) per region entry, as a formula in the kernel.yaml ``args``:

==================  =========================  ============================================
kernel              args                       band trip counts
==================  =========================  ============================================
gemv_t              rows, cols                 cols (the band runs over columns)
heat1d              n, steps                   n - 2 (interior points; entered once a step)
matmul              n                          n (rows; the i-k-j C side keeps the columns in a row)
mandelbrot          w, h, maxit                h, w (rows outer, pixels of a row inner)
pointer_chase       nodes, steps, walkers      walkers
lu_decompose        n                          mean over steps k = 0..n-2 of n-1-k = n/2
needleman_wunsch    n                          tiles of 64 x 64 cells, t = ceil(n / 64) per side: mean
                                               over the 2t-1 tile anti-diagonals of their tiles,
                                               t^2 / (2t-1)
stencil3d7          n, sweeps                  n - 2, n - 2 (entered per plane k, per sweep)
==================  =========================  ============================================

The last two ``lu_decompose``/``needleman_wunsch`` counts shrink/grow with the serial step,
so the pragma holds their mean per entry. The dynamic check runs a kernel instrumented at
``small_args`` and compares the header block counts of the band loops with the formula:
outer trip = header count / region entries, inner trip = inner header count / outer
header count (a rotated loop's header runs once per iteration).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from clang_available import HAVE_CLANG, needs_clang

from starchart.xapp.corpus import Corpus
from starchart.xapp.dynamic import measure
from starchart.xapp.pragmas import scan_pragmas
from starchart.xapp.static import static_analysis

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
KERNEL_NAMES = sorted(p.parent.name for p in (CORPUS / "kernels").glob("*/kernel.yaml"))


def _tiles(n: int) -> int:
    """needleman_wunsch's tiles per side (TILE = 64 in its C file)."""
    return -(-n // 64)


#: Band loop trip counts (outer first, mean per region entry) as functions of the kernel's args.
TRIPS: dict[str, Callable[[Sequence[int]], list[float]]] = {
    "gemv_t": lambda a: [a[1]],
    "heat1d": lambda a: [a[0] - 2],
    "matmul": lambda a: [a[0]],
    "mandelbrot": lambda a: [a[1], a[0]],
    "pointer_chase": lambda a: [a[2]],
    "lu_decompose": lambda a: [a[0] / 2],
    "needleman_wunsch": lambda a: [_tiles(a[0]) ** 2 / (2 * _tiles(a[0]) - 1)],
    "stencil3d7": lambda a: [a[0] - 2, a[0] - 2],
}
#: Kernels run instrumented: a 2-loop band with distinct extents, a varying wavefront band
#: entered 2n-1 times, a 2-loop band entered once per plane of every sweep.
MEASURED = ("mandelbrot", "needleman_wunsch", "stencil3d7")


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus.load(CORPUS)


def test_formulas_name_corpus_kernels() -> None:
    assert set(TRIPS) <= set(KERNEL_NAMES) and set(MEASURED) <= set(TRIPS)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_every_band_pragma_carries_its_trip_counts(name: str) -> None:
    """One trip(...) per band loop: on the band pragma and, for parallel(2), before the inner loop."""
    path = CORPUS / "kernels" / name / f"{name}.c"
    text = path.read_text()
    pragmas = scan_pragmas(text, str(path))
    band = next(p for p in pragmas if p.parallel is not None)
    assert band.trip is not None and band.trip >= 1, f"{path}, line {band.line}: no trip(...) on the band pragma"
    if HAVE_CLANG:
        loops = [l for l in static_analysis(path).to_dict()["loops"] if l["role"] == "band"]
        assert len(loops) == band.parallel
        assert all(l["trip_source"] == "pragma" for l in loops), loops


@needs_clang
@pytest.mark.parametrize("name", sorted(TRIPS))
def test_parallelism_is_the_band_formula_at_default_args(corpus: Corpus, name: str) -> None:
    kernel = corpus.kernel(name)
    expected = TRIPS[name](kernel.args)
    analysis = static_analysis(kernel.c_path)
    band = [l["trip"] for l in analysis.to_dict()["loops"] if l["role"] == "band"]
    # a mean per entry is written to four significant digits or more (needleman_wunsch: 4096 / 127 as 32.25)
    assert band == pytest.approx(expected, rel=1e-4)
    assert analysis.features["parallelism"] == pytest.approx(math.prod(expected), rel=1e-4)
    assert analysis.features["parallelism"] != 2.0 ** 20  # not the analyser's default


@needs_clang
@pytest.mark.parametrize("name", MEASURED)
def test_band_header_counts_match_the_formula_at_small_args(corpus: Corpus, name: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XAPP_REPEATS", "1")
    kernel = corpus.kernel(name)
    band_lines = static_analysis(kernel.c_path).band_lines
    run = measure(kernel.c_path, kernel.small_args)
    assert run.band_line == band_lines[0]
    headers = [sum(run.blocks[b][1] for b in run.loop_headers[line]) for line in band_lines]
    enclosing = [run.region_entries, *headers[:-1]]
    measured = [h / e for h, e in zip(headers, enclosing)]
    assert measured == pytest.approx(TRIPS[name](kernel.small_args), rel=1e-12)
    if name == "needleman_wunsch":  # one entry per anti-diagonal of tiles
        assert run.region_entries == 2 * _tiles(kernel.small_args[0]) - 1
    if name == "stencil3d7":  # one entry per interior plane of every sweep
        n, sweeps = kernel.small_args
        assert run.region_entries == sweeps * (n - 2)
