"""Serve stored measurements as if measuring: :class:`ReplayEvaluator`."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from starchart._util.configs import config_key, frame_keys
from starchart.dataset import REPEATS_PREFIX, Dataset
from starchart.errors import InputError
from starchart.io.load import load
from starchart.measure.base import Evaluator, Measurement, check_metrics
from starchart.space import Space

#: The names a Kernel Tuner cache or T4 file carries, and a replay of it keeps for an export.
SOURCE_NAMES = ("kernel_name", "device_name", "problem_size")


class ReplayEvaluator(Evaluator):
    """Answer each configuration from a :class:`~starchart.Dataset` (a Kernel Tuner cache, a store...).

    Searches and runs can then be benchmarked on real, exhaustively measured
    spaces: pair it with ``Space.from_dataset(dataset)``. Failed configurations
    of the dataset come back as failures with their status and reason; a
    configuration the dataset lacks comes back as a ``runtime`` failure.

    Parameters
    ----------
    dataset:
        The measurements, or a path that :func:`starchart.load` reads.
    metrics:
        Metrics to serve (the first is the objective); default: all the dataset's,
        its default metric first.
    minimize:
        Whether smaller objective values are better; default by the
        metric's name (:func:`starchart._util.direction.lower_is_better`: GFLOP/s maximised, time minimised).

    Examples
    --------
    >>> import pandas as pd
    >>> ds = Dataset.from_frame(pd.DataFrame({"bx": [16, 32], "time": [2.0, None],
    ...                                       "status": ["ok", "runtime"]}), metrics=["time"])
    >>> ev = ReplayEvaluator(ds)
    >>> ev.evaluate({"bx": 16}).values
    {'time': [2.0]}
    >>> ev.evaluate({"bx": 32}).status
    'runtime'
    >>> ev.evaluate({"bx": 8}).reason
    "configuration {'bx': 8} is not in the replayed dataset"
    """

    kind = "replay"

    def __init__(self, dataset: Dataset | str | Path, *, metrics: str | Sequence[str] | None = None,
                 minimize: bool | None = None):
        if isinstance(dataset, (str, Path)):

            chosen = [metrics] if isinstance(metrics, str) else metrics
            try:
                dataset = load(dataset)
            except InputError:
                if chosen is None:
                    raise
                # a CSV whose metric columns have no usual names: the chosen ones are its metrics
                dataset = load(dataset, metrics=list(chosen))
        if not isinstance(dataset, Dataset):
            raise InputError(f"ReplayEvaluator needs a Dataset or a file, got {type(dataset).__name__}",
                             hint="e.g. ReplayEvaluator(starchart.load('cache.json'))")
        self.dataset = dataset
        if metrics is None:
            first = dataset.default_metric
            metrics = [first, *(m for m in dataset.metrics if m != first)]
        self.metrics = check_metrics(metrics, "ReplayEvaluator")
        unknown = [m for m in self.metrics if m not in dataset.metrics]
        if unknown:
            raise InputError(f"metric(s) {unknown} are not in the dataset", where=dataset.meta.get("source"),
                             hint=f"its metrics are {dataset.metrics}")
        self.minimize = self._direction(minimize, dataset.meta)
        self._params = list(dataset.params)
        self._rows = self._index(dataset)

    def _index(self, dataset: Dataset) -> dict[str, int]:
        """The row of each configuration, by its key. Rows become measurements when replayed (:meth:`_row`):
        a search replays a few hundred of a cache's 18,000 rows."""
        frame = dataset.frame
        self._columns = {m: frame[m].to_numpy(dtype=float) for m in self.metrics}
        self._repeats = {m: frame[REPEATS_PREFIX + m].tolist() if REPEATS_PREFIX + m in frame else None
                         for m in self.metrics}
        self._status, self._reason = frame["status"].tolist(), frame["reason"].tolist()
        self._configs = {name: frame[name].tolist() for name in self._params}  # Python scalars
        rows: dict[str, int] = {}
        for i, key in enumerate(frame_keys(frame, self._params)):
            rows[key] = i  # of duplicated rows, the last
        return rows

    def _row(self, i: int) -> Measurement:
        """Row ``i`` of the dataset as a measurement: its repeats, else its value; a failure keeps its reason."""
        config = {name: values[i] for name, values in self._configs.items()}
        if self._status[i] != "ok":
            return Measurement.failure(config, self._status[i], self._reason[i])
        values = {}
        for m in self.metrics:
            repeats = self._repeats[m]
            listed = repeats[i] if repeats is not None else None
            if isinstance(listed, (list, tuple, np.ndarray)) and len(listed):
                values[m] = [float(v) for v in listed]
            elif not np.isnan(self._columns[m][i]):
                values[m] = [float(self._columns[m][i])]
        return Measurement(config, values=values)

    def prepare(self, space: Space) -> None:
        """Check that ``space`` is (mostly) what the dataset holds: a configuration it lacks is a failure."""
        missing = [p for p in self._params if p not in getattr(space, "names", self._params)]
        if missing:
            raise InputError(f"the space lacks the dataset's parameter(s) {missing}",
                             where=self.dataset.meta.get("source"),
                             hint="use Space.from_dataset(dataset) for the replayed space")
        if not hasattr(space, "sample"):
            return
        count = space.size_estimate(seed=0)
        n = min(2000, count.estimate) if count.exact else 2000
        drawn = frame_keys(space.sample(n, seed=0), self._params) if n else []
        absent = sum(key not in self._rows for key in drawn)
        if drawn and absent == len(drawn):
            raise InputError(f"none of {len(drawn)} configurations drawn from the space is in the replayed dataset",
                             where=self.dataset.meta.get("source"),
                             hint="the space's parameter values must be the data's; leave the space file out "
                                  "to replay the data's own configurations")
        if absent:
            warnings.warn(f"{absent / len(drawn):.0%} of the space's configurations are not in the replayed "
                          f"dataset {self.dataset.meta.get('source') or ''}; each counts as a failed evaluation",
                          UserWarning, stacklevel=2)

    def _measure(self, config: dict[str, Any]) -> Measurement:
        try:
            stored = self._rows.get(config_key(config, self._params))
        except KeyError as exc:
            return Measurement.failure(config, "runtime", f"configuration lacks parameter {exc}")
        if stored is None:
            shown = {p: config[p] for p in self._params}
            return Measurement.failure(config, "runtime", f"configuration {shown} is not in the replayed dataset")
        row = self._row(stored)
        return Measurement(dict(config), status=row.status, reason=row.reason, values=row.values)

    def describe(self) -> dict[str, Any]:
        source = self.dataset.meta.get("source")
        described = {**super().describe(), "source": str(Path(source).resolve()) if source else None,
                     "format": self.dataset.meta.get("format"), "rows": len(self.dataset)}
        # the replayed file's names, so that a cache exported from the study replays in Kernel Tuner under them
        names = {key: self.dataset.meta[key] for key in SOURCE_NAMES if self.dataset.meta.get(key) is not None}
        if names:
            described["source_names"] = names
        return described

    @classmethod
    def cache_names(cls, description: Mapping[str, Any], environment: Mapping[str, Any]) -> dict[str, Any]:
        """The replayed file's own ``kernel_name``, ``device_name`` and ``problem_size``.

        >>> ReplayEvaluator.cache_names({"source_names": {"kernel_name": "conv", "problem_size": [4096, 4096]}}, {})
        {'kernel_name': 'conv', 'problem_size': [4096, 4096]}
        """
        names = description.get("source_names")
        return {key: names[key] for key in SOURCE_NAMES if key in names} if isinstance(names, Mapping) else {}

    @classmethod
    def from_description(cls, data: Mapping[str, Any]) -> ReplayEvaluator:
        """Rebuild by reading the dataset file again."""
        if not data.get("source"):
            raise InputError("the replayed dataset was not read from a file, so it cannot be read again",
                             hint="call starchart.run(...) or starchart.search(...) again with "
                                  "ReplayEvaluator(dataset)")
        return cls(data["source"], metrics=data.get("metrics"), minimize=bool(data.get("minimize", True)))
