"""Dynamic XAPP: measure the thesis's Table 3.1 program properties with an instrumented CPU run.

The loop nest marked ``#pragma xapp parallel`` (or given by ``band_line``) is instrumented
at the LLVM IR level (Intel Pin's role in the thesis) and a small C runtime computes the
features online while the program runs with the user's arguments.

Examples
--------
>>> from starchart.xapp.dynamic import dynamic_features, FEATURES
>>> "gMemBW" in FEATURES and "Lbdiv32" in FEATURES
True
>>> dynamic_features("stream.c", args=["65536"])["coalesced"]   # doctest: +SKIP
1.0
"""

from .features import FEATURES, DynamicRun, dynamic_features, measure

__all__ = ["FEATURES", "DynamicRun", "dynamic_features", "measure"]
