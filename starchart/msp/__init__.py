"""Minimum Saturation Point tuning (Magni, Dubach & O'Boyle, "Exploiting GPU Hardware Saturation for
Fast Compiler Optimization", GPGPU 2014).

Tune on the smallest input that already saturates the hardware, and use the
result on the large input you care about:

- :func:`throughput_curve` — time and throughput (units of work per second) of one
  configuration over a list of input sizes, with any evaluator;
- :func:`find_msp` — the minimum saturation point: the smallest size whose
  throughput is within a noise threshold (10 %) of the maximum, or the target
  itself, stated, when the curve does not saturate;
- :func:`tune_at_msp` — curve, MSP, a search at the MSP (exhaustive, uniform or
  any callable), the winner evaluated at the target, the search speedup
  ``T_target / (T_MSP + T_curve)`` and the winner's quality at the target; with
  ``transfer=True`` the same for every size (the paper's Fig. 3);
- :func:`threshold_sweep` — quality and speedup against the threshold (Fig. 7);
- ``store=`` (of :func:`throughput_curve` and :func:`tune_at_msp`) — every measurement kept
  in a :class:`~starchart.study.store.Store` as it arrives; calling again on the store measures
  nothing it holds, so an interrupted study resumes (:mod:`starchart.msp.store`);
- figures in :mod:`starchart.report.msp_figures` (``MSPTuningResult.plot_curve`` and ``plot_transfer``
  draw through it; importing this package loads no matplotlib).

Where we differ from the paper: the search is any search, not only exhaustive;
the speedup is reported both in wall time (compiles, process launches and the
search's own work included) and, as the paper counts it, in the kernels' measured
run time; repeats are reduced by a chosen statistic (the paper's median by
default); ``stable=True`` optionally requires every larger size to stay saturated.
"""

from typing import Any

from starchart._compat import moved_name
from starchart.msp.curve import MSP, STATS, aggregate, find_msp, throughput_curve
from starchart.msp.search import Cost, SearchResult, exhaustive_search, uniform_search
from starchart.msp.tuning import MSPTuningResult, space_at, threshold_sweep, tune_at_msp

__all__ = ["MSP", "STATS", "Cost", "MSPTuningResult", "SearchResult", "aggregate", "exhaustive_search",
           "find_msp", "space_at", "threshold_sweep", "throughput_curve", "tune_at_msp", "uniform_search"]


def __getattr__(name: str) -> Any:
    # the plot_* figures moved to starchart.report.msp_figures; their old names still work here
    return moved_name(__name__, name)
