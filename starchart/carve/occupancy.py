"""Theoretical occupancy of a CUDA kernel: resident blocks per SM and what limits them.

A clean-room calculator for compute capabilities 7.0, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0, 10.3, 11.0, 12.0
and 12.1, written from NVIDIA's published rules, not from NVIDIA's code:

- per-SM limits (threads, warps, blocks, registers, shared memory) and per-block limits
  (threads, registers, shared memory with and without the opt-in) from the CUDA C++
  Programming Guide, "Compute Capabilities" (tables "Device and Streaming Multiprocessor
  (SM) Information per Compute Capability", "Memory Information per Compute Capability"
  and "Shared Memory Capacity per Compute Capability"; the 12.x guide's §20.6.4, §20.7.3
  and §20.8.3 for the shared memory carveouts, the 48 KB static limit, the opt-in and the
  1 KB reserved per block on 8.x/9.0; in the 13.x guide's tables the per-block maximum is the
  per-SM maximum less that 1 KB in every column from 8.0 on);
- allocation granularities from NVIDIA's CUDA Occupancy Calculator spreadsheet (also shown
  by Nsight Compute's occupancy section): registers are allocated per **warp** in units
  of 256 (``ceil(regs × 32, 256)``), warps are granted registers in groups of 4 (one per
  SM sub-partition), shared memory per block is rounded up to 256 bytes (7.x) or 128 bytes
  (8.0 on) after adding the system-reserved 1 KB (8.0 on); for 10.x, 11.0 and 12.x, which
  the spreadsheet predates, ``cuda_occupancy.h`` of CUDA 13.0 has the same granularities.

Blocks per SM is the smallest of five limits::

    warps      floor(max warps per SM / warps per block)
    blocks     max resident blocks per SM
    registers  floor(floor(regs per SM / regs per warp, 4) / warps per block)
    shared     floor(carveout / allocated shared memory per block)
    barriers   floor(max blocks per SM × 2 (9.0, 10.x) or × 1 (11.0, 12.x) / named barriers per block)

The barrier limit applies from 9.0 on, as in ``cuda_occupancy.h``, and only when the
kernel's named barriers are given (``ptxas -v``: "used N barriers"); with one barrier
(``__syncthreads`` alone) it never binds.

The carveout (the shared-memory part of the unified L1/shared memory) is by default the
largest one, as the driver picks when it is free to; a preferred carveout is a percentage
of the maximum rounded up to the next supported size, and it grows to the smallest size
that holds one block when it cannot (the driver treats the preference as a hint).

A launch that cannot run (more than 1024 threads, more than 255 registers per thread,
more registers per block than the register file, more shared memory than a block may
have) is reported as ``valid=False`` with the reason and 0 blocks, never raised; only
ill-formed input (negative sizes, an unknown compute capability) raises
:class:`~starchart.errors.InputError`.

Examples
--------
>>> occ = occupancy("8.6", 256, 64, 8192)
>>> occ.blocks_per_sm, occ.warps_per_sm, occ.occupancy, occ.limiting
(4, 32, 0.6666666666666666, ('registers',))
>>> occupancy(7.5, 1024, 65, 0).reason
'1024 threads × 65 registers need 73728 registers per block (allocated per warp), above the 65536 a block may use'
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.validation import Interval, check
from starchart.errors import InputError

__all__ = [
    "LIMITS",
    "RESOURCES",
    "UNLIMITED",
    "DeviceLimits",
    "Occupancy",
    "device_limits",
    "occupancy",
    "occupancy_frame",
    "shared_carveout",
    "target_arch",
]

KB = 1024
#: The resources that can limit blocks per SM, in reporting order.
RESOURCES: tuple[str, ...] = ("warps", "blocks", "registers", "shared", "barriers")
#: The per-resource limit of a resource the kernel does not use (0 registers or no shared memory).
UNLIMITED = 1 << 30


@dataclass(frozen=True)
class DeviceLimits:
    """Occupancy-relevant limits of one compute capability.

    Sizes are in bytes, registers in 32-bit registers. ``shared_carveouts`` are the
    shared-memory capacities an SM can be configured to (the last is the maximum).
    """

    cc: str
    architecture: str
    max_threads_per_sm: int
    max_blocks_per_sm: int
    shared_carveouts: tuple[int, ...]
    max_shared_per_block_optin: int
    shared_allocation_unit: int
    reserved_shared_per_block: int
    max_threads_per_block: int = 1024
    warp_size: int = 32
    registers_per_sm: int = 64 * KB
    max_registers_per_block: int = 64 * KB
    max_registers_per_thread: int = 255
    #: Registers are allocated per warp in units of this many registers.
    register_allocation_unit: int = 256
    #: Warps are granted registers in groups of this many (one per sub-partition).
    warp_allocation_granularity: int = 4
    #: Static ``__shared__`` arrays, and any block without the opt-in, are limited to 48 KB.
    max_shared_per_block: int = 48 * KB
    #: From 9.0 on the resident blocks share ``max_blocks_per_sm × this`` hardware barriers
    #: (``cuda_occupancy.h``); 0: named barriers do not limit blocks per SM.
    barriers_per_block_slot: int = 0

    @property
    def max_warps_per_sm(self) -> int:
        """Resident warps per SM (threads per SM / 32)."""
        return self.max_threads_per_sm // self.warp_size

    @property
    def shared_per_sm(self) -> int:
        """The largest shared memory carveout per SM."""
        return self.shared_carveouts[-1]

    def as_dict(self) -> dict[str, Any]:
        """The limits as a plain dict (with the derived ``max_warps_per_sm``, ``shared_per_sm``).

        >>> device_limits("9.0").as_dict()["shared_per_sm"]
        233472
        """
        return {**asdict(self), "shared_carveouts": list(self.shared_carveouts),
                "max_warps_per_sm": self.max_warps_per_sm, "shared_per_sm": self.shared_per_sm}


def _kb(*sizes: int) -> tuple[int, ...]:
    return tuple(s * KB for s in sizes)


#: Limits per compute capability (CUDA C++ Programming Guide tables; see the module docstring).
LIMITS: dict[str, DeviceLimits] = {
    "7.0": DeviceLimits("7.0", "Volta", max_threads_per_sm=2048, max_blocks_per_sm=32,
                        shared_carveouts=_kb(0, 8, 16, 32, 64, 96), max_shared_per_block_optin=96 * KB,
                        shared_allocation_unit=256, reserved_shared_per_block=0),
    "7.5": DeviceLimits("7.5", "Turing", max_threads_per_sm=1024, max_blocks_per_sm=16,
                        shared_carveouts=_kb(32, 64), max_shared_per_block_optin=64 * KB,
                        shared_allocation_unit=256, reserved_shared_per_block=0),
    "8.0": DeviceLimits("8.0", "Ampere (GA100)", max_threads_per_sm=2048, max_blocks_per_sm=32,
                        shared_carveouts=_kb(0, 8, 16, 32, 64, 100, 132, 164),
                        max_shared_per_block_optin=163 * KB, shared_allocation_unit=128,
                        reserved_shared_per_block=KB),
    "8.6": DeviceLimits("8.6", "Ampere (GA10x)", max_threads_per_sm=1536, max_blocks_per_sm=16,
                        shared_carveouts=_kb(0, 8, 16, 32, 64, 100), max_shared_per_block_optin=99 * KB,
                        shared_allocation_unit=128, reserved_shared_per_block=KB),
    # Jetson Orin: the 13.x guide's Table 30 (16 blocks, 48 warps, 1536 threads per SM; 8.6 and 8.7 share the
    # cells), Table 31 (164 KB per SM, 163 KB per block), Table 32 (carveouts as 8.0's), at
    # https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html; the 12.x
    # guide's §20.7.3: "0, 8, 16, 32, 64, 100, 132 or 164 KB for devices of compute capability 8.0 and 8.7",
    # up to 163 KB per block, 1 KB reserved for system use.
    "8.7": DeviceLimits("8.7", "Ampere (Jetson Orin)", max_threads_per_sm=1536, max_blocks_per_sm=16,
                        shared_carveouts=_kb(0, 8, 16, 32, 64, 100, 132, 164),
                        max_shared_per_block_optin=163 * KB, shared_allocation_unit=128,
                        reserved_shared_per_block=KB),
    "8.9": DeviceLimits("8.9", "Ada Lovelace", max_threads_per_sm=1536, max_blocks_per_sm=24,
                        shared_carveouts=_kb(0, 8, 16, 32, 64, 100), max_shared_per_block_optin=99 * KB,
                        shared_allocation_unit=128, reserved_shared_per_block=KB),
    "9.0": DeviceLimits("9.0", "Hopper", max_threads_per_sm=2048, max_blocks_per_sm=32,
                        shared_carveouts=_kb(0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
                        max_shared_per_block_optin=227 * KB, shared_allocation_unit=128,
                        reserved_shared_per_block=KB, barriers_per_block_slot=2),
    # Blackwell: the per-SM block limits, carveouts and granularities as in cuda_occupancy.h of CUDA 13.0
    # (GB10x: 32 blocks, carveouts up to 228 KB; GB20x: 24 blocks, up to 100 KB).
    "10.0": DeviceLimits("10.0", "Blackwell (GB100)", max_threads_per_sm=2048, max_blocks_per_sm=32,
                         shared_carveouts=_kb(0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
                         max_shared_per_block_optin=227 * KB, shared_allocation_unit=128,
                         reserved_shared_per_block=KB, barriers_per_block_slot=2),
    # GB300/B300 (Blackwell Ultra): the 13.x guide's Table 30 (32 blocks, 64 warps, 2048 threads per SM; 9.0,
    # 10.0 and 10.3 share one cell), Table 31 (10.x: 228 KB per SM, 227 KB per block), Table 32 (10.x
    # carveouts); cuda_occupancy.h of CUDA 13.0: 128-byte shared unit and 2 barriers per block slot (10.x
    # except 10.1).
    "10.3": None,  # type: ignore[dict-item]  # 10.0's limits: filled in below
    # Jetson Thor (10.1 before CUDA 13, which renamed it 11.0): the 13.x guide's Table 30 (24 blocks, 48 warps,
    # 1536 threads per SM; 11.0 and 12.x share one cell), Table 31 (228 KB per SM, 227 KB per block), Table 32
    # (carveouts up to 228 KB); cuda_occupancy.h of CUDA 13.0: 24 blocks, carveouts up to 228 KB, 1 barrier
    # per block slot (11.0).
    "11.0": DeviceLimits("11.0", "Blackwell (Jetson Thor)", max_threads_per_sm=1536, max_blocks_per_sm=24,
                         shared_carveouts=_kb(0, 8, 16, 32, 64, 100, 132, 164, 196, 228),
                         max_shared_per_block_optin=227 * KB, shared_allocation_unit=128,
                         reserved_shared_per_block=KB, barriers_per_block_slot=1),
    "12.0": DeviceLimits("12.0", "Blackwell (GB20x)", max_threads_per_sm=1536, max_blocks_per_sm=24,
                         shared_carveouts=_kb(0, 8, 16, 32, 64, 100), max_shared_per_block_optin=99 * KB,
                         shared_allocation_unit=128, reserved_shared_per_block=KB, barriers_per_block_slot=1),
    # DGX Spark (GB10): the 13.x guide's "12.x" column of Tables 30-32 (24 blocks, 48 warps, 1536 threads per
    # SM; 100 KB per SM, 99 KB per block; carveouts up to 100 KB); cuda_occupancy.h of CUDA 13.0: the same
    # carveouts as 12.0, 1 barrier per block slot (12.x).
    "12.1": None,  # type: ignore[dict-item]  # 12.0's limits: filled in below
}
LIMITS["10.3"] = replace(LIMITS["10.0"], cc="10.3", architecture="Blackwell Ultra (GB300, B300)")
LIMITS["12.1"] = replace(LIMITS["12.0"], cc="12.1", architecture="Blackwell (GB10)")
#: Compute capabilities CUDA renamed: CUDA 13.0 calls Jetson Thor's 10.1 11.0 (NVIDIA's cuRANDDx/nvCOMPDx
#: release notes: "Thor SM renaming from sm_101 to sm_110 starting from CUDA 13.0").
_RENAMED = {"10.1": "11.0"}

#: "8.6", "86", "sm_86", "compute_90a", "sm_120f", "cc 9.0", "9.0a": an optional prefix, the capability, and
#: the arch-specific ("a") or family ("f") suffix nvcc accepts from CUDA 12.0 / 12.9 on.
_CC_TEXT = re.compile(r"^\s*(?:sm_?|compute_?|cc\s*)?(\d+)(?:\.(\d))?([af])?\s*$", re.IGNORECASE)
#: The oldest compute capability with arch-specific ("sm_90a") and family ("sm_100f") targets.
_SUFFIX_FROM = {"a": (9, 0), "f": (10, 0)}


def _parse_cc(cc: Any) -> tuple[str | None, str]:
    """``(key, suffix)``: the ``"major.minor"`` key of :data:`LIMITS` (``None`` when unreadable) and the
    target suffix, ``""``, ``"a"`` (arch-specific: ``sm_90a``) or ``"f"`` (family: ``sm_100f``)."""
    if isinstance(cc, DeviceLimits):
        return cc.cc, ""
    if isinstance(cc, tuple) and len(cc) == 2:
        return f"{int(cc[0])}.{int(cc[1])}", ""
    if isinstance(cc, numbers.Integral) and not isinstance(cc, bool):
        return f"{int(cc) // 10}.{int(cc) % 10}", ""
    if isinstance(cc, numbers.Real) and not isinstance(cc, bool):
        return f"{float(cc):.1f}", ""
    if isinstance(cc, str):
        match = _CC_TEXT.match(cc)
        if match:
            major, minor, suffix = match.groups()
            key = f"{major}.{minor}" if minor is not None else (
                f"{major[:-1]}.{major[-1]}" if len(major) >= 2 else f"{major}.0")
            return key, (suffix or "").lower()
    return None, ""


def device_limits(cc: Any) -> DeviceLimits:
    """The :class:`DeviceLimits` of a compute capability.

    ``cc`` may be ``"8.6"``, ``8.6``, ``86``, ``"86"``, ``"sm_86"``, ``(8, 6)`` or a
    :class:`DeviceLimits` (returned as is). An arch-specific or family target (``"sm_90a"``,
    ``"compute_90a"``, ``"sm_120f"``, ``"9.0a"``) has the limits of its base capability: the suffix
    changes which instructions compile (``wgmma``, ``setmaxnreg``), not the SM's resources.

    >>> device_limits("sm_86").max_warps_per_sm, device_limits((7, 5)).architecture
    (48, 'Turing')
    >>> device_limits("sm_90a").cc
    '9.0'
    """
    if isinstance(cc, DeviceLimits):
        return cc
    key, suffix = _parse_cc(cc)
    if key in _RENAMED:
        new = _RENAMED[key]
        raise InputError(f"compute capability {cc!r} is Jetson Thor's name before CUDA 13, which renamed it {new}",
                         where="cc", hint=f"use '{new}' (sm_{new.replace('.', '')}{suffix}), compiled with CUDA "
                                          "13.0 or later (nvcc, or NVRTC and ptxas)")
    if key not in LIMITS:
        raise InputError(f"unknown compute capability {cc!r}", where="cc",
                         hint=f"use one of {', '.join(LIMITS)} (e.g. '8.6', 86 or 'sm_86'; 'sm_90a' or "
                              "'sm_100f' for an arch-specific or family target)")
    _check_suffix(cc, key, suffix)
    return LIMITS[key]


def _check_suffix(cc: Any, key: str, suffix: str) -> None:
    """Refuse a suffix on a capability that has no such target (``sm_86a``): nvcc would refuse it."""
    if not suffix:
        return
    first = _SUFFIX_FROM[suffix]
    if tuple(map(int, key.split("."))) < first:
        kind = "arch-specific ('a')" if suffix == "a" else "family ('f')"
        raise InputError(f"compute capability {cc!r}: {kind} targets exist from sm_{first[0]}{first[1]}{suffix} on",
                         where="cc", hint=f"drop the suffix: 'sm_{key.replace('.', '')}'")


def target_arch(cc: Any) -> str:
    """The real architecture a compiler targets for ``cc``, with its suffix: ``"sm_90a"``, ``"sm_86"``.

    ``compute_90a`` (a virtual architecture) compiles to the same cubin as ``sm_90a``: carving needs the
    cubin, so it gets the real one. Raises like :func:`device_limits` for an unknown capability.

    >>> target_arch("compute_90a"), target_arch("9.0"), target_arch("sm_120f"), target_arch((8, 6))
    ('sm_90a', 'sm_90', 'sm_120f', 'sm_86')
    """
    limits = device_limits(cc)
    _, suffix = _parse_cc(cc)
    return f"sm_{limits.cc.replace('.', '')}{suffix}"


def shared_carveout(cc: Any, percent: float | None = None) -> int:
    """Shared memory per SM (bytes) for a preferred carveout ``percent`` of the maximum.

    ``None`` (the default, and CUDA's ``cudaSharedmemCarveoutDefault``) gives the
    maximum. A percentage is rounded up to the next supported capacity, as the CUDA
    C++ Programming Guide describes (8.0: 50 % maps to 100 KB, not 82 KB).

    >>> shared_carveout("8.0", 50) // 1024, shared_carveout("7.0", 50) // 1024, shared_carveout("9.0") // 1024
    (100, 64, 228)
    """
    limits = device_limits(cc)
    if percent is None:
        return limits.shared_per_sm
    percent = check("carveout", percent, Interval(float, 0, 100),
                    hint="a percentage; give None for the driver's default (the largest carveout)")
    wanted = percent * limits.shared_per_sm / 100
    return next(c for c in limits.shared_carveouts if c >= wanted - 1e-9)


@dataclass(frozen=True)
class Occupancy:
    """Theoretical occupancy of one launch configuration on one compute capability.

    Attributes
    ----------
    valid:
        Whether the launch can run at all; ``reason`` says why not.
    blocks_per_sm, warps_per_sm, threads_per_sm:
        Resident blocks, warps and threads per SM (0 when invalid).
    occupancy:
        ``warps_per_sm / max warps per SM``.
    limiting:
        The resources whose limit equals ``blocks_per_sm`` (see :data:`RESOURCES`).
    limits:
        Blocks per SM allowed by each resource alone (:data:`UNLIMITED` for a resource
        the kernel does not use).
    registers_per_block, shared_per_block:
        What one block is allocated (registers per warp rounded up, shared memory with
        the reserved 1 KB and rounded up to the allocation unit).
    shared_per_sm:
        The carveout used.
    """

    cc: str
    threads_per_block: int
    registers_per_thread: int
    shared_bytes: int
    dynamic_shared_bytes: int
    barriers: int
    valid: bool
    reason: str
    blocks_per_sm: int
    warps_per_block: int
    warps_per_sm: int
    threads_per_sm: int
    occupancy: float
    limiting: tuple[str, ...]
    limits: dict[str, int] = field(default_factory=dict)
    registers_per_block: int = 0
    shared_per_block: int = 0
    shared_per_sm: int = 0

    def as_dict(self) -> dict[str, Any]:
        """A flat dict (``limit_<resource>`` per resource, ``limiting`` joined with ``+``).

        >>> occupancy("9.0", 128, 32, 0).as_dict()["limiting"]
        'warps+registers'
        """
        out = {k: v for k, v in asdict(self).items() if k not in ("limits", "limiting")}
        out["limiting"] = "+".join(self.limiting)
        out.update({f"limit_{k}": v for k, v in self.limits.items()})
        return out


def _check_size(value: Any, name: str) -> np.ndarray:
    array = np.asarray(value)

    def first(bad: np.ndarray) -> Any:  # the first offending value, not a whole column
        return array.flat[int(np.flatnonzero(bad)[0])].item() if array.ndim else array.item()

    if array.dtype == bool or not (np.issubdtype(array.dtype, np.number)):
        raise InputError(f"{name} must be a number of {'bytes' if 'shared' in name else 'units'}, "
                         f"got {value if array.ndim == 0 else array.flat[0]!r}", where=name,
                         hint="give non-negative integers")
    if np.issubdtype(array.dtype, np.floating):
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            raise InputError(f"{name} must be whole numbers, got {first(bad)!r}", where=name,
                             hint="drop or fill missing values first (e.g. configurations that failed to compile)")
    if (bad := array < 0).any():
        raise InputError(f"{name} must not be negative, got {first(bad)!r}", where=name,
                         hint="give non-negative integers")
    return array.astype(np.int64)


def _ceil_to(value: np.ndarray, unit: int) -> np.ndarray:
    return -(-value // unit) * unit


def _compute(limits: DeviceLimits, threads: Any, registers: Any, shared: Any, dynamic: Any,
             opt_in: bool, carveout: float | None, barriers: Any = 0) -> dict[str, np.ndarray]:
    """The calculator over broadcast numpy arrays (one element per configuration)."""
    threads = _check_size(threads, "threads_per_block")
    registers = _check_size(registers, "registers_per_thread")
    shared = _check_size(shared, "shared_bytes")
    dynamic = _check_size(dynamic, "dynamic_shared_bytes")
    barriers = _check_size(barriers, "barriers")
    threads, registers, shared, dynamic, barriers = np.broadcast_arrays(threads, registers, shared, dynamic, barriers)
    big = np.int64(UNLIMITED)

    warps_per_block = -(-threads // limits.warp_size)
    regs_per_warp = _ceil_to(registers * limits.warp_size, limits.register_allocation_unit)
    regs_per_block = regs_per_warp * warps_per_block
    user_shared = shared + dynamic
    shared_per_block = _ceil_to(user_shared + limits.reserved_shared_per_block, limits.shared_allocation_unit)
    shared_limit = limits.max_shared_per_block_optin if opt_in else limits.max_shared_per_block

    # Carveout: the preference, grown to the smallest capacity that holds one block.
    carveouts = np.asarray(limits.shared_carveouts, dtype=np.int64)
    preferred = shared_carveout(limits, carveout)
    needed = carveouts[np.minimum(np.searchsorted(carveouts, shared_per_block), len(carveouts) - 1)]
    shared_per_sm = np.maximum(preferred, needed)

    safe_warps = np.maximum(warps_per_block, 1)
    limit_warps = limits.max_warps_per_sm // safe_warps
    limit_blocks = np.full_like(threads, limits.max_blocks_per_sm)
    warps_by_regs = (limits.registers_per_sm // np.maximum(regs_per_warp, 1)
                     // limits.warp_allocation_granularity * limits.warp_allocation_granularity)
    limit_regs = np.where(registers > 0, warps_by_regs // safe_warps, big)
    limit_shared = np.where(shared_per_block > 0, shared_per_sm // np.maximum(shared_per_block, 1), big)
    available_barriers = limits.max_blocks_per_sm * limits.barriers_per_block_slot
    limit_barriers = np.where((barriers > 0) & (available_barriers > 0),
                              available_barriers // np.maximum(barriers, 1), big)

    reasons = [
        (threads < 1, "a block needs at least one thread"),
        (threads > limits.max_threads_per_block, f"more than {limits.max_threads_per_block} threads per block"),
        (registers > limits.max_registers_per_thread,
         f"more than {limits.max_registers_per_thread} registers per thread"),
        (regs_per_block > limits.max_registers_per_block, "registers"),
        (user_shared > shared_limit, "shared"),
    ]
    blocks = np.minimum.reduce([limit_warps, limit_blocks, limit_regs, limit_shared, limit_barriers])
    # Within the per-block limits but still no room for one block: registers come in groups
    # of 4 warps, so e.g. 320 threads × 200 registers (64000 ≤ 65536) still cannot launch.
    reasons.append((limit_regs == 0, "register file"))
    invalid = np.zeros(threads.shape, dtype=bool)
    for condition, _ in reasons:
        invalid |= condition
    blocks = np.where(invalid, 0, blocks)
    return {"threads": threads, "registers": registers, "shared": shared, "dynamic": dynamic, "barriers": barriers,
            "warps_per_block": warps_per_block, "regs_per_block": regs_per_block,
            "shared_per_block": shared_per_block, "shared_per_sm": shared_per_sm, "user_shared": user_shared,
            "shared_limit": np.full_like(threads, shared_limit),
            "limit_warps": limit_warps, "limit_blocks": limit_blocks, "limit_registers": limit_regs,
            "limit_shared": limit_shared, "limit_barriers": limit_barriers, "blocks": blocks, "invalid": invalid,
            "reasons": reasons}


def _reason(limits: DeviceLimits, parts: dict[str, np.ndarray], i: Any, opt_in: bool) -> str:
    """The first reason why configuration ``i`` cannot launch ("" when it can)."""
    for condition, text in parts["reasons"]:
        if not condition[i]:
            continue
        if text == "registers":
            return (f"{int(parts['threads'][i])} threads × {int(parts['registers'][i])} registers need "
                    f"{int(parts['regs_per_block'][i])} registers per block (allocated per warp), above the "
                    f"{limits.max_registers_per_block} a block may use")
        if text == "register file":
            per_warp = int(parts["regs_per_block"][i] // max(int(parts["warps_per_block"][i]), 1))
            return (f"{int(parts['warps_per_block'][i])} warps × {per_warp} registers per warp do not fit in the "
                    f"{limits.registers_per_sm} registers of an SM (registers are granted to "
                    f"{limits.warp_allocation_granularity} warps at a time)")
        if text == "shared":
            tail = ("" if opt_in or parts["user_shared"][i] > limits.max_shared_per_block_optin else
                    f" without the opt-in (up to {limits.max_shared_per_block_optin} with "
                    "cudaFuncAttributeMaxDynamicSharedMemorySize: pass opt_in=True)")
            return (f"{int(parts['user_shared'][i])} bytes of shared memory per block, above the "
                    f"{int(parts['shared_limit'][i])} allowed on compute capability {limits.cc}{tail}")
        return text
    return ""


def occupancy(cc: Any, threads_per_block: int, registers_per_thread: int, shared_bytes: int = 0, *,
              dynamic_shared_bytes: int = 0, opt_in: bool = False, carveout: float | None = None,
              barriers: int = 0) -> Occupancy:
    """Theoretical occupancy of one launch configuration.

    Parameters
    ----------
    cc:
        Compute capability (``"8.6"``, ``86``, ``"sm_86"``...; see :func:`device_limits`).
    threads_per_block:
        Threads in one block (the product of the block dimensions).
    registers_per_thread:
        Registers per thread as the compiler reports them (``ptxas -v``); 0 means unknown
        and lifts the register limit.
    shared_bytes:
        Shared memory per block in bytes as the compiler reports it (static), or the
        total if you have only that; without the system-reserved 1 KB, which is added here.
    dynamic_shared_bytes:
        Dynamic shared memory per block given at launch.
    opt_in:
        Whether the kernel opts in to more than 48 KB of shared memory per block
        (``cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)``).
        Without it, a block with more than 48 KB cannot launch.
    carveout:
        Preferred shared memory carveout in percent of the maximum (``None``: the largest).
    barriers:
        Named barriers the kernel uses (``ptxas -v``: "used N barriers"); 0: not counted.
        From 9.0 on they can limit blocks per SM (see the module docstring).

    Returns
    -------
    Occupancy

    Examples
    --------
    The register example of Ryoo et al. (§2.2), moved to a Volta SM: 256 threads with 10
    registers per thread fit 8 blocks (the warp limit); 4 KB of shared memory does not
    change that.

    >>> occupancy("7.0", 256, 10, 4096).blocks_per_sm
    8
    >>> r = occupancy("8.0", 128, 32, 100 * 1024)
    >>> r.valid, r.reason.split(" without")[0]
    (False, '102400 bytes of shared memory per block, above the 49152 allowed on compute capability 8.0')
    >>> occupancy("8.0", 128, 32, 100 * 1024, opt_in=True).blocks_per_sm
    1

    Four named barriers per block on a Hopper SM: its 64 barriers hold 16 blocks, not 32.

    >>> occupancy("9.0", 64, 32, barriers=4).blocks_per_sm, occupancy("9.0", 64, 32, barriers=4).limiting
    (16, ('barriers',))
    """
    limits = device_limits(cc)
    parts = _compute(limits, threads_per_block, registers_per_thread, shared_bytes, dynamic_shared_bytes,
                     opt_in, carveout, barriers)
    i = ()  # zero-dimensional arrays
    if parts["threads"].ndim:
        raise InputError("occupancy() takes one configuration; use occupancy_frame() for many",
                         where="threads_per_block", hint="pass scalars, or call occupancy_frame(frame, cc, ...)")
    blocks = int(parts["blocks"][i])
    valid = not bool(parts["invalid"][i])
    per = {name: int(parts[f"limit_{name}"][i]) for name in RESOURCES}
    limiting = tuple(name for name in RESOURCES if valid and per[name] == blocks)
    warps_per_block = int(parts["warps_per_block"][i])
    return Occupancy(
        cc=limits.cc, threads_per_block=int(parts["threads"][i]), registers_per_thread=int(parts["registers"][i]),
        shared_bytes=int(parts["shared"][i]), dynamic_shared_bytes=int(parts["dynamic"][i]),
        barriers=int(parts["barriers"][i]), valid=valid,
        reason=_reason(limits, parts, i, opt_in), blocks_per_sm=blocks, warps_per_block=warps_per_block,
        warps_per_sm=blocks * warps_per_block, threads_per_sm=blocks * int(parts["threads"][i]),
        occupancy=blocks * warps_per_block / limits.max_warps_per_sm, limiting=limiting, limits=per,
        registers_per_block=int(parts["regs_per_block"][i]), shared_per_block=int(parts["shared_per_block"][i]),
        shared_per_sm=int(parts["shared_per_sm"][i]))


Column = str | int | float | np.ndarray | pd.Series | Callable[[pd.DataFrame], Any]


def _column(frame: pd.DataFrame, spec: Column, name: str) -> Any:
    if callable(spec):
        return np.asarray(spec(frame))
    if isinstance(spec, str):
        if spec not in frame.columns:
            raise InputError(f"no column {spec!r} for {name}", where=name,
                             hint=f"columns are: {', '.join(map(str, frame.columns))}; or give a number "
                                  "or a function of the frame")
        spec = frame[spec]
    if isinstance(spec, pd.Series):
        # Nullable integer columns (as ResourceCompiler.frame gives) become floats; NA → NaN is caught later.
        return spec.to_numpy() if spec.dtype.kind in "iu" else spec.astype("float64").to_numpy()
    return np.asarray(spec)


def occupancy_frame(frame: pd.DataFrame, cc: Any, *, threads: Column = "threads_per_block",
                    registers: Column = "registers", shared: Column = "shared_bytes",
                    dynamic_shared: Column = 0, opt_in: bool = False, carveout: float | None = None,
                    barriers: Column = 0) -> pd.DataFrame:
    """Occupancy of every row of ``frame`` (vectorised; thousands of rows per millisecond).

    Parameters
    ----------
    frame:
        One row per configuration.
    cc, opt_in, carveout:
        As for :func:`occupancy`.
    threads, registers, shared, dynamic_shared, barriers:
        Each a column name, a constant, an array, or a function of the frame returning
        an array (``threads=lambda f: f.block_size_x * f.block_size_y``); ``barriers``:
        named barriers per block (0: not counted; see :func:`occupancy`).

    Returns
    -------
    pandas.DataFrame
        Same index as ``frame``: ``valid``, ``reason``, ``blocks_per_sm``, ``warps_per_block``,
        ``warps_per_sm``, ``occupancy``, ``limiting`` (resource names joined by ``+``),
        ``limit_warps``, ``limit_blocks``, ``limit_registers``, ``limit_shared``, ``limit_barriers``,
        ``registers_per_block``, ``shared_per_block``, ``shared_per_sm``.

    Examples
    --------
    >>> f = pd.DataFrame({"bx": [32, 256, 1024], "regs": [40, 40, 80], "smem": [0, 16384, 0]})
    >>> out = occupancy_frame(f, "8.6", threads="bx", registers="regs", shared="smem")
    >>> out[["blocks_per_sm", "occupancy", "limiting", "valid"]].to_dict("list")
    {'blocks_per_sm': [16, 5, 0], 'occupancy': [0.3333333333333333, 0.8333333333333334, 0.0], 'limiting': ['blocks', 'shared', ''], 'valid': [True, True, False]}
    """
    limits = device_limits(cc)
    columns = {name: _column(frame, spec, name) for name, spec in
               (("threads", threads), ("registers", registers), ("shared", shared), ("dynamic_shared", dynamic_shared),
                ("barriers", barriers))}
    n = len(frame)
    for name, values in columns.items():
        if values.ndim and len(values) != n:
            raise InputError(f"{name} has {len(values)} values for {n} rows", where=name,
                             hint="give one value per row, or a constant")
    parts = _compute(limits, np.broadcast_to(columns["threads"], (n,)), columns["registers"], columns["shared"],
                     columns["dynamic_shared"], opt_in, carveout, columns["barriers"])
    blocks = parts["blocks"]
    valid = ~parts["invalid"]
    limiting = np.full(n, "", dtype=object)
    for name in RESOURCES:
        hit = valid & (parts[f"limit_{name}"] == blocks)
        limiting = np.where(hit, np.where(limiting == "", name, limiting + "+" + name), limiting)
    reasons = np.full(n, "", dtype=object)
    for i in np.flatnonzero(~valid):  # only invalid rows need words
        reasons[i] = _reason(limits, parts, i, opt_in)
    out = pd.DataFrame({
        "valid": valid, "reason": reasons, "blocks_per_sm": blocks,
        "warps_per_block": parts["warps_per_block"], "warps_per_sm": blocks * parts["warps_per_block"],
        "occupancy": blocks * parts["warps_per_block"] / limits.max_warps_per_sm, "limiting": limiting,
        **{f"limit_{name}": parts[f"limit_{name}"] for name in RESOURCES},
        "registers_per_block": parts["regs_per_block"], "shared_per_block": parts["shared_per_block"],
        "shared_per_sm": parts["shared_per_sm"]}, index=frame.index)
    return out

