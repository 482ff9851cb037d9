"""The tree-guided search as a Kernel Tuner 1.5 strategy.

Kernel Tuner's ``tune_kernel(..., strategy=...)`` accepts, besides the names of
its own strategies, any object with a callable ``tune(searchspace, runner,
tuning_options)`` attribute. :class:`StarchartStrategy` is such an object::

    from kernel_tuner import tune_kernel
    from starchart.integrations.kernel_tuner_strategy import StarchartStrategy

    results, env = tune_kernel("vector_add", source, size, args, tune_params,
                               strategy=StarchartStrategy(seed=1),
                               strategy_options={"max_fevals": 100})

It proposes configurations with :class:`~starchart.strategies.engine.TreeGuidedOptimizer`
over Kernel Tuner's own enumerated search space (after its restrictions) and measures
them through Kernel Tuner's ``CostFunc``, so the runner (real or simulation), the
cache, the objective and its direction, and the budget (``max_fevals``,
``time_limit``) all behave as with Kernel Tuner's strategies. Configurations are
proposed one at a time: with ``parallel=...`` Kernel Tuner gives a strategy outside its
own parallel list a single worker. Failed configurations count against ``max_fevals``
as Kernel Tuner counts them, and the search learns to avoid their region. A space
smaller than ``max_fevals`` is evaluated whole, each configuration once. With
several ``objectives`` the search optimises the first (and warns). The strategy
object, its class and this module itself are all valid ``strategy=`` values.
Kernel Tuner is not a dependency of starchart: this module imports it only when a
search runs.
"""

from __future__ import annotations

import difflib
import functools
import math
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from starchart._util.validation import Interval, check, check_seed
from starchart.errors import InputError
from starchart.strategies.encoding import CandidatePool, Encoding
from starchart.strategies.engine import SearchOptions, TreeGuidedOptimizer
from starchart.strategies.prior import prior_dataset, prior_measurements

__all__ = ["StarchartStrategy", "StrategyOptionError", "tune"]


class StrategyOptionError(InputError, ValueError):
    """A strategy option the starchart strategy does not know (a ``ValueError``, as Kernel Tuner raises for its own)."""


#: strategy_options this strategy reads (besides Kernel Tuner's own ``max_fevals``, ``time_limit``).
OPTIONS = {"seed": "seed of the search (default: the strategy's, else tune_kernel's seed, else fresh)",
           "initial": "how many uniformly drawn configurations come first (default: from the budget)",
           "x0": "a configuration (list of values in tune_params order) to evaluate first",
           "prior": "earlier measurements of the same space (a starchart Dataset or a file path, e.g. another "
                    "GPU's cache): a warm start"}


class _EntryPoint:
    """``tune`` as a method of an instance, and of the class itself (a default instance): Kernel Tuner takes any
    object with a callable ``tune``, so ``strategy=StarchartStrategy`` (the class, not an instance) must work too."""

    def __init__(self, func: Callable[..., Any]):
        self.func = func
        functools.update_wrapper(self, func)

    def __get__(self, instance: Any, owner: type) -> Callable[..., Any]:
        if instance is None:
            return functools.partial(self.func, owner())
        return types.MethodType(self.func, instance)


class StarchartStrategy:
    """A Kernel Tuner strategy object: ``tune_kernel(..., strategy=StarchartStrategy(seed=1))``.

    Parameters
    ----------
    seed:
        Seed of the search; ``strategy_options={"seed": ...}`` overrides it.
    options:
        :class:`~starchart.strategies.engine.SearchOptions` (for experiments).

    Examples
    --------
    >>> strategy = StarchartStrategy(seed=3)
    >>> callable(strategy.tune), strategy.seed
    (True, 3)
    """

    def __init__(self, seed: int | None = None, options: SearchOptions | None = None):
        self.seed = seed
        self.options = options

    def __repr__(self) -> str:
        return f"StarchartStrategy(seed={self.seed!r})"

    @_EntryPoint
    def tune(self, searchspace: Any, runner: Any, tuning_options: Any) -> list[dict[str, Any]]:
        """Kernel Tuner's strategy entry point: search, and return every result Kernel Tuner produced."""
        from kernel_tuner.strategies.common import CostFunc
        from kernel_tuner.util import StopCriterionReached

        strategy_options = dict(tuning_options.strategy_options or {})
        _check_options(strategy_options)
        seed = strategy_options.get("seed", self.seed)
        if seed is None:
            seed = tuning_options.get("seed")
        seed = check_seed(seed, where="seed of the starchart strategy", hint="e.g. 1, or leave it out for a fresh seed")
        options = self.options or SearchOptions()
        initial = check("initial", strategy_options.get("initial"), None, Interval(int, 0, None),
                        where="initial of the starchart strategy",
                        hint="how many uniformly drawn configurations come first, e.g. 10")
        if initial is not None:
            options = SearchOptions(**{**options.__dict__, "initial": initial})
        minimize = not _higher_is_better(tuning_options)
        objectives = tuning_options.get("objective", "time")
        if isinstance(objectives, (list, tuple)) and len(objectives) > 1:
            warnings.warn(f"the starchart strategy optimises one objective: it searches for the best "
                          f"{objectives[0]!r} and only records {', '.join(map(repr, objectives[1:]))} (pass "
                          f"objective=... instead of objectives={{...}}, or use a Kernel Tuner strategy for a "
                          f"Pareto front)", UserWarning, stacklevel=2)

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
            first.append(_x0_index(strategy_options["x0"], searchspace, names))

        # snap=False: the configurations come from searchspace.list as they are (Kernel Tuner's snapping
        # calls list.index on each parameter's values, which fails when tune_params holds numpy arrays).
        cost_func = CostFunc(searchspace, tuning_options, runner, snap=False)
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
    unknown = sorted(set(strategy_options) - known, key=str)
    if unknown:
        guesses = []
        for name in unknown:
            close = difflib.get_close_matches(str(name).lower(), sorted(known), n=1, cutoff=0.6)
            if close:
                guesses.append(f"{name!r} → {close[0]!r}")
        hint = ("did you mean " + ", ".join(guesses) + "?") if guesses else \
            "remove it: Kernel Tuner strategies' own options do not apply to the starchart strategy"
        raise StrategyOptionError(f"Unrecognized option(s) {unknown} in strategy_options of the starchart strategy "
                                  f"(allowed: {sorted(known)})", where="strategy_options", hint=hint)
    check("max_fevals", strategy_options.get("max_fevals"), None, Interval(int, 1, None),
          where="max_fevals of the starchart strategy",
          hint="the number of configurations to evaluate, e.g. 100; leave it out to evaluate the whole space")


def _x0_index(x0: Any, searchspace: Any, names: list[str]) -> int:
    """The position of ``x0`` (values in tune_params order) in Kernel Tuner's search space."""
    where = "x0 of the starchart strategy"
    if isinstance(x0, (str, bytes)) or not isinstance(x0, Sequence) or len(x0) != len(names):
        raise InputError(f"x0 must list one value per tunable parameter ({len(names)}: {', '.join(names)}), "
                         f"got {x0!r}", where=where, hint="give the values in tune_params order")
    for name, value in zip(names, x0):
        if value not in searchspace.tune_params[name]:
            raise InputError(f"x0 sets {name}={value!r}, which is not among its values "
                             f"{list(searchspace.tune_params[name])}", where=where, hint="give the values in "
                             "tune_params order")
    config = tuple(x0)
    for index, candidate in enumerate(searchspace.list):
        if tuple(candidate) == config:
            return index
    raise InputError(f"x0 {list(x0)} is not in the search space: the restrictions exclude it", where=where,
                     hint="start from a configuration the restrictions allow, or leave x0 out")


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
