"""starchart: fast, understandable kernel tuning with Starchart regression trees.

The public API:

- :class:`Space` — a tuning space (parameters, restrictions), enumeration and sampling;
- :class:`Dataset` and :func:`load` — measured configurations from any supported format;
- :class:`StarchartTree` — the recursive-partitioning regression tree of Jia et al. (PACT 2013);
- :class:`StarchartForest`, :func:`fit_pruned`, :func:`prune`, :func:`cross_validated_error` — bagged trees,
  cost-complexity pruning sized by cross-validation, and how well a tree predicts unseen configurations;
- :func:`run` and :class:`Store` — resumable measurement studies (evaluators in :mod:`starchart.measure`);
- :func:`search` — the tree-guided search for the best configuration;
- the paper's analyses, loaded on first use: :func:`choose_sample_size` (accuracy vs samples),
  :func:`tradeoff` (power/performance), :func:`merge_platforms` and :func:`compare_platforms`,
  :func:`input_sensitivity` (all in :mod:`starchart.explore`);
- :mod:`starchart.carve` (optimization carving), :mod:`starchart.msp` (minimum-saturation-point tuning).

>>> import starchart
>>> starchart.tradeoff.__module__, starchart.compare_platforms.__module__
('starchart.analyses.tradeoff', 'starchart.analyses.platforms')
"""

import importlib
from typing import Any

from starchart.errors import InputError, SpaceError, StarchartError

# Every other name loads on first use (pandas, numba, matplotlib behind them), so that `import starchart`
# and the `starchart` program start quickly: `starchart --help` does not wait for numba.
_LAZY = {"Dataset": "starchart.dataset", "StarchartForest": "starchart.tree._forest", "search": "starchart.strategies.search",
         "load": "starchart.io.load", "cross_validated_error": "starchart.tree._pruning", "fit_pruned": "starchart.tree._pruning",
         "prune": "starchart.tree._pruning", "run": "starchart.study.runner", "Space": "starchart.space", "Store": "starchart.study.store",
         "StarchartTree": "starchart.tree._tree",
         "choose_sample_size": "starchart.analyses.sample_size", "tradeoff": "starchart.analyses.tradeoff",
         "merge_platforms": "starchart.analyses.platforms", "compare_platforms": "starchart.analyses.platforms",
         "input_sensitivity": "starchart.analyses.inputs", "StarchartStrategy": "starchart.integrations.kernel_tuner_strategy",
         "StarchartSampler": "starchart.integrations.optuna_sampler"}

__all__ = ["InputError", "SpaceError", "StarchartError", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later lookups are plain attribute reads
        return value
    raise AttributeError(f"module 'starchart' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"
