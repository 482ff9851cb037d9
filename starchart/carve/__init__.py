"""Optimization carving (Ryoo et al., 2008): prune a CUDA tuning space before measuring it.

- :mod:`~starchart.carve.occupancy`: blocks per SM and the limiting resource, per compute capability;
- :mod:`~starchart.carve.resources`: registers, shared memory and spills per configuration, from
  ``ptxas -v``, ``cuobjdump -res-usage``, KTT or CuPy, or by compiling every configuration;
- :mod:`~starchart.carve.sass`: instruction counts from the SASS, scaled by loop trip counts
  (read from the code where the bounds are constants, else annotated).
"""

from starchart.carve.occupancy import (
    LIMITS,
    DeviceLimits,
    Occupancy,
    device_limits,
    occupancy,
    occupancy_frame,
    shared_carveout,
)
from starchart.carve.resources import (
    ResourceCompiler,
    ResourceUsage,
    find_toolchain,
    from_cupy,
    from_ktt,
    ktt_resources,
    parse_ptxas,
    parse_res_usage,
    resource_usage,
)
from starchart.carve.sass import (
    SassCounts,
    count_instructions,
    kernel_sass,
    parse_sass,
    sass_counts_frame,
    source_trip_counts,
)

__all__ = [
    "LIMITS",
    "DeviceLimits",
    "Occupancy",
    "ResourceCompiler",
    "ResourceUsage",
    "SassCounts",
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
    "source_trip_counts",
]
