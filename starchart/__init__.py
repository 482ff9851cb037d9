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
  :func:`input_sensitivity` (all in :mod:`starchart.analyses`);
- :mod:`starchart.datasets` — real measured tuning spaces that ship with the package, or are fetched once;
- :mod:`starchart.carve` (optimization carving), :mod:`starchart.msp` (minimum-saturation-point tuning),
  :mod:`starchart.xapp` (GPU speedup predicted from C code).

>>> import starchart
>>> starchart.tradeoff.__module__, starchart.compare_platforms.__module__
('starchart.analyses.tradeoff', 'starchart.analyses.platforms')
"""

from importlib import import_module as _import_module
from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _version

from starchart import _compat
from starchart.errors import InputError, NotFittedError, SpaceError, StarchartError

_compat.install()  # the old module paths (starchart.runner, starchart.explore.search, ...) keep working

try:
    __version__ = _version("starchart")
except _PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

# Every other name loads on first use (pandas, numba, matplotlib behind them), so that `import starchart`
# and the `starchart` program start quickly: `starchart --help` does not wait for numba.
_LAZY = {"Dataset": "starchart.dataset", "load": "starchart.io.load", "Space": "starchart.space",
         "StarchartTree": "starchart.tree", "StarchartForest": "starchart.tree",
         "cross_validated_error": "starchart.tree", "fit_pruned": "starchart.tree", "prune": "starchart.tree",
         "Evaluator": "starchart.measure", "Measurement": "starchart.measure",
         "run": "starchart.study.runner", "Store": "starchart.study.store",
         "search": "starchart.strategies.search", "resume_search": "starchart.strategies.search",
         "choose_sample_size": "starchart.analyses.sample_size", "tradeoff": "starchart.analyses.tradeoff",
         "merge_platforms": "starchart.analyses.platforms", "compare_platforms": "starchart.analyses.platforms",
         "input_sensitivity": "starchart.analyses.inputs", "compare_models": "starchart.analyses.models",
         "StarchartStrategy": "starchart.integrations.kernel_tuner_strategy",
         "StarchartSampler": "starchart.integrations.optuna_sampler"}

__all__ = ["InputError", "NotFittedError", "SpaceError", "StarchartError", "__version__", *_LAZY]


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(_import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later lookups are plain attribute reads
        return value
    moved = _compat.moved_attribute(__name__, name)  # a module that moved: starchart.runner, ...
    if moved is not None:
        return moved
    if name in _PACKAGES:  # listed by dir(): `starchart.datasets` works without importing it first
        return _import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'starchart' has no attribute {name!r}")


#: The subpackages and modules ``dir(starchart)`` lists beside the public names.
_PACKAGES = ("analyses", "carve", "cli", "dataset", "datasets", "errors", "integrations", "io", "measure", "msp",
             "report", "space", "strategies", "study", "tree", "xapp")


def __dir__() -> list[str]:
    # the public names and the subpackages, not this module's helpers
    return sorted({*__all__, *_PACKAGES})
