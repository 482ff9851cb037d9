"""Exploring a tuning space with Starchart trees: searching for the best configuration, and more."""

from starchart.explore.kernel_tuner_strategy import StarchartStrategy
from starchart.explore.search import Best, SearchResult, search

__all__ = ["Best", "SearchResult", "StarchartStrategy", "search"]
