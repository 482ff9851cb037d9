"""Old import paths, kept working after the floor-plan move.

Each moved module is reachable under its old name: ``import starchart.runner`` gives the very module
object ``starchart.study.runner`` (one module, not a copy, so monkeypatching either name patches both).
:data:`MOVED` is the one table of old names; a test imports every entry.

>>> import starchart.runner, starchart.study.runner
>>> starchart.runner is starchart.study.runner
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import Any

#: Old module path -> where it lives now.
MOVED: dict[str, str] = {
    "starchart.text": "starchart._util.text",
    "starchart.progress_bar": "starchart._util.progress",
    "starchart.io.files": "starchart._util.files",
    "starchart.io.units": "starchart._util.units",
    "starchart.configs": "starchart._util.configs",
    "starchart.direction": "starchart._util.direction",
    "starchart.tree_growth": "starchart.tree._growth",
    "starchart.pruning": "starchart.tree._pruning",
    "starchart.ensemble": "starchart.tree._forest",
    "starchart.report.text": "starchart.tree._text",
    "starchart.report.graphviz": "starchart.tree._graphviz",
    "starchart.store": "starchart.study.store",
    "starchart.runner": "starchart.study.runner",
    "starchart.distributed": "starchart.study.distributed",
    "starchart.throughput": "starchart.analyses.throughput",
    "starchart.explore.search": "starchart.strategies.search",
    "starchart.explore.search_engine": "starchart.strategies.engine",
    "starchart.explore.search_encoding": "starchart.strategies.encoding",
    "starchart.explore.search_features": "starchart.strategies.features",
    "starchart.explore.search_model": "starchart.strategies.model",
    "starchart.explore.search_neighbourhood": "starchart.strategies.neighbourhood",
    "starchart.explore.search_prior": "starchart.strategies.prior",
    "starchart.explore.tradeoff": "starchart.analyses.tradeoff",
    "starchart.explore.platforms": "starchart.analyses.platforms",
    "starchart.explore.inputs": "starchart.analyses.inputs",
    "starchart.explore.sample_size": "starchart.analyses.sample_size",
    "starchart.explore.kernel_tuner_strategy": "starchart.integrations.kernel_tuner_strategy",
    "starchart.explore.optuna_sampler": "starchart.integrations.optuna_sampler",
    "starchart.cli_common": "starchart.cli.common",
    "starchart.cli_measure": "starchart.cli.measure",
    "starchart.cli_samples": "starchart.cli.samples",
    "starchart.cli_analyse": "starchart.cli.analyse",
    "starchart.msp.cli": "starchart.cli.msp",
    "starchart.xapp.cli": "starchart.cli.xapp",
    "starchart.msp.plots": "starchart.report.msp_figures",
    "starchart.carve.plots": "starchart.report.carve_figures",
    "starchart.xapp.stepwise": "starchart.analyses.stepwise",
}


#: Names that moved out of a module that stays: old module -> {name: the module it lives in now}.
MOVED_NAMES: dict[str, dict[str, str]] = {
    "starchart.carve.resources": dict.fromkeys(
        ["CARVE_HINT", "Compiled", "ResourceUsage", "Toolchain", "find_kernel", "find_toolchain", "from_cupy",
         "from_ktt", "ktt_resources", "parse_ptxas", "parse_res_usage", "usable_cores"], "starchart.carve.toolchain"),
    "starchart.analyses.sample_size": {"plot_sample_size": "starchart.report.figures"},
    "starchart.analyses.tradeoff": {"plot_tradeoff": "starchart.report.figures"},
    "starchart.analyses.platforms": {"plot_platforms": "starchart.report.figures"},
    "starchart.analyses.inputs": {"plot_input_sensitivity": "starchart.report.figures"},
    "starchart.msp": dict.fromkeys(["plot_threshold_sweep", "plot_throughput_curve", "plot_transfer"],
                                   "starchart.report.msp_figures"),
}


class _Alias(importlib.abc.Loader):
    """Loads an old name by importing the new module and putting it in ``sys.modules`` under both."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # a placeholder; exec_module swaps the real module in

    def exec_module(self, module: types.ModuleType) -> None:
        # the import system re-reads sys.modules after exec_module, so the old name yields the real
        # module, whose own __spec__ and __name__ stay untouched
        sys.modules[module.__name__] = importlib.import_module(self.target)


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` (and nothing else)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(type(finder).__name__ == "_MovedFinder" for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())


def moved_attribute(package: str, name: str) -> types.ModuleType | None:
    """The module that ``package.name`` named before the move, for a package's ``__getattr__``.

    ``from starchart import runner`` then works even where something replaced ``sys.meta_path``
    (the finder is put back too)."""
    new = MOVED.get(f"{package}.{name}")
    if new is None:
        return None
    install()
    return importlib.import_module(new)


def moved_name(module: str, name: str) -> Any:
    """The object ``module.name`` named before it moved (for that module's ``__getattr__``)."""
    new = MOVED_NAMES.get(module, {}).get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return getattr(importlib.import_module(new), name)
