"""starchart: fast, understandable kernel tuning with Starchart regression trees.

The public API:

- :class:`Space` — a tuning space (parameters, restrictions), enumeration and sampling;
- :class:`Dataset` and :func:`load` — measured configurations from any supported format;
- :class:`StarchartTree` — the recursive-partitioning regression tree of Jia et al. (PACT 2013);
- :class:`StarchartForest`, :func:`fit_pruned`, :func:`prune`, :func:`cross_validated_error` — bagged trees,
  cost-complexity pruning sized by cross-validation, and how well a tree predicts unseen configurations;
- :func:`run` and :class:`Store` — resumable measurement studies (evaluators in :mod:`starchart.measure`);
- :mod:`starchart.explore` (search, sample size, trade-offs, platforms, inputs), :mod:`starchart.carve`
  (optimization carving), :mod:`starchart.msp` (minimum-saturation-point tuning).
"""

from starchart.dataset import Dataset
from starchart.ensemble import StarchartForest
from starchart.errors import InputError, SpaceError, StarchartError
from starchart.explore.search import search
from starchart.io.load import load
from starchart.pruning import cross_validated_error, fit_pruned, prune
from starchart.runner import run
from starchart.space import Space
from starchart.store import Store
from starchart.tree import StarchartTree

__all__ = ["Dataset", "InputError", "Space", "SpaceError", "StarchartError", "StarchartForest", "StarchartTree",
           "Store", "cross_validated_error", "fit_pruned", "load", "prune", "run", "search"]
__version__ = "0.1.0"
