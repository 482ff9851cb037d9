"""Optimization carving (Ryoo et al., 2008): prune a CUDA tuning space before measuring it.

- :mod:`~starchart.carve.occupancy`: blocks per SM and the limiting resource, per compute capability;
- :mod:`~starchart.carve.resources`: registers, shared memory and spills per configuration, from
  ``ptxas -v``, ``cuobjdump -res-usage``, KTT or CuPy, or by compiling every configuration;
- :mod:`~starchart.carve.sass`: instruction counts from the SASS, scaled by loop trip counts
  (read from the code where the bounds are constants, else annotated);
- :mod:`~starchart.carve.shared_memory`: shared-memory wavefronts and bank conflicts from the SASS (one
  block's threads run through the integer code), for ``weighted_efficiency``;
- :mod:`~starchart.carve.metrics`: the paper's efficiency and utilization (static or from counters);
- :mod:`~starchart.carve.carving`: threshold and trade-off (Pareto) carving, measuring the survivors;
- :mod:`~starchart.carve.static`: the whole pipeline on a CUDA source, :func:`carve_source` (compile every
  configuration, count, carve; ``progress=True`` shows a bar);
- :mod:`~starchart.carve.sampling`: what uniform random sampling would find, exactly (Table 5);
- the paper's Fig. 4 and Fig. 6 are drawn by :mod:`starchart.report.carve_figures` (matplotlib).
"""

from starchart.carve.carving import (
    CarveResult,
    carve,
    carve_counters,
    front_distance,
    measure_survivors,
    pareto_front,
)
from starchart.carve.metrics import (
    blocks_per_sm,
    carving_metrics,
    counter_metrics,
    efficiency,
    static_metrics,
    utilization,
)
from starchart.carve.occupancy import (
    LIMITS,
    DeviceLimits,
    Occupancy,
    device_limits,
    occupancy,
    occupancy_frame,
    shared_carveout,
    target_arch,
)
from starchart.carve.progress import StepProgress
from starchart.carve.resources import ResourceCompiler, resource_usage
from starchart.carve.sampling import (
    expected_best,
    expected_best_curve,
    probability_within,
    random_sampling_table,
    sample_size_for,
)
from starchart.carve.sass import (
    SassCounts,
    count_instructions,
    kernel_sass,
    parse_sass,
    sass_counts_frame,
    source_trip_counts,
)
from starchart.carve.shared_memory import SharedWavefronts, shared_wavefronts, shared_wavefronts_frame
from starchart.carve.static import carve_source
from starchart.carve.toolchain import (
    ResourceUsage,
    find_toolchain,
    from_cupy,
    from_ktt,
    ktt_resources,
    parse_ptxas,
    parse_res_usage,
)

__all__ = [
    "CarveResult",
    "blocks_per_sm",
    "carve",
    "carve_counters",
    "carve_source",
    "carving_metrics",
    "counter_metrics",
    "efficiency",
    "expected_best",
    "expected_best_curve",
    "front_distance",
    "measure_survivors",
    "pareto_front",
    "probability_within",
    "random_sampling_table",
    "sample_size_for",
    "static_metrics",
    "utilization",
    "LIMITS",
    "DeviceLimits",
    "Occupancy",
    "ResourceCompiler",
    "ResourceUsage",
    "SassCounts",
    "SharedWavefronts",
    "StepProgress",
    "count_instructions",
    "device_limits",
    "find_toolchain",
    "from_cupy",
    "from_ktt",
    "kernel_sass",
    "ktt_resources",
    "occupancy",
    "occupancy_frame",
    "parse_ptxas",
    "parse_res_usage",
    "parse_sass",
    "resource_usage",
    "sass_counts_frame",
    "shared_carveout",
    "shared_wavefronts",
    "shared_wavefronts_frame",
    "source_trip_counts",
    "target_arch",
]
