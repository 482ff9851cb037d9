"""Compatibility package: ``starchart.explore`` was split into :mod:`starchart.analyses`,
:mod:`starchart.strategies` and :mod:`starchart.integrations` (see ``starchart._compat``)."""

from starchart.integrations.kernel_tuner_strategy import StarchartStrategy
from starchart.strategies.search import Best, SearchResult, search

__all__ = ["Best", "SearchResult", "StarchartStrategy", "search"]
