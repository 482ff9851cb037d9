"""starchart: fast, understandable kernel tuning with Starchart regression trees.

The public API:

- :class:`Space` — a tuning space (parameters, restrictions), enumeration and sampling;
- :class:`Dataset` and :func:`load` — measured configurations from any supported format;
- :class:`StarchartTree` — the recursive-partitioning regression tree of Jia et al. (PACT 2013);
- :func:`run` and :class:`Store` — resumable measurement studies (evaluators in :mod:`starchart.measure`).
"""

from starchart.dataset import Dataset
from starchart.errors import InputError, SpaceError, StarchartError
from starchart.io.load import load
from starchart.runner import run
from starchart.space import Space
from starchart.store import Store
from starchart.tree import StarchartTree

__all__ = ["Dataset", "InputError", "Space", "SpaceError", "StarchartError", "StarchartTree", "Store", "load",
           "run"]
__version__ = "0.1.0"
