"""Compatibility package: ``starchart.explore`` was split into :mod:`starchart.analyses`,
:mod:`starchart.strategies` and :mod:`starchart.integrations` (see ``starchart._compat``)."""

# The old submodule first: importing it later would set this package's `search` to the module.
from types import ModuleType

import starchart.explore.search  # noqa: F401
from starchart._compat import moved_attribute
from starchart.integrations.kernel_tuner_strategy import StarchartStrategy
from starchart.strategies.search import Best, SearchResult, search

__all__ = ["Best", "SearchResult", "StarchartStrategy", "search"]


def __getattr__(name: str) -> ModuleType:
    moved = moved_attribute(__name__, name)  # starchart.explore.tradeoff and the other moved modules
    if moved is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return moved
