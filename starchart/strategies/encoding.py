"""Configurations as rows of value codes, and the candidate pool a search chooses from.

A search reasons about a configuration as a row of *value codes*: per parameter,
the position of its value in the parameter's natural order (numbers and
booleans sorted, categories in the order listed). Neighbouring values have
neighbouring codes, which is what a tree split (``code ≤ t``) and a local step
(one parameter one value up or down) need.

Examples
--------
>>> enc = Encoding.from_tune_params({"bx": [64, 16, 32], "mode": ["a", "b"]})
>>> enc.values[0].tolist(), enc.categorical.tolist()
([16, 32, 64], [False, True])
>>> codes = enc.encode([{"bx": 32, "mode": "b"}, {"bx": 64, "mode": "a"}])
>>> codes.tolist()
[[1, 1], [2, 0]]
>>> enc.decode(codes)
[{'bx': 32, 'mode': 'b'}, {'bx': 64, 'mode': 'a'}]
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.configs import plain_value
from starchart.errors import InputError
from starchart.space import Space

__all__ = ["CandidatePool", "Encoding"]


@dataclass(frozen=True)
class Encoding:
    """How the values of each parameter map to codes ``0 … n_levels − 1``.

    Attributes
    ----------
    names:
        Parameter names, in the space's order.
    values:
        Per parameter, its values in code order.
    categorical:
        Per parameter, whether its values have no order (split by category sets,
        any other category is a neighbour).
    """

    names: tuple[str, ...]
    values: tuple[np.ndarray, ...]
    categorical: np.ndarray

    @classmethod
    def from_tune_params(cls, tune_params: Mapping[str, Sequence[Any]]) -> Encoding:
        """Code order from Kernel Tuner style ``{name: [values]}``: numbers and booleans sorted."""
        names, values, categorical = [], [], []
        for name, listed in tune_params.items():
            plain = [plain_value(v) for v in listed]
            ordered = all(isinstance(v, numbers.Real) for v in plain) and (
                all(isinstance(v, bool) for v in plain) or not any(isinstance(v, bool) for v in plain))
            array = np.empty(len(plain), dtype=object)
            array[:] = sorted(plain) if ordered else plain
            names.append(str(name))
            values.append(array)
            categorical.append(not ordered)
        return cls(tuple(names), tuple(values), np.array(categorical, dtype=bool))

    @classmethod
    def from_space(cls, space: Space) -> Encoding:
        """The encoding of a :class:`starchart.Space` (its parameters' kinds decide the order)."""
        tune_params = {p.name: list(p.values) for p in space.parameters}
        return cls.from_tune_params(tune_params)

    @property
    def n_levels(self) -> np.ndarray:
        """Number of values of each parameter."""
        return np.array([len(v) for v in self.values], dtype=np.int64)

    def encode(self, configs: pd.DataFrame | Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Codes (rows × parameters) of configurations; raises :class:`InputError` on unknown values."""
        frame = configs if isinstance(configs, pd.DataFrame) else pd.DataFrame(list(configs), columns=list(self.names))
        codes = np.empty((len(frame), len(self.names)), dtype=np.int64)
        for j, name in enumerate(self.names):
            if name not in frame.columns:
                raise InputError(f"the configurations lack the parameter {name!r}", where="configurations",
                                 hint=f"give a value for each of: {', '.join(self.names)}")
            index = pd.Index(list(self.values[j]), dtype=object, tupleize_cols=False)
            column = pd.Index([plain_value(v) for v in frame[name].tolist()], dtype=object, tupleize_cols=False)
            found = index.get_indexer(column)
            if (found < 0).any():
                row = int(np.flatnonzero(found < 0)[0])
                raise InputError(f"{name}={column[row]!r} is not one of the parameter's values",
                                 where=f"configuration {row}",
                                 hint=f"{name} takes the values {list(self.values[j])}")
            codes[:, j] = found
        return codes

    def decode(self, codes: np.ndarray) -> list[dict[str, Any]]:
        """Configurations ``{name: value}`` (plain Python values) of rows of codes."""
        codes = np.asarray(codes, dtype=np.int64).reshape(-1, len(self.names))
        columns = [self.values[j][codes[:, j]].tolist() for j in range(len(self.names))]
        return [dict(zip(self.names, row)) for row in zip(*columns)]

    def keys(self, codes: np.ndarray) -> np.ndarray:
        """One hashable key per row of codes (an integer when the Cartesian size fits in 63 bits)."""
        codes = np.asarray(codes, dtype=np.int64).reshape(-1, len(self.names))
        levels = self.n_levels
        if np.sum(np.log2(np.maximum(levels, 1))) < 62:
            key = np.zeros(len(codes), dtype=np.int64)
            for j, radix in enumerate(levels):
                key = key * radix + codes[:, j]
            return key
        packed = np.ascontiguousarray(codes.astype(">u4"))
        return packed.view(np.dtype((np.void, 4 * len(levels)))).ravel()

    def neighbours(self, row: np.ndarray) -> np.ndarray:
        """Codes of the configurations one step from ``row``: one ordered parameter one value up or
        down, or one categorical parameter set to another category (validity not checked)."""
        out = []
        for j, radix in enumerate(self.n_levels):
            steps = [c for c in range(radix) if c != row[j]] if self.categorical[j] else [row[j] - 1, row[j] + 1]
            for c in steps:
                if 0 <= c < radix:
                    moved = row.copy()
                    moved[j] = c
                    out.append(moved)
        return np.array(out, dtype=np.int64).reshape(-1, len(self.names))


class CandidatePool:
    """The configurations a search may choose from, as codes, with which are already evaluated.

    A finite space is enumerated once and the pool is all of it. A space too big
    to enumerate starts from a uniform sample and grows: :meth:`extend` adds new
    candidates (fresh samples, neighbours of good configurations) that the
    ``valid`` callback accepts, skipping ones already present.

    Examples
    --------
    >>> enc = Encoding.from_tune_params({"x": [1, 2, 3]})
    >>> pool = CandidatePool(enc, enc.encode([{"x": 1}, {"x": 2}]))
    >>> pool.extend(np.array([[1], [2]])).tolist()
    [2]
    >>> len(pool), pool.find(np.array([[2], [0]])).tolist()
    (3, [2, 0])
    """

    def __init__(self, encoding: Encoding, codes: np.ndarray,
                 valid: Callable[[np.ndarray], np.ndarray] | None = None, complete: bool = True):
        self.encoding = encoding
        self.valid = valid
        self.complete = complete  # whether the pool holds every valid configuration
        self._codes = np.empty((0, len(encoding.names)), dtype=np.int64)
        self._index: dict[Any, int] = {}
        self.evaluated = np.zeros(0, dtype=bool)
        self.extend(np.asarray(codes, dtype=np.int64), check=False)

    def __len__(self) -> int:
        return len(self._codes)

    @property
    def codes(self) -> np.ndarray:
        """All candidates' codes (rows in pool order)."""
        return self._codes

    def find(self, codes: np.ndarray) -> np.ndarray:
        """Pool index of each row of ``codes`` (−1 where absent)."""
        return np.array([self._index.get(_hashable(k), -1) for k in self.encoding.keys(codes)], dtype=np.int64)

    def extend(self, codes: np.ndarray, check: bool = True) -> np.ndarray:
        """Add the rows of ``codes`` that are new (and valid, when ``check``); returns their pool indices."""
        codes = np.asarray(codes, dtype=np.int64).reshape(-1, len(self.encoding.names))
        if not len(codes):
            return np.empty(0, dtype=np.int64)
        keys = [_hashable(k) for k in self.encoding.keys(codes)]
        fresh, seen = [], set()
        for i, key in enumerate(keys):
            if key not in self._index and key not in seen:
                seen.add(key)
                fresh.append(i)
        if fresh and check and self.valid is not None:
            fresh = [i for i, ok in zip(fresh, self.valid(codes[fresh])) if ok]
        start = len(self._codes)
        for offset, i in enumerate(fresh):
            self._index[keys[i]] = start + offset
        self._codes = np.concatenate([self._codes, codes[fresh]])
        self.evaluated = np.concatenate([self.evaluated, np.zeros(len(fresh), dtype=bool)])
        return np.arange(start, start + len(fresh))


def _hashable(key: Any) -> Any:
    return int(key) if isinstance(key, (np.integer, int)) else bytes(key)
