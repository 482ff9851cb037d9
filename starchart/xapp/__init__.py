"""XAPP: predict what a GPU port of plain C code would gain, before writing it.

Static XAPP (:func:`static_features`, :class:`SpeedupRangeModel`) reads the LLVM IR of a
loop nest marked ``#pragma xapp parallel``; dynamic XAPP (:func:`dynamic_features`,
:class:`SpeedupRegressionEnsemble`) measures an instrumented CPU run. Both learn from a
corpus of kernels timed on a CPU and a GPU (:class:`Corpus`).

The names are imported on first use, so ``import starchart.xapp`` needs neither clang
nor scikit-learn.

Examples
--------
>>> import starchart.xapp as xapp
>>> xapp.__all__[:3]
['Corpus', 'Discretizer', 'SpeedupRangeModel']
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "static_features": "starchart.xapp.static",
    "static_analysis": "starchart.xapp.static",
    "dynamic_features": "starchart.xapp.dynamic.features",
    "SpeedupRangeModel": "starchart.xapp.model",
    "SpeedupRegressionEnsemble": "starchart.xapp.regression",
    "Corpus": "starchart.xapp.corpus",
    "Discretizer": "starchart.xapp.discretize",
    "sweep": "starchart.xapp.sensitivity",
    "project": "starchart.xapp.regions",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'starchart.xapp' has no attribute {name!r}")
