"""The tree-guided search as a Kernel Tuner 1.5 strategy.

Kernel Tuner's ``tune_kernel(..., strategy=...)`` accepts, besides the names of
its own strategies, any object with a callable ``tune(searchspace, runner,
tuning_options)`` attribute. :class:`StarchartStrategy` is such an object::

    from kernel_tuner import tune_kernel
    from starchart.explore.kernel_tuner_strategy import StarchartStrategy

    results, env = tune_kernel("vector_add", source, size, args, tune_params,
                               strategy=StarchartStrategy(seed=1),
                               strategy_options={"max_fevals": 100})

It proposes configurations with :class:`~starchart.explore.search_engine.TreeGuidedOptimizer`
over Kernel Tuner's own enumerated search space and measures them through
Kernel Tuner's ``CostFunc``, so the runner (real, parallel or simulation), the
cache, the objective and its direction, and the budget (``max_fevals``,
``time_limit``) all behave as with Kernel Tuner's strategies. Failed
configurations count against ``max_fevals`` as Kernel Tuner counts them, and the
search learns to avoid their region. Kernel Tuner is not a dependency of
starchart: this module imports it only when a search runs.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from starchart.explore.search_encoding import CandidatePool, Encoding
from starchart.explore.search_engine import SearchOptions, TreeGuidedOptimizer
from starchart.explore.search_prior import prior_dataset, prior_measurements

__all__ = ["StarchartStrategy", "tune"]

#: strategy_options this strategy reads (besides Kernel Tuner's own ``max_fevals``, ``time_limit``).
OPTIONS = {"seed": "seed of the search (default: the strategy's, else tune_kernel's seed, else fresh)",
           "initial": "how many uniformly drawn configurations come first (default: from the budget)",
           "x0": "a configuration (list of values in tune_params order) to evaluate first",
           "prior": "earlier measurements of the same space (a starchart Dataset or a file path, e.g. another "
                    "GPU's cache): a warm start"}


class StarchartStrategy:
    """A Kernel Tuner strategy object: ``tune_kernel(..., strategy=StarchartStrategy(seed=1))``.

    Parameters
    ----------
    seed:
        Seed of the search; ``strategy_options={"seed": ...}`` overrides it.
    options:
        :class:`~starchart.explore.search_engine.SearchOptions` (for experiments).

    Examples
    --------
    >>> strategy = StarchartStrategy(seed=3)
    >>> callable(strategy.tune), strategy.seed
    (True, 3)
    """

    def __init__(self, seed: int | None = None, options: SearchOptions | None = None):
        self.seed = seed
        self.options = options

    def tune(self, searchspace: Any, runner: Any, tuning_options: Any) -> list[dict[str, Any]]:
        """Kernel Tuner's strategy entry point: search, and return every result Kernel Tuner produced."""
        from kernel_tuner.strategies.common import CostFunc
        from kernel_tuner.util import StopCriterionReached

        strategy_options = dict(tuning_options.strategy_options or {})
        _check_options(strategy_options)
        seed = strategy_options.get("seed", self.seed)
        if seed is None:
            seed = tuning_options.get("seed")
        options = self.options or SearchOptions()
        if strategy_options.get("initial") is not None:
            options = SearchOptions(**{**options.__dict__, "initial": int(strategy_options["initial"])})
        minimize = not _higher_is_better(tuning_options)

        encoding = Encoding.from_tune_params(searchspace.tune_params)
        names = list(searchspace.tune_params)
        configs = [dict(zip(names, c)) for c in searchspace.list]
        pool = CandidatePool(encoding, encoding.encode(configs))
        budget = _budget(tuning_options, searchspace)
        earlier = None
        if strategy_options.get("prior") is not None:
            objective = tuning_options.get("objective", "time")
            if isinstance(objective, (list, tuple)):  # Kernel Tuner 1.5 may keep a list of objectives
                objective = objective[0]
            earlier = prior_measurements(prior_dataset(strategy_options["prior"]), encoding, objective)
        optimizer = TreeGuidedOptimizer(pool, seed=seed, minimize=minimize, budget=budget, options=options,
                                        prior=earlier)
        first = []
        if strategy_options.get("x0") is not None:
            index = int(pool.find(encoding.encode([dict(zip(names, strategy_options["x0"]))]))[0])
            if index >= 0:
                first.append(index)

        cost_func = CostFunc(searchspace, tuning_options, runner)
        try:
            while not pool.evaluated.all():
                index = first.pop(0) if first else optimizer.ask()
                config = list(searchspace.list[index])
                cost = cost_func(config, check_restrictions=False)
                optimizer.tell(index, _value(cost, minimize))
        except StopCriterionReached as stop:
            if tuning_options.get("verbose"):
                print(stop)
        return cost_func.results


def tune(searchspace: Any, runner: Any, tuning_options: Any) -> list[dict[str, Any]]:
    """Module-level entry point, so that this module itself can be passed as a strategy."""
    return StarchartStrategy().tune(searchspace, runner, tuning_options)


def _check_options(strategy_options: dict[str, Any]) -> None:
    known = set(OPTIONS) | {"max_fevals", "time_limit", "searchspace_construction_options"}
    unknown = sorted(set(strategy_options) - known)
    if unknown:
        raise ValueError(f"Unrecognized option(s) {unknown} in strategy_options of the starchart strategy "
                         f"(allowed: {sorted(known)})")


def _higher_is_better(tuning_options: Any) -> bool:
    flag = tuning_options.get("objective_higher_is_better", False)
    return bool(flag[0] if isinstance(flag, (list, tuple)) else flag)


def _budget(tuning_options: Any, searchspace: Any) -> int:
    budget = tuning_options.get("budget")
    limit = getattr(budget, "max_fevals", None) or tuning_options.get("max_fevals")
    return int(min(limit or searchspace.size, searchspace.size))


def _value(cost: Any, minimize: bool) -> float | None:
    """The objective value from Kernel Tuner's cost (which negates maximised objectives), or None if it failed."""
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    cost = float(cost)
    if not math.isfinite(cost) or cost >= sys.float_info.max:
        return None
    return cost if minimize else -cost
