"""Features of a whole corpus, ready for the XAPP models.

:func:`corpus_features` computes the static (or dynamic) features of every corpus kernel
and :func:`training_frame` joins them to the measured speedups. Kernels the analysis
rejects are left out and listed, never silently dropped.

Examples
--------
>>> from starchart.xapp.corpus import Corpus
>>> features = corpus_features(Corpus.load("corpus"), progress=False)   # doctest: +SKIP
>>> features.frame.loc["saxpy", "coalesced"], features.skipped             # doctest: +SKIP
(1.0, {})
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from rich.progress import Progress

from starchart._util.files import write_json_atomic
from starchart.errors import InputError, StarchartError
from starchart.xapp.corpus import Corpus, CorpusKernel
from starchart.xapp.dynamic.features import measure
from starchart.xapp.encoding import HOST_FEATURE
from starchart.xapp.pragmas import scan_pragmas
from starchart.xapp.static import static_analysis
from starchart.xapp.toolchain import clang_command

__all__ = ["CorpusFeatures", "corpus_features", "training_frame", "kernel_band_line", "features_file",
           "code_sha256", "static_row", "dynamic_row"]

KINDS = ("static", "dynamic")
#: Recorded dynamic rows of an older version are measured again (2: ``host_steps`` added).
DYNAMIC_VERSION = 2
_XAPP_PRAGMA = re.compile(r"^\s*#\s*pragma\s+xapp\b")
_BAND = re.compile(r"\bparallel\b")


@dataclass
class CorpusFeatures:
    """Feature rows of the kernels that could be analysed, and why the others could not."""

    frame: pd.DataFrame
    skipped: dict[str, str] = field(default_factory=dict)


def kernel_band_line(kernel: CorpusKernel) -> int | None:
    """The band loop's line to give the analysers (None: they find the file's one band pragma).

    ``CorpusKernel.band_line`` is the line of a ``#pragma xapp parallel`` (kernel.yaml may pick
    one of several); the analysers take the line of the loop that pragma annotates.
    """
    if kernel.band_line is None:
        return None

    for pragma in scan_pragmas(kernel.c_path.read_text(), str(kernel.c_path)):
        if pragma.line == kernel.band_line and pragma.parallel:
            return pragma.target_line
    raise InputError(f"line {kernel.band_line} holds no '#pragma xapp parallel'", where=kernel.c_path,
                     hint="band_line in kernel.yaml names the line of the band pragma")


def corpus_features(corpus: Corpus, kind: str = "static", *, kernels: Sequence[str] | None = None,
                    progress: bool = True, small: bool = False, cache: bool = True,
                    extract: Callable[[CorpusKernel], dict[str, float]] | None = None) -> CorpusFeatures:
    """Features of the corpus kernels: ``.frame`` (one row per kernel, index ``kernel``) and
    ``.skipped`` (the kernels left out, with why).

    Parameters
    ----------
    corpus:
        A loaded :class:`~starchart.xapp.corpus.Corpus`.
    kind:
        ``"static"`` (from the C file's IR) or ``"dynamic"`` (an instrumented run with the
        kernel's ``args``, the input its times were measured on; ``small=True`` uses
        ``small_args`` instead, for a quick look only: its features do not match the times).
    kernels:
        Only these kernels (default: all).
    progress:
        Show a progress bar.
    cache:
        Record the features in the corpus's feature file (``features/<kind>.json``): each
        dynamic row as soon as it is computed, the static rows at the end and only when one
        changed (no time stamps, so the file's diff shows what changed). Dynamic features are
        also read back from it: a
        kernel whose C file and arguments are unchanged is not run again (instrumented
        runs take minutes; a killed run resumes). Static features are always recomputed
        (milliseconds), so a newer analyser never meets old rows.
    extract:
        Replace the feature function (tests; implies ``cache=False``).
    """
    if kind not in KINDS:
        raise InputError(f"unknown feature kind {kind!r}", where="--features", hint="use static or dynamic")
    chosen = corpus.kernels if kernels is None else [corpus.kernel(name) for name in kernels]
    if extract is not None or small:
        cache = False
    if extract is None:
        extract = _static if kind == "static" else (_dynamic_small if small else _dynamic)
    path = features_file(corpus, kind)
    stored = _read_cache(path) if cache else {}
    rows: dict[str, dict[str, float]] = {}
    skipped: dict[str, str] = {}

    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task(f"{kind} features", total=len(chosen))
        for kernel in chosen:
            bar.update(task, description=f"{kind} features: {kernel.name}")
            key = {"code_sha256": code_sha256(kernel.c_path), "args": list(kernel.args), "version": DYNAMIC_VERSION}
            hit = stored.get(kernel.name)
            if kind == "dynamic" and hit is not None and all(hit.get(k) == v for k, v in key.items()):
                rows[kernel.name] = hit["features"]
            else:
                try:
                    rows[kernel.name] = extract(kernel)
                except StarchartError as exc:
                    skipped[kernel.name] = str(exc)
                else:
                    if cache and kind == "dynamic":  # minutes each: keep every one as it arrives
                        stored[kernel.name] = {**key, "features": rows[kernel.name],
                                               "computed": dt.datetime.now(dt.timezone.utc).isoformat()}
                        cache = _write_cache(path, kind, stored)  # warn once, not per kernel
            bar.advance(task)
    if cache and kind == "static" and rows:
        # no time stamps: the file changes only when a feature does, so its diff is worth reading
        recorded = {**stored, **{name: {"code_sha256": code_sha256(corpus.kernel(name).c_path),
                                        "features": features} for name, features in rows.items()}}
        if recorded != stored:
            _write_cache(path, kind, recorded)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "kernel"
    return CorpusFeatures(frame, skipped)


def code_sha256(path: Path) -> str:
    r"""SHA-256 of a C file's code: its ``#pragma xapp`` lines left out, the band's place kept.

    Annotations (trip counts, probabilities, an added inner-band pragma line) do not change
    what a run executes, so editing them keeps recorded dynamic features valid; moving the
    band pragma to another loop changes the hash.

    >>> import tempfile, pathlib
    >>> a, b, c = (pathlib.Path(tempfile.mkdtemp()) / n for n in ("a.c", "b.c", "c.c"))
    >>> _ = a.write_text("#pragma xapp parallel\nfor(;;)\nfor(;;);\n")
    >>> _ = b.write_text("#pragma xapp parallel trip(64)\nfor(;;)\n#pragma xapp trip(8)\nfor(;;);\n")
    >>> _ = c.write_text("for(;;)\n#pragma xapp parallel\nfor(;;);\n")
    >>> code_sha256(a) == code_sha256(b), code_sha256(a) == code_sha256(c)
    (True, False)
    """
    code: list[str] = []
    for line in Path(path).read_text().splitlines():
        if _XAPP_PRAGMA.match(line):
            if _BAND.search(line):
                code.append(f"<band at code line {len(code)}>")
            continue
        code.append(line)
    return hashlib.sha256("\n".join(code).encode()).hexdigest()


def features_file(corpus: Corpus, kind: str) -> Path:
    """Where a corpus keeps its computed features of one kind."""
    return corpus.root / "features" / f"{kind}.json"


def _read_cache(path: Path) -> dict[str, dict]:
    if not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(f"feature file is not JSON ({exc})", where=path,
                         hint="delete it; the features are computed again") from None
    kernels = doc.get("kernels") if isinstance(doc, dict) else None
    if not isinstance(kernels, dict):
        raise InputError("feature file has no 'kernels' mapping", where=path,
                         hint="delete it; the features are computed again")
    return kernels


def _write_cache(path: Path, kind: str, kernels: dict[str, dict]) -> bool:
    """Record the features; False (and a warning) when the file cannot be written.

    A read-only corpus made train/evaluate fail after every feature was computed: the file
    is a record and a resume point, not needed for the answer."""
    try:
        # atomic: a killed run leaves the previous complete file
        write_json_atomic(path, {"format": "xapp-corpus-features/1", "kind": kind,
                                 "clang": " ".join(clang_command()), "kernels": dict(sorted(kernels.items()))})
    except OSError as exc:
        warnings.warn(f"cannot record the {kind} features in {path} ({exc.strerror or exc}); going on without "
                      "(a killed run will compute them again)", UserWarning, stacklevel=3)
        return False
    return True


def training_frame(corpus: Corpus, features: CorpusFeatures) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The feature rows and the measured table of the kernels that have both.

    Raises
    ------
    InputError
        When no kernel has a measured speedup (the GPU side is not measured yet).
    """
    labelled = corpus.labelled()
    common = [name for name in features.frame.index if name in labelled.index]
    if not common:
        raise InputError(
            "no corpus kernel has a measured speedup yet (both sides measured, checksums agreeing)",
            where=corpus.root,
            hint="measure the GPU side on a machine with an NVIDIA GPU: "
                 "python -m starchart.xapp.measure_corpus CORPUS --side gpu",
        )
    return features.frame.loc[common], labelled.loc[common]


def static_row(path: str | Path, band_line: int | None = None, **options: Any) -> dict[str, float]:
    """The 10 static features of a C file and ``host_steps``, the launches the loops around its band make."""
    analysis = static_analysis(path, band_line, **options)
    return {**analysis.features, HOST_FEATURE: analysis.host_steps}


def dynamic_row(path: str | Path, args: Sequence[object], band_line: int | None = None,
                **options: Any) -> dict[str, float]:
    """The dynamic features of one run and ``host_steps``, the times the band loop was entered."""
    run = measure(path, args, band_line, **options)
    return {**run.features, HOST_FEATURE: float(run.region_entries)}


def _static(kernel: CorpusKernel) -> dict[str, float]:
    return static_row(kernel.c_path, kernel_band_line(kernel))


def _dynamic(kernel: CorpusKernel, args: Sequence[int] | None = None) -> dict[str, float]:
    # one execution of the region, as the measured time is per repeat (the harness repeats it)
    with _environment(XAPP_REPEATS="1"):
        return dynamic_row(kernel.c_path, kernel.args if args is None else args, kernel_band_line(kernel),
                           timeout=3600.0)


@contextlib.contextmanager
def _environment(**values: str):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _dynamic_small(kernel: CorpusKernel) -> dict[str, float]:
    return _dynamic(kernel, kernel.small_args)
