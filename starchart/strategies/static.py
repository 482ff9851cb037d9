"""What the compiler says about each configuration before anything runs, as features of the search's trees.

A tree-guided search knows nothing about a configuration until it is measured, so its first rounds are
uniform draws. A compiler knows a good deal without a GPU: registers, shared memory, spills, occupancy,
instructions executed and their mix (``starchart carve`` computes all of these per configuration, with
NVRTC and ptxas from PyPI). :class:`StaticFeatures` turns such a table into ordered features the trees may
split on from the first round, and marks which configurations carving kept (its *survivors*), where the
``static`` strategy draws its initial design.

Each metric becomes a feature of at most :data:`MAX_LEVELS` codes: its distinct values in order, or
quantile bands when there are more. Code 0 means "the compiler said nothing": the configuration is not in
the table, did not compile, or the metric is missing for it. A tree can split those off with one cut.

Examples
--------
>>> import pandas as pd
>>> from starchart.strategies.encoding import Encoding
>>> enc = Encoding.from_tune_params({"bx": [32, 64, 128]})
>>> table = pd.DataFrame({"bx": [32, 64, 128], "registers": [40, 40, 96], "occupancy": [1.0, 1.0, 0.5],
...                      "carved_by": ["", "dominated", ""]})
>>> static = StaticFeatures.from_table(enc, table)
>>> static.names
('registers', 'occupancy')
>>> static.features(enc.encode([{"bx": 128}, {"bx": 32}])).tolist()
[[2, 1], [1, 2]]
>>> static.survivors(enc.encode([{"bx": 32}, {"bx": 64}, {"bx": 128}])).tolist()
[True, False, True]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from starchart._util.configs import plain_value
from starchart.errors import InputError, say
from starchart.strategies.encoding import Encoding, _hashable

__all__ = ["MAX_LEVELS", "STATIC_METRICS", "StaticFeatures", "static_table"]

#: Where a table of static metrics comes from, in the words of the API or of the command line.
CARVING_TABLE = say("the frame of starchart.carve_source(...), or a CSV of it",
                    "the CSV `starchart carve SOURCE.cu ... --table FILE.csv` writes")

#: The metrics used when the table has them and none are named: resources, occupancy, the instruction
#: count and mix, carving's two scores (:mod:`starchart.carve.metrics`) and, when the table was carved with the
#: block's shape, the shared-memory wavefronts and bank conflicts (:mod:`starchart.carve.shared_memory`).
STATIC_METRICS = ("registers", "shared_bytes", "local_bytes", "occupancy", "blocks_per_sm", "instr",
                  "n_global_load", "n_global_store", "n_fp32", "efficiency", "utilization", "shared_wavefronts",
                  "bank_conflicts", "weighted_efficiency")

#: Most codes a metric's feature takes (code 0, unknown, included): finer bands give the trees no more to go on
#: with a few dozen samples, and cost time in every split search.
MAX_LEVELS = 32

#: Columns of a table that say which configurations carving kept: ``carved_by`` is empty for a survivor.
SURVIVOR_COLUMN = "carved_by"


@dataclass(frozen=True)
class StaticFeatures:
    """Per-configuration static metrics, coded as ordered features, and carving's survivors.

    Attributes
    ----------
    encoding:
        The space's encoding; the table's rows are matched to it by parameter values.
    names:
        The metrics used, in feature order.
    rows:
        Per matched configuration (by :meth:`Encoding.keys`), its row of feature codes.
    kept:
        The keys of the configurations carving kept (empty: the table says nothing about survivors).
    levels:
        Number of codes of each feature.
    """

    encoding: Encoding
    names: tuple[str, ...]
    rows: dict[Any, np.ndarray]
    kept: frozenset[Any]
    levels: np.ndarray

    @classmethod
    def from_table(cls, encoding: Encoding, table: pd.DataFrame, metrics: Sequence[str] | None = None,
                   where: str = "static") -> StaticFeatures:
        """Match ``table`` (one row per configuration: the space's parameters and numeric metric columns) to
        ``encoding``. ``metrics``: the columns to use; default: those of :data:`STATIC_METRICS` it has with two
        or more distinct values. Rows whose values are not the space's are ignored."""
        missing = [name for name in encoding.names if name not in table.columns]
        if missing:
            raise InputError(f"the static metrics lack the parameter(s) {', '.join(missing)}", where=where,
                             hint=f"give one row per configuration of the same space, with its parameters as columns: "
                                  f"{CARVING_TABLE}")
        names = _chosen_metrics(table, metrics, set(encoding.names), where)
        codes, inside = _codes(encoding, table)
        if not inside.any():
            raise InputError("no row of the static metrics is a configuration of the space", where=where,
                             hint="give the metrics of the same space, with values spelt as the space spells them")
        matched = table[inside]
        feature_codes = np.column_stack([_banded(pd.to_numeric(matched[name], errors="coerce").to_numpy(dtype=float))
                                         for name in names])
        levels = np.array([int(feature_codes[:, j].max()) + 1 for j in range(len(names))], dtype=np.int64)
        keys = [_hashable(k) for k in encoding.keys(codes)]
        rows = dict(zip(keys, feature_codes))
        kept: frozenset[Any] = frozenset()
        if SURVIVOR_COLUMN in matched.columns:
            survived = matched[SURVIVOR_COLUMN].fillna("").astype(str).eq("").to_numpy()
            kept = frozenset(k for k, ok in zip(keys, survived) if ok)
        return cls(encoding, names, rows, kept, np.maximum(levels, 2))

    def features(self, codes: np.ndarray) -> np.ndarray:
        """Feature codes (rows × metrics) of configurations given as value codes; 0 where the table has nothing."""
        unknown = np.zeros(len(self.names), dtype=np.int64)
        keys = self.encoding.keys(codes)
        return np.array([self.rows.get(_hashable(k), unknown) for k in keys], dtype=np.int64).reshape(-1, len(self.names))

    def survivors(self, codes: np.ndarray) -> np.ndarray:
        """Whether carving kept each configuration (all false when the table does not say)."""
        return np.array([_hashable(k) in self.kept for k in self.encoding.keys(codes)], dtype=bool)

    def __repr__(self) -> str:
        return (f"StaticFeatures({len(self.rows)} configurations, {len(self.kept)} kept by carving, "
                f"metrics {', '.join(self.names)})")


def static_table(static: Any, where: str = "static") -> pd.DataFrame:
    """The table of static metrics: a DataFrame, a carving result (its ``frame``), or a CSV, JSON or
    Parquet file of one."""
    frame = getattr(static, "frame", static)  # a CarveResult, named by what it holds: the carving floor is above
    if isinstance(frame, pd.DataFrame):
        return frame
    if not isinstance(static, (str, Path)):
        raise InputError(f"static metrics must be a table or a file, got {type(static).__name__}", where=where,
                         hint=f"give {CARVING_TABLE}")
    path = Path(static)
    if not path.is_file():
        raise InputError(f"{path} is not a file", where=where, hint=f"give {CARVING_TABLE}")
    readers = {".csv": pd.read_csv, ".json": pd.read_json, ".parquet": pd.read_parquet}
    reader = readers.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"{path.name}: static metrics are read from .csv, .json or .parquet", where=str(path),
                         hint=f"give {CARVING_TABLE}")
    try:
        return reader(path)
    except (ValueError, OSError, pd.errors.ParserError) as err:
        raise InputError(f"{path.name} could not be read as a table: {err}", where=str(path),
                         hint=f"give {CARVING_TABLE}") from None


def _chosen_metrics(table: pd.DataFrame, metrics: Sequence[str] | None, params: set[str],
                    where: str) -> tuple[str, ...]:
    if metrics is not None:
        unknown = [m for m in metrics if m not in table.columns]
        if unknown or not metrics:
            raise InputError(f"the static metrics have no column {unknown[0]!r}" if unknown
                             else "no static metric named", where=where,
                             hint=f"its columns are: {', '.join(map(str, table.columns))}")
        clash = [m for m in metrics if m in params]
        if clash:
            raise InputError(f"{clash[0]!r} is a parameter of the space, not a metric", where=where,
                             hint="name metric columns only")
        return tuple(metrics)
    chosen: tuple[str, ...] = ()
    for m in STATIC_METRICS:
        if m not in table.columns:
            continue
        values = pd.to_numeric(table[m], errors="coerce")
        # a constant column splits nothing; one equal to a column already chosen (weighted_efficiency of a kernel
        # without shared memory is its efficiency) only makes the trees weigh the same thing twice
        if values.dropna().nunique() >= 2 and not any(
                values.equals(pd.to_numeric(table[c], errors="coerce")) for c in chosen):
            chosen += (m,)
    if not chosen:
        raise InputError("the static metrics hold none of the known metric columns with two or more values",
                         where=where, hint=f"name the columns to use, or give a table with some of: "
                                           f"{', '.join(STATIC_METRICS)}")
    return chosen


def _codes(encoding: Encoding, table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Value codes of the table's rows, and which rows are configurations of the space."""
    codes = np.zeros((len(table), len(encoding.names)), dtype=np.int64)
    inside = np.ones(len(table), dtype=bool)
    for j, name in enumerate(encoding.names):
        index = pd.Index(list(encoding.values[j]), dtype=object, tupleize_cols=False)
        column = pd.Index([plain_value(v) for v in table[name].tolist()], dtype=object, tupleize_cols=False)
        found = index.get_indexer(column)
        inside &= found >= 0
        codes[:, j] = np.maximum(found, 0)
    return codes[inside], inside


def _banded(values: np.ndarray) -> np.ndarray:
    """Codes 1 … of ``values`` in order (NaN: 0): distinct values, or quantile bands beyond :data:`MAX_LEVELS` − 1."""
    finite = np.isfinite(values)
    if not finite.any():
        return np.zeros(len(values), dtype=np.int64)
    edges = np.unique(values[finite])
    if len(edges) > MAX_LEVELS - 1:
        edges = np.unique(np.quantile(values[finite], np.arange(1, MAX_LEVELS - 1) / (MAX_LEVELS - 1)))
    out = np.zeros(len(values), dtype=np.int64)
    out[finite] = 1 + np.searchsorted(edges, values[finite], side="left")
    return out
