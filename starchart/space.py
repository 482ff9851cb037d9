"""Tuning spaces: parameters with value lists, restrictions, counting, enumeration and sampling.

A :class:`Space` follows Kernel Tuner's convention: ``tune_params`` maps each
parameter name to its list of values (order significant and kept), and
``restrictions`` are Python expression strings or callables (see
:mod:`starchart.constraints`). A configuration is *valid* when it satisfies every
restriction.

How it stays fast: every configuration of the Cartesian product is an integer
*index*, whose mixed-radix digits (last parameter fastest, like
``itertools.product`` and Kernel Tuner) select one value per parameter. Each
restriction is evaluated once on the product of only the parameters it mentions
(a few hundred points for typical kernels) and kept as a boolean table; validity
of any batch of indices is then a few table look-ups, enumeration is a broadcast
``and`` of the tables block by block, and the number of valid configurations is
often computed exactly, for any Cartesian size, by summing the product of the
tables one parameter at a time (variable elimination).

Examples
--------
>>> space = Space({"x": [1, 2, 4, 8], "y": [1, 2, 4, 8], "fast": [True, False]},
...               restrictions=["x * y <= 8", "fast or x == 1"])
>>> space.cartesian_size, space.size()
(32, 14)
>>> space.to_frame().head(3)
   x  y   fast
0  1  1   True
1  1  1  False
2  1  2   True
>>> space.sample(2, seed=1).shape
(2, 3)
"""

from __future__ import annotations

import ast
import copy
import functools
import itertools
import math
import numbers
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import pandas as pd
import yaml

from starchart._util.files import as_path, nested_too_deep, parse_json, read_json, read_text
from starchart._util.text import shorten
from starchart._util.validation import Interval, check, check_seed, is_whole, random_generator
from starchart.constraints import (
    Restriction,
    as_restriction,
    compile_expression,
    compile_restriction,
)
from starchart.errors import InputError, SpaceError

__all__ = ["Parameter", "SizeEstimate", "Space", "powers_of_two", "value_range"]

Kind = Literal["numeric", "boolean", "categorical"]
#: The most values one parameter may have, listed or given by a ``range`` (a tuning parameter has tens; a step
#: too small for its bounds gives billions, which would be enumerated for hours).
MAX_VALUES = 1_000_000
_INT64_LIMIT = 2**63


# ------------------------------------------------------------------ value helpers
def value_range(start: float, stop: float, step: float = 1) -> list[int | float]:
    """The values ``start, start + step, ...`` up to and *including* ``stop``.

    Integers stay integers; float steps are rounded to 12 significant digits so
    that ``0.1`` steps do not drift.

    Examples
    --------
    >>> value_range(1, 8, 2)
    [1, 3, 5, 7]
    >>> value_range(0.5, 1.0, 0.25)
    [0.5, 0.75, 1.0]
    """
    for label, number in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(number, bool) or not isinstance(number, numbers.Real):
            raise SpaceError(f"range {label} must be a number, got {number!r}", hint="write e.g. range: [1, 8, 1]")
        if not _float_finite(number):
            beyond = " (too large for a float)" if isinstance(number, numbers.Integral) else ""
            raise SpaceError(f"range {label} must be a finite number{beyond}, got {shorten(repr(number), 40)}",
                             hint="write e.g. range: [1, 8, 1]")
    if step <= 0:
        raise SpaceError(f"range step must be positive, got {step!r}", hint="count upwards: start <= stop, step > 0")
    if stop < start:
        raise SpaceError(f"range stop {stop!r} is below start {start!r}", hint="write [start, stop] with start <= stop")
    try:
        count = math.floor((stop - start) / step + 1e-9) + 1
    except OverflowError:  # a step so small that the count is infinite as a float
        raise SpaceError(f"range [{start}, {stop}, {step}] has more values than can be counted, more than the "
                         f"{MAX_VALUES:,} a parameter may have", hint="use a larger step, or powers of two "
                                                                       "(pow2: [lo, hi])") from None
    _check_value_count(count, f"range [{start}, {stop}, {step}] has",
                       hint="use a larger step, or powers of two (pow2: [lo, hi])")
    if all(isinstance(v, numbers.Integral) for v in (start, stop, step)):
        return [int(start + i * step) for i in range(count)]
    return [float(f"{start + i * step:.12g}") for i in range(count)]


def _float_finite(number: float) -> bool:
    """Whether ``number`` is finite as a float (an integer of 400 digits is not: a float cannot hold it).

    >>> _float_finite(3), _float_finite(float("inf")), _float_finite(10**400)
    (True, False, False)
    """
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _check_value_count(count: int, what: str, hint: str | None = None, where: str | None = None) -> None:
    """Refuse ``what`` ("range() gives") when it would give a parameter more than :data:`MAX_VALUES` values (before they are made:
    a tiny step or a range of 10**9 was enumerated for minutes, then raised MemoryError)."""
    if count > MAX_VALUES:
        raise SpaceError(f"{what} {count:,} values, more than the {MAX_VALUES:,} a parameter may have",
                         where=where, hint=hint)


def powers_of_two(lo: int, hi: int) -> list[int]:
    """All powers of two ``p`` with ``lo <= p <= hi``.

    Examples
    --------
    >>> powers_of_two(1, 64)
    [1, 2, 4, 8, 16, 32, 64]
    >>> powers_of_two(3, 20)
    [4, 8, 16]
    """
    if (isinstance(lo, bool) or isinstance(hi, bool) or not all(isinstance(v, numbers.Real) for v in (lo, hi))
            or not all(_float_finite(v) for v in (lo, hi))):
        raise SpaceError(f"powers_of_two needs two finite numbers, got {shorten(repr(lo), 40)}, "
                         f"{shorten(repr(hi), 40)}", hint="write e.g. [1, 1024]")
    if lo <= 0 or hi < lo:
        raise SpaceError(f"powers_of_two needs 0 < lo <= hi, got {lo!r}, {hi!r}", hint="write e.g. [1, 1024]")
    values = [2**k for k in range(int(math.log2(hi)) + 2) if lo <= 2**k <= hi]
    if not values:
        raise SpaceError(f"no power of two lies between {lo!r} and {hi!r}", hint="widen the bounds")
    return values


# ----------------------------------------------------------------------- parameter
@dataclass(frozen=True)
class Parameter:
    """One tuning parameter: its name, its values (in the user's order) and their kind.

    ``array`` holds the values as numpy: int64 or float64 for numeric, bool for
    boolean, object for categorical (strings, ``None`` or a mix).

    Examples
    --------
    >>> p = Parameter.from_values("block", [32, 64])
    >>> p.kind, p.array.dtype.name, len(p)
    ('numeric', 'int64', 2)
    >>> Parameter.from_values("platform", ["hd7970", "gtx480"]).kind
    'categorical'
    """

    name: str
    values: tuple[Any, ...]
    kind: Kind
    array: np.ndarray = field(repr=False, compare=False)

    @classmethod
    def from_values(cls, name: str, values: Iterable[Any]) -> Parameter:
        """Check and classify ``values``; raises :class:`SpaceError` naming the parameter."""
        if not isinstance(name, str) or not name:
            raise SpaceError(f"parameter names must be non-empty strings, got {name!r}")
        if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
            raise SpaceError(f"the values must be a list, got {values!r}", where=f"parameter {name!r}",
                             hint=f"write a list, e.g. {name}: [{values!r}]")
        plain = _plain_values(name, values)
        if not plain:
            raise SpaceError("the list of values is empty", where=f"parameter {name!r}", hint="give at least one value")
        known = _one_plain_type(plain)
        if known is not None:
            return cls(name, plain, *known)
        kind = _kind_of(name, plain)
        _check_distinct(name, plain)
        return cls(name, plain, kind, _as_array(name, plain, kind))

    @functools.cached_property
    def index(self) -> pd.Index:
        """The values as a pandas Index, to map values to their positions (made once: its hash table is
        built on the first look-up, which for a million values costs more than the look-up)."""
        return pd.Index(self.array, dtype=self.array.dtype, tupleize_cols=False)

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "index"}  # made again on use

    def __len__(self) -> int:
        return len(self.values)


def _plain_values(name: str, values: Iterable[Any]) -> tuple[Any, ...]:
    """``values`` as a tuple of plain Python values (numpy scalars unwrapped), refused beyond :data:`MAX_VALUES`
    before a longer iterable is read through."""
    where, hint = f"parameter {name!r}", "a tuning parameter has tens of values: list fewer, or a coarser range"
    if isinstance(values, Sized):
        _check_value_count(len(values), "the list has", hint=hint, where=where)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        plain = tuple(values.tolist())  # Python scalars at C speed, as .item() gives them one by one
    else:
        plain = tuple(itertools.islice(values, MAX_VALUES + 1))
    if len(plain) > MAX_VALUES:  # an iterable without a length
        raise SpaceError(f"the values are more than the {MAX_VALUES:,} a parameter may have", where=where, hint=hint)
    if any(issubclass(t, np.generic) for t in set(map(type, plain))):
        plain = tuple(v.item() if isinstance(v, np.generic) else v for v in plain)
    return plain


def _one_plain_type(values: tuple[Any, ...]) -> tuple[Kind, np.ndarray] | None:
    """Kind and array of ``values`` when they are distinct values of one type (``int``, ``float``, ``bool`` or
    ``str``), checked at C speed; ``None`` for anything else (mixed types, ``None``, NaN, a repeat, an
    integer beyond 64 bits), which the per-value checks classify or refuse with the reason.

    >>> _one_plain_type((4, 1, 2))
    ('numeric', array([4, 1, 2]))
    >>> _one_plain_type((1, 2.5)) is None, _one_plain_type(("a", "a")) is None
    (True, True)
    """
    types = set(map(type, values))
    if len(types) != 1 or not types <= {int, float, bool, str} or len(set(values)) != len(values):
        return None
    (kind,) = types
    if kind is int:
        try:
            return "numeric", np.array(values, dtype=np.int64)
        except OverflowError:
            return None
    if kind is float:
        array = np.array(values, dtype=np.float64)
        return None if np.isnan(array).any() else ("numeric", array)
    if kind is bool:
        return "boolean", np.array(values, dtype=bool)
    return "categorical", _object_array(values)


def _object_array(values: tuple[Any, ...]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def _kind_of(name: str, values: tuple[Any, ...]) -> Kind:
    for value in values:
        if not (value is None or isinstance(value, (str, bool, numbers.Real))):
            raise SpaceError(f"unsupported value {value!r} of type {type(value).__name__}", where=f"parameter {name!r}",
                             hint="values must be numbers, booleans, strings or None")
        if isinstance(value, float) and math.isnan(value):
            raise SpaceError("NaN is not a valid value", where=f"parameter {name!r}", hint="remove it")
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        return "numeric"
    return "categorical"


def _check_distinct(name: str, values: tuple[Any, ...]) -> None:
    seen: set[tuple[str, Any]] = set()
    for value in values:
        # 1 and 1.0 are the same value; True and 1 are not (a boolean next to numbers is categorical)
        group = type(value).__name__
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            group = "number"
        if (group, value) in seen:
            raise SpaceError(f"the value {value!r} is listed twice", where=f"parameter {name!r}",
                             hint="list each value once")
        seen.add((group, value))


def _as_array(name: str, values: tuple[Any, ...], kind: Kind) -> np.ndarray:
    if kind == "boolean":
        return np.array(values, dtype=bool)
    if kind == "numeric":
        if all(isinstance(v, numbers.Integral) for v in values):
            if any(not -_INT64_LIMIT <= v < _INT64_LIMIT for v in values):
                raise SpaceError("an integer value does not fit in 64 bits", where=f"parameter {name!r}")
            return np.array(values, dtype=np.int64)
        return np.array(values, dtype=np.float64)
    return _object_array(values)


# -------------------------------------------------------------------- size result
@dataclass(frozen=True)
class SizeEstimate:
    """The number of valid configurations: exact, or estimated with a confidence interval.

    ``low`` and ``high`` bound the true size with probability ``confidence``
    (Wilson score interval over ``samples`` uniform draws of which ``hits`` were
    valid). When ``exact`` is true, ``estimate == low == high``.

    Examples
    --------
    >>> SizeEstimate(17956, 17956, 17956, exact=True)
    SizeEstimate(estimate=17956, low=17956, high=17956, exact=True, confidence=1.0, samples=0, hits=0)
    """

    estimate: int
    low: int
    high: int
    exact: bool
    confidence: float = 1.0
    samples: int = 0
    hits: int = 0

    def __str__(self) -> str:
        if self.exact:
            return f"{self.estimate:,} (exact)"
        return (f"≈{self.estimate:,} ({self.confidence:.0%} interval {self.low:,} to {self.high:,}, "
                f"from {self.hits:,} valid of {self.samples:,} samples)")


@dataclass
class _Factor:
    """A restriction placed in a space: the parameter axes it reads and, if small, its verdict table."""

    restriction: Restriction
    axes: tuple[int, ...]
    table: np.ndarray | None = None      # shape: radix on its axes, 1 elsewhere (broadcasts over the space)
    flat: np.ndarray | None = None       # table.ravel(), for look-ups by sub-index
    strides: tuple[int, ...] = ()        # sub-index strides of `axes` within `flat`


# -------------------------------------------------------------------------- space
class Space:
    """A tuning space: ordered parameters with value lists, and restrictions on their combinations.

    Parameters
    ----------
    tune_params:
        ``{name: [values]}``, Kernel Tuner's convention. Values are numbers,
        booleans or strings (categorical); order is kept.
    restrictions:
        Restriction strings such as ``"block_size_x * block_size_y <= 1024"``,
        callables of a dict of numpy columns returning a boolean array, callables
        marked with :func:`starchart.constraints.rowwise`, or
        :class:`~starchart.constraints.Restriction` objects. One or a sequence.

    Notes
    -----
    Class attributes (override on an instance to tune): ``exact_limit`` — the
    largest Cartesian size :meth:`size` enumerates; ``enumerate_limit`` — up to
    this Cartesian size the valid set is enumerated once and sampled from
    directly; ``table_limit`` — the largest sub-product a restriction is
    tabulated on; ``max_draws`` — how many random configurations
    :meth:`sample` may draw before declaring the space too sparse;
    ``block_size`` — configurations processed per block.

    Examples
    --------
    >>> space = Space({"bx": powers_of_two(16, 256), "by": [1, 2, 4], "shmem": [0, 1]},
    ...               ["bx * by <= 512", "shmem == 0 or bx >= 64"])
    >>> space.names
    ('bx', 'by', 'shmem')
    >>> space.size()
    22
    >>> space.is_valid({"bx": 16, "by": 4, "shmem": 1})
    False
    """

    exact_limit: int = 10**8
    enumerate_limit: int = 10**7
    table_limit: int = 2**22
    max_draws: int = 10**8
    block_size: int = 2**20

    value_range = staticmethod(value_range)
    powers_of_two = staticmethod(powers_of_two)

    def __init__(self, tune_params: Mapping[str, Iterable[Any]],
                 restrictions: Any = ()):
        if not isinstance(tune_params, Mapping):
            raise SpaceError(f"tune_params must be a dict of name -> list of values, got {type(tune_params).__name__}",
                             hint="write e.g. {'block_size_x': [32, 64, 128]}")
        if not tune_params:
            raise SpaceError("a space needs at least one parameter", hint="give tune_params such as {'x': [1, 2]}")
        self._parameters = tuple(Parameter.from_values(name, values) for name, values in tune_params.items())
        self._names = tuple(p.name for p in self._parameters)
        single = isinstance(restrictions, (str, Restriction)) or callable(restrictions)
        if single or not isinstance(restrictions, Iterable):
            restrictions = [restrictions]
        self._restrictions = tuple(as_restriction(r, self._names) for r in restrictions)
        self._radices = tuple(len(p) for p in self._parameters)
        self._allowed: np.ndarray | None = None  # sorted keys of the only configurations allowed (from_dataset)
        self._factors: tuple[_Factor, ...] | None = None
        self._size: int | None = None
        self._valid: np.ndarray | None = None    # sorted keys of all valid configurations, when computed

    # ----------------------------------------------------------------- properties
    @property
    def parameters(self) -> tuple[Parameter, ...]:
        """The parameters, in order."""
        return self._parameters

    @property
    def names(self) -> tuple[str, ...]:
        """The parameter names, in order."""
        return self._names

    @property
    def restrictions(self) -> tuple[Restriction, ...]:
        """The compiled restrictions (``.source`` is what the user gave)."""
        return self._restrictions

    @property
    def tune_params(self) -> dict[str, list[Any]]:
        """``{name: [values]}`` as Kernel Tuner takes it."""
        return {p.name: list(p.values) for p in self._parameters}

    def restricted(self, restrictions: Any) -> Space:
        """This space with more restrictions (strings or callables, as the constructor takes them); its own
        restrictions, limits and allowed configurations are kept as they are.

        >>> Space({"x": range(10)}, "x % 2 == 0").restricted("x > 4").size()
        2
        """
        single = isinstance(restrictions, (str, Restriction)) or callable(restrictions)
        more = [restrictions] if single or not isinstance(restrictions, Iterable) else list(restrictions)
        narrowed = copy.copy(self)  # the same class and limits (exact_limit, ...) as this space
        narrowed._restrictions = (*self._restrictions, *(as_restriction(r, self._names) for r in more))
        narrowed._factors, narrowed._size, narrowed._valid = None, None, None  # counted again
        return narrowed

    def within(self, region: Any) -> Space:
        """The part of this space inside ``region``, a leaf of a tree (:class:`~starchart.tree.Subspace`,
        through its ``to_restrictions()``): to measure more designs where the tree says the best ones are
        (iterative sampling, as TACO does), ``space.within(tree.best_leaf()).sample(n)``.

        >>> import pandas as pd
        >>> from starchart import StarchartTree
        >>> space = Space({"tpp": [1, 2, 4, 8, 16], "consec": [0, 1]})
        >>> X = space.to_frame()
        >>> tree = StarchartTree(min_samples_split=2).fit(X, 10.0 / X["tpp"] + X["consec"])
        >>> best = tree.best_leaf()
        >>> best.to_restrictions(), space.within(best).size()
        (['tpp > 8', 'consec <= 0'], 1)
        """
        if not callable(getattr(region, "to_restrictions", None)):
            raise InputError(f"a region is a leaf of a tree (tree.best_leaf(), tree.leaves_), got "
                             f"{type(region).__name__}", where="region", hint="e.g. space.within(tree.best_leaf())")
        return self.restricted(region.to_restrictions(self.tune_params))

    @property
    def cartesian_size(self) -> int:
        """The number of configurations before restrictions: the product of the value counts."""
        return math.prod(self._radices)

    def __repr__(self) -> str:
        return (f"Space({_count(len(self._parameters), 'parameter')}, "
                f"{_count(len(self._restrictions), 'restriction')}, cartesian_size={self.cartesian_size})")

    # ------------------------------------------------------------------ counting
    def size(self) -> int:
        """The exact number of valid configurations.

        Computed by variable elimination over the restriction tables when
        possible (any Cartesian size), else by enumerating the Cartesian product
        in blocks when it has at most ``exact_limit`` points. Otherwise raises
        :class:`SpaceError` pointing to :meth:`size_estimate`.
        """
        if self._size is None:
            self._size = self._cheap_size()
        if self._size is None:
            if self.cartesian_size > self.exact_limit:
                raise SpaceError(
                    f"the space has {self.cartesian_size:.3g} Cartesian configurations, more than the "
                    f"{self.exact_limit:.3g} that size() enumerates, and its restrictions cannot be counted "
                    "without enumerating", where=repr(self),
                    hint="use space.size_estimate() for an estimate with a confidence interval")
            self._size = sum(self._scan(count_only=True))
        return self._size

    def size_estimate(self, n: int = 200_000, seed: int | np.random.Generator | None = None,
                      confidence: float = 0.95) -> SizeEstimate:
        """The number of valid configurations, exact when cheap, else estimated from ``n`` uniform draws.

        "Cheap" means already known, countable by variable elimination, or a
        Cartesian size of at most ``enumerate_limit``.

        Examples
        --------
        >>> Space({"x": range(100)}, ["x % 3 == 0"]).size_estimate()
        SizeEstimate(estimate=34, low=34, high=34, exact=True, confidence=1.0, samples=0, hits=0)
        """
        # checked whatever the path: an exact count used none of them, and accepted n=0 or seed='x'
        n = _check_count(n, "n", minimum=1)
        if not isinstance(seed, np.random.Generator):
            check_seed(seed)
        confidence = check("confidence", confidence, Interval(float, 0, 1, closed="neither"), hint="e.g. 0.95",
                           error=SpaceError)
        known = self._size if self._size is not None else self._cheap_size()
        if known is not None:
            self._size = known
            return SizeEstimate(known, known, known, exact=True)
        rng = random_generator(seed)
        hits = 0
        for start in range(0, n, self.block_size):
            m = min(self.block_size, n - start)
            hits += int(np.count_nonzero(self._mask(self._draw_digits(rng, m), m)))
        low, high = _wilson(hits, n, confidence)
        total = self.cartesian_size
        return SizeEstimate(round(hits / n * total), math.floor(low * total), math.ceil(high * total),
                            exact=False, confidence=confidence, samples=n, hits=hits)

    def _cheap_size(self) -> int | None:
        if self._valid is not None:
            return len(self._valid)
        if self._allowed is not None or self.cartesian_size <= self.enumerate_limit:
            return len(self._valid_keys())
        return self._count_by_elimination()

    # ---------------------------------------------------------------- enumeration
    def enumerate(self, chunk_size: int = 100_000) -> Iterator[pd.DataFrame]:
        """Yield the valid configurations in Cartesian order, as DataFrames of up to ``chunk_size`` rows.

        Columns are the parameter names in order; the index counts the valid
        configurations from 0 across chunks.

        Examples
        --------
        >>> [len(chunk) for chunk in Space({"x": range(10)}, "x != 3").enumerate(chunk_size=4)]
        [4, 4, 1]
        """
        # checked on the call, not at the first next() of a generator
        return self._chunks(_check_count(chunk_size, "chunk_size", minimum=1))

    def _chunks(self, chunk_size: int) -> Iterator[pd.DataFrame]:
        pending: list[np.ndarray] = []
        pending_rows = start = 0
        for keys in self._valid_keys_iter():
            pending.append(keys)
            pending_rows += len(keys)
            if pending_rows < chunk_size:
                continue
            keys_all = np.concatenate(pending)
            cut = pending_rows - pending_rows % chunk_size
            for offset in range(0, cut, chunk_size):
                yield self._frame(self._decode(keys_all[offset:offset + chunk_size]), start)
                start += chunk_size
            pending, pending_rows = [keys_all[cut:]], pending_rows - cut
        if pending_rows:
            yield self._frame(self._decode(np.concatenate(pending)), start)

    def to_frame(self, limit: int = 10**7) -> pd.DataFrame:
        """All valid configurations as one DataFrame; raises if there are more than ``limit``."""
        limit = _check_count(limit, "limit")
        if self._valid is None and self.cartesian_size > self.enumerate_limit:
            known = self._count_by_elimination()
            if known is not None and known > limit:
                raise _too_many(known, limit)
        chunks, rows = [], 0
        for keys in self._valid_keys_iter():
            rows += len(keys)
            if rows > limit:
                raise _too_many(rows, limit, at_least=True)
            chunks.append(keys)
        keys = np.concatenate(chunks) if chunks else np.empty(0, dtype=self._key_dtype())
        return self._frame(self._decode(keys), 0)

    # ------------------------------------------------------------------- sampling
    def sample(self, n: int, seed: int | np.random.Generator | None = None) -> pd.DataFrame:
        """Draw ``n`` distinct valid configurations uniformly at random.

        Small spaces (Cartesian size up to ``enumerate_limit``) are sampled
        exactly from their enumerated valid set; larger ones by drawing random
        Cartesian configurations in batches and keeping valid, unseen ones. The
        same ``seed`` gives the same rows, in the same order.

        Raises :class:`SpaceError` when ``n`` exceeds the number of valid
        configurations, or when so few draws are valid that ``n`` of them cannot
        be found within ``max_draws`` draws.

        Examples
        --------
        >>> space = Space({"x": range(1000), "y": range(1000)}, "x < y")
        >>> frame = space.sample(3, seed=7)
        >>> bool((frame.x < frame.y).all()), frame.index.tolist()
        (True, [0, 1, 2])
        """
        n = _check_count(n, "n")
        rng = random_generator(seed)
        if self._size is None and self._valid is None and self._allowed is None:
            self._size = self._count_by_elimination()
        if self._size is not None and n > self._size:
            raise _not_enough(n, self._size)
        # Enumerate when it is cheap, or when most valid configurations are wanted: rejection
        # sampling would then spend most of its draws on duplicates. Decide only by what every call
        # knows (not by a count an earlier size() scanned): the same seed must give the same rows.
        most = (self._size is not None and 2 * n > self._size and self.cartesian_size <= self.exact_limit
                and self._count_by_elimination() is not None)
        if self._allowed is not None or self.cartesian_size <= self.enumerate_limit or most:
            valid = self._valid_keys()
            if n > len(valid):
                raise _not_enough(n, len(valid))
            keys = valid[rng.choice(len(valid), size=n, replace=False)] if n else valid[:0]
            return self._frame(self._decode(keys), 0)
        return self._frame(self._rejection_sample(n, rng), 0)

    def _rejection_sample(self, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """Digits of ``n`` distinct valid configurations, drawn uniformly (in draw order)."""
        seen = np.empty(0, dtype=self._key_dtype())
        chosen: list[list[np.ndarray]] = []
        have = drawn = accepted = 0  # `have`: distinct valid configurations kept so far
        batch = int(min(self.block_size, max(4 * n, 4096)))
        while have < n:
            digits = self._draw_digits(rng, batch)
            drawn += batch
            rows = np.flatnonzero(self._mask(digits, batch))
            accepted += len(rows)
            keys = self._encode([d[rows] for d in digits])
            _, first = np.unique(keys, return_index=True)
            first.sort()  # keep draw order: the sample order must not depend on key order
            fresh = first[~np.isin(keys[first], seen)][: n - have]
            seen = np.concatenate([seen, keys[fresh]])
            chosen.append([d[rows[fresh]] for d in digits])
            have += len(fresh)
            if have < n:
                batch = self._next_batch(n - have, drawn, accepted, have)
        return [np.concatenate(parts) for parts in zip(*chosen)] if chosen else self._decode(seen)

    def _next_batch(self, missing: int, drawn: int, accepted: int, distinct: int) -> int:
        """Size the next batch, or give up when even an optimistic yield needs too many draws."""
        # ~95% upper bound on the rate of new distinct valid configurations per draw ("rule of three")
        optimistic = (distinct + 3) / drawn
        needed = missing / optimistic
        if drawn + needed > self.max_draws:
            raise SpaceError(
                f"only {accepted:,} of {drawn:,} random configurations satisfied the restrictions "
                f"(acceptance {accepted / drawn:.2g}); {missing:,} more distinct valid configurations would "
                f"need about {needed:,.0f} more draws, beyond max_draws={self.max_draws:,}",
                where=repr(self),
                hint="tighten the parameters' value lists so that fewer combinations are invalid, "
                     "ask for fewer samples, or raise space.max_draws")
        return int(min(self.block_size, max(4096, 1.25 * needed)))

    # ------------------------------------------------------------------ checking
    def contains(self, configs: pd.DataFrame | Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> np.ndarray:
        """For each configuration (row), whether it is in the space: values listed and restrictions met.

        Extra columns (measurements, say) are ignored; missing parameters raise.

        Examples
        --------
        >>> space = Space({"x": [1, 2, 4], "y": ["a", "b"]}, "x > 1 or y == 'a'")
        >>> space.contains(pd.DataFrame({"x": [1, 1, 3, 4], "y": ["a", "b", "a", "b"]})).tolist()
        [True, False, False, True]
        """
        frame = _as_frame(configs)
        missing = [name for name in self._names if name not in frame.columns]
        if missing:
            raise SpaceError(f"the configurations lack the parameters {missing}", where="configurations",
                             hint=f"give a column for each of: {', '.join(self._names)}")
        inside = np.ones(len(frame), dtype=bool)
        digits = []
        for parameter in self._parameters:
            code = _codes(parameter, pd.Index(frame[parameter.name], tupleize_cols=False))
            inside &= code >= 0
            digits.append(np.maximum(code, 0).astype(np.int64))
        rows = np.flatnonzero(inside)
        result = np.zeros(len(frame), dtype=bool)
        result[rows] = self._mask([d[rows] for d in digits], len(rows))
        return result

    def is_valid(self, config: Mapping[str, Any]) -> bool:
        """Whether one configuration ``{name: value}`` is in the space."""
        return bool(self.contains([config])[0])

    def __contains__(self, config: object) -> bool:
        return isinstance(config, Mapping) and self.is_valid(config)

    # -------------------------------------------------------------- description
    def describe(self) -> str:
        """A human-readable summary: sizes, parameters, restrictions.

        Examples
        --------
        >>> print(Space({"x": [1, 2], "mode": ["a", "b"]}, "x > 1").describe())
        Space with 2 parameters and 1 restriction
          Cartesian configurations: 4
          valid configurations:     2 (50.0%)
        parameters:
          x     numeric      2 values: 1, 2
          mode  categorical  2 values: 'a', 'b'
        restrictions:
          x > 1
        """
        count = self.size_estimate(seed=0)  # exact when cheap, else a sampled estimate
        valid = f"{count.estimate:,} ({_share(count.estimate, self.cartesian_size)})" if count.exact else str(count)
        title = (f"Space with {_count(len(self._parameters), 'parameter')} and "
                 f"{_count(len(self._restrictions), 'restriction')}")
        lines = [title,
                 f"  Cartesian configurations: {self.cartesian_size:,}",
                 f"  valid configurations:     {valid}", "parameters:"]
        width = max(len(name) for name in self._names)
        for p in self._parameters:
            shown = ", ".join(repr(v) if isinstance(v, str) else str(v) for v in p.values[:8])
            more = f", ... ({len(p) - 8} more)" if len(p) > 8 else ""
            count = f"{len(p)} {'value' if len(p) == 1 else 'values'}"
            lines.append(f"  {p.name:<{width}}  {p.kind:<11}  {count}: {shown}{more}")
        if self._restrictions:
            lines.append("restrictions:")
            lines.extend(f"  {r.source if isinstance(r.source, str) else r.label + ' (callable)'}"
                         for r in self._restrictions)
        if self._allowed is not None:
            lines.append(f"only the {len(self._allowed):,} configurations of a dataset are allowed")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable description, readable back with :meth:`from_dict` / :meth:`from_file`.

        Raises :class:`SpaceError` when a restriction is a callable (code cannot be saved).

        Examples
        --------
        >>> Space({"x": [1, 2], "on": [True, False]}, "x > 1 or on").to_dict()
        {'parameters': {'x': [1, 2], 'on': [True, False]}, 'restrictions': ['x > 1 or on']}
        """
        callables = [r.label for r in self._restrictions if not isinstance(r.source, str)]
        if callables:
            raise SpaceError(f"restrictions {callables} are functions, which cannot be saved", where=repr(self),
                             hint="write them as restriction strings to save or export the space")
        data: dict[str, Any] = {"parameters": self.tune_params,
                                "restrictions": [r.source for r in self._restrictions]}
        if self._allowed is not None:
            digits = self._decode(self._allowed)
            columns = [p.array[d].tolist() for p, d in zip(self._parameters, digits)]
            data["allowed"] = [list(row) for row in zip(*columns)]
        return data

    # -------------------------------------------------------------------- readers
    @classmethod
    def from_dict(cls, data: Mapping[str, Any], where: str = "space") -> Space:
        """Build a space from the space-file schema (see :meth:`from_file`); ``where`` names the source in errors."""
        if not isinstance(data, Mapping):
            raise InputError(f"a space must be a mapping with 'parameters', got {type(data).__name__}", where=where,
                             hint="start the file with 'parameters:'")
        # 'evaluator' belongs to the study file format that `starchart run` reads; a Space ignores it
        unknown = sorted(set(data) - {"parameters", "restrictions", "allowed", "evaluator"})
        if unknown:
            raise InputError(f"unknown keys {unknown}", where=where,
                             hint="a space file has 'parameters', optional 'restrictions', 'allowed' "
                                  "and 'evaluator'")
        params = data.get("parameters")
        if not isinstance(params, Mapping) or not params:
            raise InputError("'parameters' must be a non-empty mapping of name -> values", where=where,
                             hint="write e.g. parameters: {block_size_x: [32, 64]}")
        for name in params:
            if not isinstance(name, str):  # YAML reads on/off/yes/no/true as booleans, 1 as a number
                raise InputError(f"the parameter name {name!r} is not a string", where=f"{where}, parameters",
                                 hint=f"quote it: '{name}'" if not isinstance(name, bool) else
                                 "YAML reads on/off/yes/no as booleans: quote the name, e.g. 'on'")
        tune_params = {name: _values_from_spec(spec, f"{where}, parameters.{name}") for name, spec in params.items()}
        restrictions = data.get("restrictions") or []
        if isinstance(restrictions, str):
            restrictions = [restrictions]
        if not isinstance(restrictions, list) or not all(isinstance(r, str) for r in restrictions):
            raise InputError("'restrictions' must be a list of expression strings", where=f"{where}, restrictions",
                             hint="write e.g. restrictions: ['x * y <= 1024']")
        space = _located(lambda: _tabulated(cls(tune_params, restrictions)), where)
        if data.get("allowed") is not None:
            _located(lambda: space._set_allowed_rows(data["allowed"]), f"{where}, allowed")
        return space

    @classmethod
    def from_file(cls, path: str | Path) -> Space:
        """Read a space file of our own (YAML or JSON, optionally gzipped).

        Schema::

            parameters:
              block_size_x: [16, 32, 64, 128]   # explicit values (numbers, true/false, strings)
              tile: {range: [1, 8]}             # 1..8 inclusive; optional step: [1, 8, 2]
              threads: {powers_of_two: [1, 1024]}
              platform: {values: [hd7970, gtx480]}
            restrictions:                       # optional: Python expressions over the names
              - block_size_x * threads <= 1024
            allowed:                            # optional: the only configurations allowed,
              - [16, 1, 1, hd7970]              #   rows in parameter order

        Errors name the file and the offending key.
        """
        path = as_path(path)
        text = read_text(path)
        suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
        data = parse_json(text, path, unique_keys=True) if suffixes[-1:] == [".json"] else _parse_yaml(text, path)
        return cls.from_dict(data, where=str(path))

    @classmethod
    def from_t1(cls, path: str | Path, document: Mapping[str, Any] | None = None) -> Space:
        """Read the tuning space of a T1 input file (``ConfigurationSpace``).

        Pass ``document`` when the file is already parsed (``path`` then only names it in errors).

        ``TuningParameters[].Values`` is a Python-literal string (also simple
        comprehensions such as ``"[2**i for i in range(6)]"``, evaluated safely),
        cast to ``Type`` (int, uint, float, bool, string); ``Conditions[].Expression``
        and ``Restrictions[]`` strings become restrictions.
        """
        data = read_json(path) if document is None else document
        config_space = data.get("ConfigurationSpace") if isinstance(data, Mapping) else None
        if not isinstance(config_space, Mapping) or not isinstance(config_space.get("TuningParameters"), list):
            raise InputError("no ConfigurationSpace.TuningParameters list", where=path,
                             hint="give a T1 input file (schema T1 1.0.0)")
        tune_params: dict[str, list[Any]] = {}
        for i, entry in enumerate(config_space["TuningParameters"]):
            where = f"{path}, ConfigurationSpace.TuningParameters[{i}]"
            if not isinstance(entry, Mapping) or not isinstance(entry.get("Name"), str) or "Values" not in entry:
                raise InputError("a tuning parameter needs 'Name' and 'Values'", where=where)
            where = f"{where} ({entry['Name']})"
            if entry["Name"] in tune_params:  # a dict would keep the second silently
                first = next(j for j, e in enumerate(config_space["TuningParameters"]) if e.get("Name") == entry["Name"])
                raise InputError(f"the parameter name {entry['Name']!r} is given twice (first in "
                                 f"TuningParameters[{first}])", where=where,
                                 hint="give each tuning parameter its own name, or remove one of them")
            tune_params[entry["Name"]] = _t1_values(entry["Values"], entry.get("Type", "int"), where)
        restrictions = _t1_restrictions(config_space, path)
        located = [(text, f"{path}, ConfigurationSpace.{place}") for text, place in restrictions]
        names = list(tune_params)
        # compile one by one so that an error names the condition it came from
        compiled = [_located(lambda t=text: as_restriction(t, names), where) for text, where in located]
        return _located(lambda: _tabulated(cls(tune_params, compiled)), str(path))

    @classmethod
    def from_kernel_tuner(cls, cache: str | Path | Mapping[str, Any], restrictions: Any = (),
                          max_threads: int | None = None, where: str | None = None) -> Space:
        """The ``tune_params`` of a Kernel Tuner cache file (or its parsed dict), with the given restrictions.

        Kernel Tuner caches do not store restrictions: pass them. ``max_threads``
        adds Kernel Tuner's implicit ``block_size_x * block_size_y * block_size_z
        <= max_threads`` over whichever of those parameters exist. ``where`` names
        the source in errors (default: the path, or "Kernel Tuner cache" for a dict).
        """
        where = where or (str(cache) if not isinstance(cache, Mapping) else "Kernel Tuner cache")
        data = read_json(cache) if not isinstance(cache, Mapping) else cache
        tune_params = data.get("tune_params") if isinstance(data, Mapping) else None
        if not isinstance(tune_params, Mapping) or not tune_params:
            raise InputError("no 'tune_params' in the cache", where=where,
                             hint="give a Kernel Tuner cache file (JSON with tune_params and cache)")
        order = data.get("tune_params_keys") or list(tune_params)
        if not isinstance(order, list) or not all(isinstance(k, str) for k in order):
            raise InputError(f"tune_params_keys must be a list of parameter names, got {shorten(repr(order), 60)}",
                             where=where, hint='e.g. "tune_params_keys": ["block_size_x", "tile"]')
        missing = [k for k in order if k not in tune_params]
        if missing:
            raise InputError(f"tune_params_keys names {missing}, absent from tune_params", where=where)
        restrictions = [restrictions] if isinstance(restrictions, str) or callable(restrictions) else list(restrictions)
        blocks = [name for name in ("block_size_x", "block_size_y", "block_size_z") if name in tune_params]
        max_threads = check("max_threads", max_threads, None, Interval(int, 1, None),
                            hint="the most threads a block may have, e.g. 1024")
        if max_threads is not None and blocks:
            restrictions.append(f"{' * '.join(blocks)} <= {int(max_threads)}")
        return _located(lambda: _tabulated(cls({k: tune_params[k] for k in order}, restrictions)), where)

    @classmethod
    def from_dataset(cls, data: pd.DataFrame | Any) -> Space:
        """The finite space of the configurations a table holds.

        ``data`` is a DataFrame of parameter columns, or an object with ``.params``
        (the parameter names) and ``.frame`` (a DataFrame), such as a
        :class:`starchart.Dataset`. Each parameter's values are the distinct values
        of its column (sorted); only the combinations present are allowed.

        Examples
        --------
        >>> space = Space.from_dataset(pd.DataFrame({"x": [2, 1, 2], "y": ["b", "a", "a"]}))
        >>> space.tune_params, space.size()
        ({'x': [1, 2], 'y': ['a', 'b']}, 3)
        """
        if hasattr(data, "params") and hasattr(data, "frame"):
            frame = data.frame[list(data.params)]
        elif isinstance(data, pd.DataFrame):
            frame = data
        else:
            raise SpaceError(f"from_dataset needs a DataFrame or a Dataset, got {type(data).__name__}")
        if frame.shape[1] == 0 or len(frame) == 0:
            raise SpaceError("the table has no parameter columns or no rows", where="dataset",
                             hint="give a table with one column per parameter and one row per configuration")
        names = [str(name) for name in frame.columns]
        repeated = sorted({name for name in names if names.count(name) > 1}) if len(set(names)) < len(names) else []
        if repeated:  # a column as a whole frame: pandas' ValueError came out
            raise SpaceError(f"the column(s) {repeated} appear more than once", where="dataset",
                             hint="give every parameter column its own name")
        frame = frame.set_axis(names, axis=1)
        lists = [name for name in names if frame[name].dtype.kind == "O"
                 and not frame[name].map(_hashable).all()]
        if lists:  # unhashable: they cannot be the values of a parameter
            raise SpaceError(f"the column {lists[0]!r} holds lists or mappings, not values", where="dataset",
                             hint="a parameter's values are numbers, booleans or text")
        space = cls({name: _distinct_values(frame[name], name) for name in frame.columns})
        space._set_allowed_frame(frame)
        return space

    # ================================================================ internals
    def _set_allowed_rows(self, rows: Any) -> None:
        """Allow only the given configurations: a list of rows of values in parameter order."""
        width = len(self._names)
        if not isinstance(rows, list):
            raise SpaceError("must be a list of rows", hint=f"write each row as [{', '.join(self._names)}]")
        bad = [i for i, row in enumerate(rows) if not isinstance(row, (list, tuple)) or len(row) != width]
        if bad:
            raise SpaceError(f"row {bad[0]} is not a list of {width} values", where=f"row {bad[0]}",
                             hint=f"write each row as [{', '.join(self._names)}]")
        for i, row in enumerate(rows):
            for name, value in zip(self._names, row):
                if not _is_value(value):  # a nested list: looking it up among the values raised TypeError
                    raise SpaceError(f"{name}={shorten(repr(value), 60)} is a {type(value).__name__}, not a value",
                                     where=f"row {i}",
                                     hint=f"write each row as [{', '.join(self._names)}], one number, boolean or "
                                          "text per parameter")
        self._set_allowed_frame(pd.DataFrame(rows, columns=list(self._names), dtype=object))

    def _set_allowed_frame(self, frame: pd.DataFrame) -> None:
        """Allow only the configurations in the rows of ``frame`` (one column per parameter)."""
        digits = []
        for parameter in self._parameters:
            column = pd.Index(frame[parameter.name], tupleize_cols=False)
            code = _codes(parameter, column)
            if (code < 0).any():
                row = int(np.flatnonzero(code < 0)[0])
                raise SpaceError(f"row {row} has {parameter.name}={column[row]!r}, not one of its values",
                                 where=f"row {row}", hint=f"list it in the values of {parameter.name!r}")
            digits.append(code.astype(np.int64))
        self._allowed = np.unique(self._encode(digits))
        self._size = self._valid = None

    def _key_dtype(self) -> np.dtype:
        return np.dtype(np.int64) if self._flat_keys else np.dtype((np.void, 4 * len(self._radices)))

    @property
    def _flat_keys(self) -> bool:
        """Whether a configuration's key is its Cartesian index (else: big-endian digit bytes)."""
        return self.cartesian_size < _INT64_LIMIT

    def _encode(self, digits: Sequence[np.ndarray]) -> np.ndarray:
        """Keys of configurations given by their digits; sorting keys sorts in Cartesian order."""
        if self._flat_keys:
            key = np.zeros(len(digits[0]) if digits else 0, dtype=np.int64)
            for radix, d in zip(self._radices, digits):
                key = key * radix + d
            return key
        # Cartesian indices overflow int64: use the digits as big-endian bytes, which sort the same way.
        stacked = np.ascontiguousarray(np.stack(digits, axis=1).astype(">u4"))
        return stacked.view(self._key_dtype()).ravel()

    def _decode(self, keys: np.ndarray) -> list[np.ndarray]:
        """Digits (one int64 array per parameter) of configurations given by their keys."""
        if not self._flat_keys:
            matrix = np.ascontiguousarray(keys).view(">u4").reshape(len(keys), len(self._radices))
            return [matrix[:, j].astype(np.int64) for j in range(len(self._radices))]
        digits = np.unravel_index(np.asarray(keys, dtype=np.int64), self._radices)
        return [d.astype(np.int64, copy=False) for d in digits]

    def _draw_digits(self, rng: np.random.Generator, m: int) -> list[np.ndarray]:
        """``m`` uniform random Cartesian configurations (with replacement), as digits."""
        return [rng.integers(0, radix, size=m, dtype=np.int64) for radix in self._radices]

    def _frame(self, digits: Sequence[np.ndarray], start: int) -> pd.DataFrame:
        count = len(digits[0]) if digits else 0
        data = {p.name: p.array[d] for p, d in zip(self._parameters, digits)}
        # copy=False: the columns are fresh arrays; consolidating them into one block would copy them all
        return pd.DataFrame(data, index=pd.RangeIndex(start, start + count), columns=list(self._names), copy=False)

    # -- restrictions as factors
    def _get_factors(self) -> tuple[_Factor, ...]:
        """Place each restriction on its axes, tabulating it when its sub-product is small (done once)."""
        if self._factors is None:
            self._factors = tuple(self._place(r) for r in self._restrictions)
        return self._factors

    def _place(self, restriction: Restriction) -> _Factor:
        axes = tuple(self._names.index(name) for name in restriction.names)
        sub_shape = tuple(self._radices[a] for a in axes)
        factor = _Factor(restriction, axes)
        if math.prod(sub_shape) > self.table_limit:
            return factor
        if restriction.broadcastable:
            # open mesh: numpy broadcasts each sub-expression over just the axes it uses
            columns = {self._names[a]: self._parameters[a].array.reshape(_axis_shape(i, len(axes)))
                       for i, a in enumerate(axes)}
            table = np.ascontiguousarray(np.broadcast_to(restriction(columns), sub_shape))
        else:
            grid = np.indices(sub_shape).reshape(len(axes), -1) if axes else np.zeros((0, 1), dtype=np.int64)
            columns = {self._names[a]: self._parameters[a].array[grid[i]] for i, a in enumerate(axes)}
            table = restriction(columns, size=grid.shape[1]).reshape(sub_shape)
        full_shape = tuple(self._radices[j] if j in axes else 1 for j in range(len(self._radices)))
        factor.table = table.reshape(full_shape)
        factor.flat = table.ravel()
        factor.strides = tuple(math.prod(sub_shape[i + 1:]) for i in range(len(axes)))
        return factor

    def _mask(self, digits: Sequence[np.ndarray], m: int, tables: bool = True) -> np.ndarray:
        """Validity of ``m`` configurations given by their digits (parameter values assumed listed)."""
        factors = self._get_factors()
        ok = np.ones(m, dtype=bool)
        if tables:
            for f in factors:
                if f.flat is not None:
                    sub = sum((digits[a] * s for a, s in zip(f.axes, f.strides)), start=np.zeros(m, dtype=np.int64))
                    ok &= f.flat[sub]
        generic = [f for f in factors if f.flat is None]
        if not generic and self._allowed is None:
            return ok
        rows = np.flatnonzero(ok)  # evaluate the costly checks only on the survivors
        keep = np.ones(len(rows), dtype=bool)
        if self._allowed is not None:
            keep &= np.isin(self._encode([d[rows] for d in digits]), self._allowed)
        for f in generic:
            idx = rows[keep]
            columns = {self._names[a]: self._parameters[a].array[digits[a][idx]] for a in f.axes}
            keep[keep] = f.restriction(columns, size=len(idx))
        ok[rows] = keep
        return ok

    # -- enumeration internals
    def _valid_keys(self) -> np.ndarray:
        """All valid keys, sorted (computed once)."""
        if self._valid is None:
            parts = list(self._valid_keys_iter())
            self._valid = np.concatenate(parts) if parts else np.empty(0, dtype=self._key_dtype())
            self._size = len(self._valid)
        return self._valid

    def _valid_keys_iter(self) -> Iterator[np.ndarray]:
        if self._valid is not None:
            yield self._valid
        else:
            yield from self._scan()

    def _scan(self, count_only: bool = False) -> Iterator[Any]:
        """Valid keys (or their counts), block by block in Cartesian order."""
        if self._allowed is not None:
            for start in range(0, len(self._allowed), self.block_size):
                keys = self._allowed[start:start + self.block_size]
                keys = keys[self._mask(self._decode(keys), len(keys))]
                yield len(keys) if count_only else keys
            return
        if not self._flat_keys:
            raise SpaceError(f"cannot enumerate {self.cartesian_size:.3g} configurations", where=repr(self),
                             hint="sample() the space instead, or shrink its value lists")
        generic = any(f.flat is None for f in self._get_factors())
        radices = self._radices
        split = next(k for k in range(len(radices) + 1) if math.prod(radices[k:]) <= self.block_size)
        block = math.prod(radices[split:])
        prefixes = math.prod(radices[:split])
        group = max(1, self.block_size // block)
        for p0 in range(0, prefixes, group):
            p1 = min(prefixes, p0 + group)
            mask = self._block_mask(p0, p1, split)
            if count_only and not generic:
                yield int(np.count_nonzero(mask))
                continue
            keys = np.flatnonzero(mask).astype(np.int64) + p0 * block
            if generic:
                keys = keys[self._mask(self._decode(keys), len(keys), tables=False)]
            yield len(keys) if count_only else keys

    def _block_mask(self, p0: int, p1: int, split: int) -> np.ndarray:
        """Table verdicts for prefixes ``p0..p1`` (of the first ``split`` parameters) by all the rest."""
        trailing = self._radices[split:]
        mask = np.ones((p1 - p0, *trailing), dtype=bool)
        prefix = np.unravel_index(np.arange(p0, p1, dtype=np.int64), self._radices[:split]) if split else ()
        for f in self._get_factors():
            if f.table is None:
                continue
            table = f.table
            if all(n == 1 for n in table.shape[:split]):
                view = table.reshape((1, *table.shape[split:]))
            else:  # pick each prefix's slice; singleton axes take index 0
                view = table[tuple(prefix[j] if table.shape[j] > 1 else 0 for j in range(split))]
            np.logical_and(mask, view, out=mask)
        return mask

    def _count_by_elimination(self) -> int | None:
        """Exact valid count by summing out parameters one at a time, or None if not cheap."""
        factors = self._get_factors()
        if self._allowed is not None or any(f.table is None for f in factors):
            return None
        # counts are exact: int64 cannot overflow below 2**63 configurations, Python ints above
        dtype = np.int64 if self._flat_keys else object
        tables = [(f.axes, f.table.reshape([self._radices[a] for a in f.axes]).astype(dtype)) for f in factors]
        return _eliminate(tables, self._radices, self.table_limit)


# --------------------------------------------------------------- module helpers
def _axis_shape(i: int, n: int) -> tuple[int, ...]:
    return tuple(-1 if j == i else 1 for j in range(n))


def _eliminate(tables: list[tuple[tuple[int, ...], np.ndarray]], radices: Sequence[int], limit: int) -> int | None:
    """Sum over all assignments of the product of ``tables`` (variable elimination, min-size order).

    Each table is ``(axes, counts)`` with ``axes`` sorted. Returns None if an
    intermediate table would exceed ``limit`` entries.

    Examples
    --------
    >>> import numpy as np
    >>> _eliminate([((0, 1), np.array([[1, 0], [1, 1]]))], [2, 2, 3], 100)
    9
    """
    mentioned = sorted({a for axes, _ in tables for a in axes})
    free = math.prod(radices[j] for j in range(len(radices)) if j not in mentioned)
    remaining = list(mentioned)

    def cost(v: int) -> int:  # entries of the table that summing out v creates
        return math.prod(radices[a] for a in {a for axes, _ in tables if v in axes for a in axes})

    while remaining:
        var = min(remaining, key=cost)
        if cost(var) > limit:
            return None
        involved = [t for t in tables if var in t[0]]
        tables = [t for t in tables if var not in t[0]]
        union = sorted({a for axes, _ in involved for a in axes})
        product = np.ones([radices[a] for a in union], dtype=involved[0][1].dtype)
        for axes, counts in involved:
            product = product * counts.reshape([radices[a] if a in axes else 1 for a in union])
        tables.append((tuple(a for a in union if a != var), product.sum(axis=union.index(var))))
        remaining.remove(var)
    return free * math.prod(int(counts) for _, counts in tables)


def _wilson(hits: int, n: int, confidence: float) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _share(part: int, whole: int) -> str:
    """``part / whole`` as a percentage that is 0 % or 100 % only when it is exactly that.

    >>> _share(1, 2), _share(532005871, 11 * 10**12), _share(9999, 10000), _share(0, 5)
    ('50.0%', '0.0048%', '>99.9%', '0.0%')
    """
    percent = 100 * part / whole if whole else 0.0
    if 0 < percent < 0.1:  # a huge space's sliver is not "0.0%"
        return f"{percent:.2g}%"
    if 99.95 <= percent < 100:
        return ">99.9%"
    return f"{percent:.1f}%"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _check_count(value: Any, label: str, minimum: int = 0) -> int:
    return check(label, value, Interval(int, minimum, None), error=SpaceError)


def _not_enough(n: int, valid: int) -> SpaceError:
    return SpaceError(f"asked for {n:,} distinct configurations but the space has only {valid:,} valid ones",
                      hint=f"ask for at most {valid} (--samples {valid}); in Python, to_frame() gives them all"
                      if valid else "the restrictions exclude every configuration: loosen them")


def _too_many(count: int, limit: int, at_least: bool = False) -> SpaceError:
    return SpaceError(f"the space has {'more than ' if at_least else ''}{limit if at_least else count:,} valid "
                      f"configurations, over the limit of {limit:,} for to_frame()",
                      hint="iterate with enumerate(chunk_size=...), sample(), or raise the limit")


def _as_frame(configs: Any) -> pd.DataFrame:
    if isinstance(configs, pd.DataFrame):
        return configs
    if isinstance(configs, Mapping):
        return pd.DataFrame([configs])
    return pd.DataFrame(list(configs))


def _tabulated(space: Space) -> Space:
    """``space`` with its restrictions evaluated once now, so that one failing on the values (``s + 1`` on a
    string parameter) is reported where the space is read, not later by whatever first counts it."""
    space._get_factors()
    return space


def _located(build: Callable[[], Any], where: str) -> Any:
    """Run ``build``, prefixing the location to any :class:`SpaceError` it raises."""
    try:
        return build()
    except SpaceError as exc:
        inner = f", {exc.where}" if exc.where else ""
        raise SpaceError(exc.message, where=f"{where}{inner}", hint=exc.hint) from exc


def _hashable(value: Any) -> bool:
    """Whether ``value`` can be looked up in a hash table (a list, a dict, an array, a tuple of lists cannot).

    >>> _hashable(1), _hashable("a"), _hashable([1]), _hashable((1, [2]))
    (True, True, False, False)
    """
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _is_value(value: Any) -> bool:
    """Whether ``value`` can be a parameter's value: a number, a boolean, a string or None (as
    :meth:`Parameter.from_values` accepts them)."""
    return value is None or (isinstance(value, (str, bool, numbers.Real, np.generic)) and _hashable(value))


def _codes(parameter: Parameter, column: pd.Index) -> np.ndarray:
    """The positions of ``column``'s entries among ``parameter``'s values, -1 for an entry that is none of
    them: also a list or a mapping, which a hash table look-up refuses with TypeError."""
    try:
        return parameter.index.get_indexer(column)
    except TypeError:
        keep = np.fromiter((_hashable(v) for v in column), dtype=bool, count=len(column))
        code = np.full(len(column), -1, dtype=np.intp)
        code[keep] = parameter.index.get_indexer(column[keep])
        return code


def _distinct_values(column: pd.Series, name: str) -> list[Any]:
    if column.isna().any():
        raise SpaceError(f"column {name!r} has missing values", where="dataset",
                         hint="drop or fill the rows without a value for this parameter")
    values = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(column)]
    kinds = {type(v) for v in values}
    if all(isinstance(v, (numbers.Real, bool)) for v in values) or kinds == {str}:
        return sorted(values)
    return values


def _values_from_spec(spec: Any, where: str) -> list[Any]:
    """Values of one parameter in a space file: a list, or {values|range|powers_of_two: ...}."""
    if isinstance(spec, list):
        return spec
    if not isinstance(spec, Mapping) or len(spec) != 1:
        raise InputError(f"cannot read the values {spec!r}", where=where,
                         hint="write a list [..], or one of {values: [..]}, {range: [start, stop, step]}, "
                              "{powers_of_two: [lo, hi]}")
    (key, arg), = spec.items()
    if key == "values" and isinstance(arg, list):
        return arg
    if key == "range" and isinstance(arg, list) and len(arg) in (2, 3):
        return _located(lambda: value_range(*arg), where)
    if key == "powers_of_two" and isinstance(arg, list) and len(arg) == 2:
        return _located(lambda: powers_of_two(*arg), where)
    raise InputError(f"cannot read {{{key}: {shorten(repr(arg), 80)}}}", where=where,
                     hint="use {values: [..]}, {range: [start, stop]} or [start, stop, step], "
                          "or {powers_of_two: [lo, hi]}")


class _DuplicateKey(Exception):
    """A YAML mapping gives ``key`` twice: on (0-based) ``first_line`` and again on ``line``."""

    def __init__(self, key: Any, line: int, first_line: int):
        super().__init__(key)
        self.key, self.line, self.first_line = key, line, first_line


@functools.cache
def _strict_yaml_loader() -> type:
    """PyYAML's safe loader, except that a mapping may not give a key twice (plain YAML keeps the last)."""

    class StrictLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            first: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base` may override on purpose
                    continue
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, Hashable):
                    continue
                if key in first:
                    raise _DuplicateKey(key, key_node.start_mark.line, first[key])
                first[key] = key_node.start_mark.line
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _parse_yaml(text: str, path: Path) -> Any:
    """The YAML document ``text`` read from ``path``; a syntax error or a key given twice names the line."""
    try:
        return yaml.load(text, Loader=_strict_yaml_loader())  # a SafeLoader subclass: safe
    except _DuplicateKey as exc:
        raise InputError(f"key {exc.key!r} is given twice (first on line {exc.first_line + 1})",
                         where=f"{path}, line {exc.line + 1}",
                         hint="keep one of them (YAML would silently use the last)") from None
    except RecursionError:
        raise nested_too_deep(path) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark is not None else ""
        raise InputError(f"invalid YAML: {getattr(exc, 'problem', None) or exc}", where=f"{path}{line}",
                         hint="repair the file (quote restriction strings that start with special characters)") from exc


# ---------------------------------------------------------------- T1 helpers
def _t1_bool(value: Any) -> bool:
    """A T1 bool value: true/false (any case, also as a string) or 0/1; ``bool("false")`` would be True."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, numbers.Real) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{value!r} is not true/false")


def _t1_float(value: Any) -> float:
    """A T1 float value: a number, or a string that spells one."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise ValueError(f"{value!r} is not a number")
    return float(value)


_T1_CASTS: dict[str, Callable[[Any], Any]] = {"float": _t1_float, "string": str, "bool": _t1_bool}


def _t1_values(raw: Any, type_name: Any, where: str) -> list[Any]:
    values = raw if isinstance(raw, list) else _parse_value_list(raw, where) if isinstance(raw, str) else None
    if values is None:
        raise InputError(f"'Values' must be a string such as \"[1, 2, 4]\", got {shorten(repr(raw), 80)}",
                         where=where)
    if not isinstance(type_name, str):  # a list or a number was looked up among the type names: TypeError
        raise InputError(f"'Type' must be a type name, got {shorten(repr(type_name), 60)}", where=where,
                         hint='write one of "int", "uint", "float", "bool" or "string"')
    _check_t1_finite(values, where)
    if type_name in ("int", "uint"):
        wrong = next((v for v in values if not is_whole(v)), _NONE)
        if wrong is not _NONE:
            raise InputError(f"Type is {type_name} but the values {shorten(repr(values), 80)} are not all integers "
                             f"({shorten(repr(wrong), 40)} is not)", where=where,
                             hint="fix Values, or declare the Type as float or string")
        if type_name == "uint" and any(v < 0 for v in values):
            raise InputError(f"Type is uint but the values {shorten(repr(values), 80)} include negative numbers",
                             where=where, hint="fix Values, or declare the Type as int")
        return [int(v) for v in values]
    if type_name not in _T1_CASTS:
        raise InputError(f"unknown Type {shorten(repr(type_name), 60)}", where=where,
                         hint="use int, uint, float, bool or string")
    cast: list[Any] = []
    for value in values:
        try:
            cast.append(_T1_CASTS[type_name](value))
        except (TypeError, ValueError, OverflowError) as exc:  # e.g. float("a"): say which value, not a traceback
            raise InputError(f"Type is {type_name} but the value {shorten(repr(value), 60)} is not a {type_name}",
                             where=where, hint="fix Values, or declare the Type as string") from exc
    _check_t1_finite(cast, where)  # float("inf") of the string "inf"
    return cast


#: No value (``None`` is one a list may hold).
_NONE = object()


def _check_t1_finite(values: list[Any], where: str) -> None:
    """Refuse infinite and NaN numbers among a T1 parameter's values: they come from numbers beyond the float
    range (``[2**i for i in range(2000)]`` is evaluated in floats past 2**1023, ``1e999`` reads as inf), and
    printing the whole list of them read as a crash.

    >>> _check_t1_finite([1, 2.5, "inf"], "x")
    >>> _check_t1_finite([1.0, 2.0, float("inf"), float("inf")], "x")
    Traceback (most recent call last):
    ...
    starchart.errors.InputError: x: 2 of the 4 values are not finite numbers, the first at position 2 (inf) \
(hint: a value beyond the float range (about 1.8e308) becomes inf: list values a tuning parameter can take)
    """
    bad = [i for i, v in enumerate(values) if isinstance(v, float) and not math.isfinite(v)]
    if bad:
        raise InputError(f"{len(bad):,} of the {len(values):,} values are not finite numbers, the first at "
                         f"position {bad[0]} ({values[bad[0]]!r})", where=where,
                         hint="a value beyond the float range (about 1.8e308) becomes inf: list values a tuning "
                              "parameter can take")


def _t1_restrictions(config_space: Mapping[str, Any], path: Any) -> list[tuple[str, str]]:
    """(expression, location) of every Conditions[] / Restrictions[] entry."""
    found = []
    for key in ("Conditions", "Restrictions"):
        entries = config_space.get(key) or []
        if not isinstance(entries, list):
            raise InputError(f"{key} must be a list", where=f"{path}, ConfigurationSpace.{key}")
        for i, entry in enumerate(entries):
            text = entry.get("Expression") if isinstance(entry, Mapping) else entry
            if not isinstance(text, str):
                raise InputError("expected an expression string", where=f"{path}, ConfigurationSpace.{key}[{i}]",
                                 hint="write {\"Expression\": \"x * y <= 1024\", \"Parameters\": [\"x\", \"y\"]}")
            found.append((text, f"{key}[{i}]"))
    return found


def _parse_value_list(text: str, where: str) -> list[Any]:
    """A list of values from a Python-literal string, safely (no eval).

    Beyond literals: ``range(...)``, ``list(range(...))``, element-wise arithmetic
    and one-loop comprehensions over a range or list, with ``if`` filters.

    Examples
    --------
    >>> _parse_value_list("[2**i for i in range(4) if i != 1]", "here")
    [1, 4, 8]
    >>> _parse_value_list("list(range(3, 9, 2))", "here")
    [3, 5, 7]
    """
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        try:
            value = _evaluate_values(ast.parse(text.strip(), mode="eval").body, text)
        except SyntaxError as exc:
            raise InputError(f"the values {shorten(text, 80)!r} are not a Python expression ({exc.msg})",
                             where=where) from exc
        except (RecursionError, MemoryError):  # thousands of nested operators: Python's parser gives up
            raise InputError(f"the values {shorten(text, 80)!r} are nested too deeply to read", where=where,
                             hint="write a literal list such as [1, 2, 4], a range(...), or a comprehension") from None
        except SpaceError as exc:
            raise InputError(f"cannot evaluate the values {shorten(text, 80)!r}: {exc.message}", where=where,
                             hint="write a literal list such as [1, 2, 4], a range(...), or a comprehension "
                                  "[f(i) for i in range(...)]") from exc
    if isinstance(value, (list, tuple, range)):
        return list(value)
    raise InputError(f"the values {shorten(text, 80)!r} are not a list", where=where,
                     hint="write e.g. \"[1, 2, 4]\"")


def _evaluate_values(node: ast.AST, text: str) -> Any:
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_evaluate_scalar(elt, text) for elt in node.elts]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id == "range" and 1 <= len(node.args) <= 3:
            args = [_evaluate_scalar(arg, text) for arg in node.args]
            if not all(isinstance(a, numbers.Integral) for a in args):
                raise SpaceError(f"range() needs integers, got {args}")
            values = range(*(int(a) for a in args))
            _check_value_count(len(values), "range() gives")
            return list(values)
        if node.func.id == "list" and len(node.args) == 1:
            return _evaluate_values(node.args[0], text)
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        loop = node.generators[0]
        if isinstance(loop.target, ast.Name) and not loop.is_async:
            return _evaluate_comprehension(node.elt, loop, text)
    raise SpaceError(f"`{ast.get_source_segment(text.strip(), node) or type(node).__name__}` is not supported")


def _evaluate_comprehension(elt: ast.AST, loop: ast.comprehension, text: str) -> list[Any]:
    """``[elt for name in seq if cond]``, evaluated vectorised with the restriction compiler."""
    name = loop.target.id  # type: ignore[attr-defined]
    column = {name: np.asarray(_evaluate_values(loop.iter, text))}
    keep = np.ones(len(column[name]), dtype=bool)
    for condition in loop.ifs:
        keep &= compile_restriction(ast.unparse(condition), [name])(column, size=len(keep))
    value, bad = compile_expression(ast.unparse(elt), [name]).evaluate(column)
    if bad is not None and np.any(np.broadcast_to(bad, keep.shape)[keep]):
        raise SpaceError("an element cannot be computed (division by zero?)")
    return np.broadcast_to(value, keep.shape)[keep].tolist()


def _evaluate_scalar(node: ast.AST, text: str) -> Any:
    value, bad = compile_expression(ast.unparse(node), []).evaluate({})
    if bad is not None and np.any(bad):
        raise SpaceError(f"`{ast.unparse(node)}` cannot be computed (division by zero?)")
    return value.item() if isinstance(value, (np.generic, np.ndarray)) else value
