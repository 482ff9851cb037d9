"""starchart: fast, understandable kernel tuning with Starchart regression trees.

The public API:

- :class:`Space` — a tuning space (parameters, restrictions), enumeration and sampling;
- :class:`Dataset` and :func:`load` — measured configurations from any supported format;
- :class:`StarchartTree` — the recursive-partitioning regression tree of Jia et al. (PACT 2013).
"""

from starchart.dataset import Dataset
from starchart.errors import InputError, SpaceError, StarchartError
from starchart.io.load import load
from starchart.space import Space
from starchart.tree import StarchartTree

__all__ = ["Dataset", "InputError", "Space", "SpaceError", "StarchartError", "StarchartTree", "load"]
__version__ = "0.1.0"
