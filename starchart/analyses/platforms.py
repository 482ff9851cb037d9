"""One kernel on several platforms (paper §VII-B): merge, compare, find settings good everywhere.

:func:`merge_platforms` stacks datasets of the same tuning space measured on
different GPUs into one, with a categorical ``platform`` parameter, so that one
Starchart tree describes them all (the paper's cross-platform tree, Fig. 8).
:func:`compare_platforms` then answers the paper's three questions:

- the best subspace of each platform (in the merged tree and in its own tree);
- how much faster each platform's own best configuration is than the best
  single *general* setting, the one configuration that maximises the worst-case
  (or the geometric-mean) relative performance over all platforms;
- which settings are good everywhere (within ``tolerance`` of every platform's best),
  and how the platforms' trees differ (importance, top splits, rank correlation).

Relative performance of a configuration on a platform is ``best / value`` for a
metric to minimise (``value / best`` otherwise): 1 for the platform's best, and
0 where it failed, so a setting that fails anywhere is never general.

Examples
--------
>>> a = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [3.0, 2.0, 1.0]}))
>>> b = Dataset.from_frame(pd.DataFrame({"bx": [1, 2, 4], "time": [1.0, 1.5, 4.0]}))
>>> merged = merge_platforms({"A": a, "B": b})
>>> merged.params, merged.frame["platform"].tolist()
(['platform', 'bx'], ['A', 'A', 'A', 'B', 'B', 'B'])
>>> comparison = compare_platforms(merged, "time", tree_options={"min_samples_split": 2})
>>> comparison.general()
{'bx': 2}
>>> comparison.speedups()[["platform", "own_best", "general_worst", "speedup_vs_worst"]]
  platform  own_best  general_worst  speedup_vs_worst
0        A       1.0            2.0               2.0
1        B       1.0            1.5               1.5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from starchart._compat import moved_name
from starchart._util.configs import frame_keys, plain_config, plain_value
from starchart._util.direction import direction_word, lower_is_better
from starchart._util.plugins import load_reference
from starchart._util.validation import Interval, check
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io.load import load
from starchart.tree import StarchartTree, best_leaf_per_group, check_tree_options, split_labels

if TYPE_CHECKING:  # the figures are drawn in starchart.report.figures
    from matplotlib.figure import Figure

__all__ = ["PlatformComparison", "compare_platforms", "load_platforms", "merge_platforms", "relative_performance"]

Criterion = Literal["worst", "geomean"]


def merge_platforms(datasets: Mapping[str, Dataset], *, name: str = "platform",
                    metrics: Sequence[str] | None = None) -> Dataset:
    """One dataset of all platforms' measurements, with a categorical parameter ``name``.

    Every dataset must have the same tuning parameters, with values of the same kind
    (a whole-number float column is read as integers when another platform's is). ``metrics``
    default to those all of them have. Per-repeat columns are dropped (the metrics keep the means).

    Raises
    ------
    InputError
        Fewer than two platforms, differing parameters, a parameter holding numbers on
        one platform and text (or true/false) on another, a missing metric, or a
        parameter already called ``name``.
    """
    if not isinstance(datasets, Mapping) or len(datasets) < 2:
        raise InputError("merge_platforms needs at least two platforms", where="datasets",
                         hint='pass {"A100": dataset1, "A4000": dataset2, ...}')
    strays = [str(k) for k, v in datasets.items() if not isinstance(v, Dataset)]
    if strays:
        raise InputError(f"platform {strays[0]!r} is not a starchart Dataset", where="datasets",
                         hint="e.g. {'A100': starchart.load('A100.json'), 'A6000': starchart.load('A6000.json')}")
    labels = [str(k) for k in datasets]
    if len(set(labels)) != len(labels):
        raise InputError("two platforms have the same name", where="datasets", hint="name each platform once")
    items = list(datasets.items())
    first_label, first = items[0]
    params = list(first.params)
    if name in params:
        raise InputError(f"the datasets already have a parameter called {name!r}", where=str(first_label),
                         hint="pass name= another column name for the platform")
    for label, ds in items[1:]:
        if set(ds.params) != set(params):
            extra, lacking = sorted(set(ds.params) - set(params)), sorted(set(params) - set(ds.params))
            raise InputError(f"platform {label!r} has other parameters than {first_label!r}"
                             + (f"; extra: {extra}" if extra else "") + (f"; missing: {lacking}" if lacking else ""),
                             where=ds.meta.get("source") or str(label),
                             hint="merge measurements of the same tuning space only")
    if metrics is None:
        metrics = [m for m in first.metrics if all(m in ds.metrics for _, ds in items[1:])]
        if not metrics:
            raise InputError("the platforms have no metric in common", where="datasets",
                             hint="pass metrics=[...] after loading the files with the same metric names")
    metrics = [str(m) for m in metrics]
    for label, ds in items:
        lacking = [m for m in metrics if m not in ds.metrics]
        if lacking:
            raise InputError(f"platform {label!r} lacks metric(s) {lacking}", where=ds.meta.get("source") or label,
                             hint=f"its metrics are: {', '.join(ds.metrics)}")
    _check_value_kinds(items, params)
    frames = []
    for label, ds in items:
        part = ds.frame[[*params, *metrics, "status", "reason"]].copy()
        for p in params:  # 32.0 in one file and 32 in another: keep the integers (48, not 48.0, in the output)
            if _integral_floats(part[p]) and any(pd.api.types.is_integer_dtype(d.frame[p]) for _, d in items):
                part[p] = part[p].astype("int64")
        part.insert(0, name, str(label))
        frames.append(part)
    frame = pd.concat(frames, ignore_index=True)
    frame[name] = pd.Categorical(frame[name], categories=labels, ordered=False)
    meta = {"platforms": labels, "platform_param": name, "format": "merged-platforms",
            "sources": {str(k): v.meta.get("source") for k, v in items},
            "devices": {str(k): v.meta.get("device_name") for k, v in items}}
    kernels = {v.meta.get("kernel_name") for _, v in items}
    if len(kernels) == 1 and None not in kernels:
        meta["kernel_name"] = kernels.pop()
    if first.meta.get("objective") in metrics:
        meta["objective"] = first.meta["objective"]
    return Dataset(frame=frame, params=[name, *params], metrics=metrics, meta=meta)


def _value_kind(column: pd.Series) -> str | None:
    """``"numbers"``, ``"text"`` or ``"true/false"`` when every value of ``column`` is of that kind, else None.

    >>> _value_kind(pd.Series([1, 2.5])), _value_kind(pd.Series(["1", "2"])), _value_kind(pd.Series([1, "a"]))
    ('numbers', 'text', None)
    """
    if pd.api.types.is_bool_dtype(column):
        return "true/false"
    if pd.api.types.is_numeric_dtype(column):
        return "numbers"
    values = column.tolist()
    if all(isinstance(v, str) for v in values):
        return "text"
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "true/false"
    if all(isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)) for v in values):
        return "numbers"
    return None


def _check_value_kinds(items: Sequence[tuple[Any, Dataset]], params: Sequence[str]) -> None:
    """Refuse a parameter holding numbers on one platform and text (or true/false) on another.

    Its settings would never match (``32`` is not ``"32"``), so no configuration would be
    in common and the comparison would fail without saying why.
    """
    for p in params:
        known = [(label, ds, kind) for label, ds in items
                 if len(ds.frame) and (kind := _value_kind(ds.frame[p])) is not None]
        for label, ds, kind in known[1:]:
            first_label, first_ds, first_kind = known[0]
            if kind != first_kind:
                raise InputError(
                    f"parameter {p!r} holds {first_kind} on platform {str(first_label)!r} "
                    f"(e.g. {plain_value(first_ds.frame[p].iloc[0])!r}) but {kind} on {str(label)!r} "
                    f"(e.g. {plain_value(ds.frame[p].iloc[0])!r}), so no setting would match",
                    where=ds.meta.get("source") or str(label),
                    hint=f"write {p!r} the same way in every file (e.g. 32 everywhere, not '32' in one)")


def _integral_floats(column: pd.Series) -> bool:
    """Whether ``column`` is a float column of whole numbers only (``32.0``, ``64.0``)."""
    if not pd.api.types.is_float_dtype(column):
        return False
    values = column.to_numpy(dtype=float)
    return bool(np.isfinite(values).all() and (values == np.round(values)).all())


def load_platforms(sources: Sequence[str | Path], *, name: str = "platform",
                   metrics: Sequence[str] | None = None) -> Dataset:
    """Load the files (or stores) of one tuning space measured on several platforms and merge them.

    Each source is ``PATH`` or ``LABEL=PATH``. Unlabelled sources are named by the
    file's name up to its first dot (``A100.json.gz`` → ``A100``), or, where two files
    share that name, by the device each records (Kernel Tuner's ``device_name``).
    ``metrics``: a CSV's measured columns (see :func:`starchart.load`).

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> for gpu, times in (("A", "3,2,1"), ("B", "1,2,4")):
    ...     _ = open(os.path.join(folder, f"{gpu}.csv"), "w").write(
    ...         "bx,time\\n" + "\\n".join(f"{b},{t}" for b, t in zip((1, 2, 4), times.split(","))))
    >>> merged = load_platforms([os.path.join(folder, "A.csv"), "second=" + os.path.join(folder, "B.csv")])
    >>> merged.meta["platforms"]
    ['A', 'second']
    """
    if isinstance(sources, (str, Path)) or len(sources) < 2:
        raise InputError("comparing platforms needs at least two measurement files", where="sources",
                         hint="give one file per platform, e.g. A100=a100.json A4000=a4000.json")
    labelled = [split_label(str(source)) for source in sources]
    loaded = [(label, path, load(path, **({"metrics": list(metrics)} if metrics else {})))
              for label, path in labelled]
    stems = [path.name.split(".")[0] for _, path, _ in loaded]
    devices = [ds.meta.get("device_name") for _, _, ds in loaded]
    use_devices = (len(set(stems)) < len(stems) and None not in devices and "unknown" not in devices
                   and len(set(devices)) == len(devices))
    datasets: dict[str, Dataset] = {}
    for (given, path, ds), stem, device in zip(loaded, stems, devices):
        label = given or (str(device) if use_devices else stem)
        if label in datasets:
            raise InputError(f"two files would both be called platform {label!r}", where=path,
                             hint="give each file its own LABEL" if given else f"name each one: LABEL={path}")
        datasets[label] = ds
    return merge_platforms(datasets, name=name)


def split_label(source: str) -> tuple[str | None, Path]:
    """``LABEL=PATH`` → ``(LABEL, PATH)``; a plain path (even one holding ``=``) → ``(None, PATH)``.

    >>> split_label("A100=a.json"), split_label("a.json")
    (('A100', PosixPath('a.json')), (None, PosixPath('a.json')))
    """
    label, sep, rest = source.partition("=")
    if sep and label and not Path(source).exists():
        if not rest.strip():
            raise InputError(f"no file after {label}=", where=source,
                             hint=f"write {label}=PATH, e.g. {label}=a.json")
        return label, Path(rest)
    return None, Path(source)


def relative_performance(table: pd.DataFrame, minimize: bool = True) -> pd.DataFrame:
    """Per column (platform), each value's performance relative to the column's best: in (0, 1], 0 where missing.

    >>> relative_performance(pd.DataFrame({"A": [2.0, 1.0, np.nan]})).round(2)["A"].tolist()
    [0.5, 1.0, 0.0]
    """
    values = table.to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        if minimize:
            rel = np.nanmin(values, axis=0) / values
        else:
            rel = values / np.nanmax(values, axis=0)
    rel[~np.isfinite(rel) | (rel < 0)] = 0.0
    return pd.DataFrame(rel, index=table.index, columns=table.columns)


@dataclass(repr=False)
class PlatformComparison:
    """The cross-platform analysis of :func:`compare_platforms`.

    Attributes
    ----------
    data:
        The merged valid measurements the analysis used.
    tree:
        One tree over all platforms (``platform`` is a parameter).
    trees:
        One tree per platform over the other parameters.
    values:
        Configurations (rows, indexed by the tuning parameters) × platforms: the metric.
    relative:
        The same table as relative performance (see :func:`relative_performance`).
    """

    data: Dataset
    metric: str
    minimize: bool
    name: str
    platforms: list[str]
    params: list[str]
    tree: StarchartTree
    trees: dict[str, StarchartTree]
    values: pd.DataFrame
    relative: pd.DataFrame
    options: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        # The dataclass repr printed every field (the data, the trees, the tables) in a notebook.
        return (f"<PlatformComparison {self.metric} ({direction_word(self.minimize)}) on {', '.join(self.platforms)}: "
                f"{len(self.values)} configurations, general setting {self.general('worst')}; "
                ".summary() for more>")

    # ------------------------------------------------------------ general settings
    def _general_index(self, criterion: Criterion) -> Any:
        rel = self.relative.to_numpy()
        if criterion == "worst":
            score = rel.min(axis=1)
        elif criterion == "geomean":
            with np.errstate(divide="ignore"):
                score = np.exp(np.log(rel).mean(axis=1))
        else:
            raise InputError(f"unknown criterion {criterion!r}", where="criterion", hint="use 'worst' or 'geomean'")
        return self.relative.index[int(np.argmax(score))]

    def general(self, criterion: Criterion = "worst") -> dict[str, Any]:
        """The single configuration best over all platforms: highest worst-case (``"worst"``) or
        geometric-mean (``"geomean"``) relative performance."""
        return self._config(self._general_index(criterion))

    def _config(self, index: Any) -> dict[str, Any]:
        values = index if isinstance(index, tuple) else (index,)
        return plain_config(dict(zip(self.params, values)))

    def speedups(self) -> pd.DataFrame:
        """Per platform: its own best value and configuration, the value of the general setting
        (worst-case and geometric-mean criteria), and how many times faster (better) the own
        best is than each — the paper's "6.3× on AMD, 1.3× on NVIDIA"."""
        worst, geo = self._general_index("worst"), self._general_index("geomean")
        rows = []
        for p in self.platforms:
            column = self.values[p]
            best_index = column.idxmin() if self.minimize else column.idxmax()
            rows.append({"platform": p, "own_best": float(column[best_index]),
                         "general_worst": float(column[worst]), "general_geomean": float(column[geo]),
                         "speedup_vs_worst": _factor(self.relative.loc[worst, p]),
                         "speedup_vs_geomean": _factor(self.relative.loc[geo, p]),
                         "own_best_config": self._config(best_index)})
        return pd.DataFrame(rows)

    def against(self, baseline: Mapping[str, Any]) -> pd.DataFrame:
        """Per platform: the value of the ``baseline`` configuration (a shipped default, such as Rodinia's
        16 × 16 blocks), its own best, and how many times better the best is (the paper's §VII-B measure:
        6.3× on AMD, 1.3× on NVIDIA). A platform that did not measure the baseline has NaN there.

        Parameters
        ----------
        baseline:
            ``{parameter: value}`` for every tuning parameter; values as written (``"16"``) match the data's.

        Returns
        -------
        pandas.DataFrame
            ``platform``, ``baseline`` (its value there), ``own_best`` and ``best_vs_baseline`` (how many times
            better the best is).

        Raises
        ------
        InputError
            Naming the parameters ``baseline`` lacks or does not have.
        """
        if not isinstance(baseline, Mapping):
            raise InputError(f"the baseline must be a configuration {{parameter: value}}, got {baseline!r}",
                             where="baseline", hint=f"e.g. {{{', '.join(f'{p!r}: ...' for p in self.params)}}}")
        missing = [p for p in self.params if p not in baseline]
        unknown = [p for p in baseline if p not in self.params]
        if missing or unknown:
            raise InputError(f"the baseline lacks {missing}" if missing else f"{unknown} are no parameters here",
                             where="baseline", hint=f"give a value for each of: {', '.join(self.params)}")
        key = tuple(_as_level(self.values.index, i, baseline[p]) for i, p in enumerate(self.params))
        key = key if len(self.params) > 1 else key[0]
        rows = []
        for p in self.platforms:
            column = self.values[p]
            best = float(column.min() if self.minimize else column.max())
            value = float(column.get(key, np.nan)) if key in column.index else float("nan")
            ratio = (value / best if self.minimize else best / value) if value > 0 and best > 0 else float("nan")
            rows.append({"platform": p, "baseline": value, "own_best": best, "best_vs_baseline": ratio})
        return pd.DataFrame(rows)

    def portable(self, tolerance: float = 0.05) -> pd.DataFrame:
        """Settings within ``tolerance`` of every platform's best (relative performance ≥
        1/(1 + tolerance) everywhere), best worst-case first; one column per platform's value."""
        if not tolerance >= 0:
            raise InputError(f"tolerance must be ≥ 0, got {tolerance}", where="tolerance", hint="e.g. 0.05 for 5 %")
        floor = 1.0 / (1.0 + tolerance)
        good = (self.relative >= floor - 1e-12).all(axis=1)
        out = self.values[good].copy()
        out["worst_relative"] = self.relative[good].min(axis=1)
        out = out.sort_values("worst_relative", ascending=False)
        return out.reset_index()

    def tolerance_needed(self) -> float:
        """The smallest tolerance for which some setting is good everywhere (that of the worst-case general setting)."""
        best = self.relative.min(axis=1).max()
        return float(1.0 / best - 1.0) if best > 0 else float("inf")

    # ------------------------------------------------------------ subspaces and trees
    def best_subspaces(self, min_samples: int = 3) -> pd.DataFrame:
        """Per platform: the best leaf of the merged tree among those holding at least
        ``min_samples`` of its designs (stats over that platform's designs only), the
        worst such leaf, and the best leaf of the platform's own tree."""
        rows = []
        frame = self.data.frame
        leaves = {leaf.node_id: leaf for leaf in self.tree.leaves_}
        per_platform = best_leaf_per_group(self.tree, frame, frame[self.name], frame[self.metric],
                                           minimize=self.minimize, min_samples=min_samples)
        worst = best_leaf_per_group(self.tree, frame, frame[self.name], frame[self.metric],
                                    minimize=not self.minimize, min_samples=min_samples)
        for p in self.platforms:
            own = self.trees[p].best_leaf(minimize=self.minimize)
            row: dict[str, Any] = {"platform": p}
            if p in per_platform:
                node, mean, n = per_platform[p]
                row |= {"merged_best": _without(leaves[node].description, self.name), "merged_best_n": n,
                        "merged_best_mean": mean, "merged_worst_mean": worst[p][1], "merged_best_node": node}
            row |= {"own_best": own.description, "own_best_n": own.n_samples, "own_best_mean": own.mean}
            rows.append(row)
        return pd.DataFrame(rows)

    def importance(self) -> pd.DataFrame:
        """Share of the SSE reduction per parameter: in each platform's tree and in the merged tree."""
        table = pd.DataFrame({p: self.trees[p].importance(normalize=True) for p in self.platforms})
        merged = self.tree.importance(normalize=True)
        table["merged tree"] = merged.reindex(table.index).fillna(0.0)
        table.loc[self.name] = np.nan
        table.loc[self.name, "merged tree"] = merged.get(self.name, 0.0)
        return table.sort_values("merged tree", ascending=False)

    def differences(self) -> dict[str, pd.DataFrame]:
        """How the platforms' trees differ: ``importance`` (parameters × platforms), ``splits``
        (each tree's top splits and best leaf) and ``correlation`` (Spearman rank correlation
        of the values of the configurations measured on both platforms)."""
        rows = []
        for p in self.platforms:
            tree = self.trees[p]
            nodes = tree.nodes_
            root = nodes[0]
            top = split_labels(tree, root)[0] if not root.is_leaf else "(no split)"
            second = [split_labels(tree, nodes[c])[0] for c in (root.left, root.right)
                      if c is not None and not nodes[c].is_leaf]
            ranked = tree.importance(normalize=True).sort_values(ascending=False)
            rows.append({"platform": p, "root split": top, "second-level splits": "; ".join(second),
                         "most important": ", ".join(f"{k} {v:.0%}" for k, v in ranked.head(3).items() if v > 0),
                         "leaves": tree.n_leaves_, "best leaf": tree.best_leaf(minimize=self.minimize).description})
        # ranked over each pair's shared valid configurations (ranking each column over all of its own
        # first, then dropping the pairs' missing values, is not Spearman's coefficient)
        corr = self.values.corr(method="spearman", min_periods=3)
        return {"importance": self.importance(), "splits": pd.DataFrame(rows), "correlation": corr}

    # ------------------------------------------------------------ output
    def plot(self, *, title: str | None = None) -> Figure:
        """See :func:`plot_platforms`."""
        return load_reference("starchart.report.figures:plot_platforms")(self, title=title)

    def plot_tree(self, *, top_splits: int | None = 3, title: str | None = None) -> Figure:
        """The merged tree with each platform's best subspace shaded (the paper's Fig. 8): the ``top_splits``
        splits that explain most and the way to every platform's best leaf (all of the tree for None). See
        :func:`starchart.report.figures.plot_platform_tree`."""
        return load_reference("starchart.report.figures:plot_platform_tree")(self, top_splits=top_splits,
                                                                             title=title)

    def _general_lines(self) -> list[str]:
        """The two general settings, or one line when they are the same setting (it was printed twice)."""
        worst, geomean = self.general("worst"), self.general("geomean")
        if worst == geomean:
            return [f"general setting (best worst case and best geometric mean): {worst}"]
        return [f"general setting (best worst case): {worst}", f"general setting (best geometric mean): {geomean}"]

    def summary(self) -> str:
        """A few lines: per platform how much its own best beats the general setting; portable settings."""
        table = self.speedups()
        valid_everywhere = int(self.values.notna().all(axis=1).sum())
        n = len(self.values)
        lines = [f"{n} configuration{'' if n == 1 else 's'} measured on all of {', '.join(self.platforms)} "
                 f"({self.metric}, {direction_word(self.minimize)}"
                 + (f"; valid on every one: {valid_everywhere}, the rest failed on some)"
                    if valid_everywhere < len(self.values) else ")"),
                 *(["left out, not measured on every platform: "
                    + ", ".join(f"{p} {k}" for p, k in self.options["unshared"].items())]
                   if self.options.get("unshared") else []),
                 *self._general_lines()]
        for _, row in table.iterrows():
            lines.append(f"  {row['platform']}: own best {row['own_best']:.4g} is {row['speedup_vs_worst']:.3g}× "
                         f"better than the worst-case general setting ({row['general_worst']:.4g}) and "
                         f"{row['speedup_vs_geomean']:.3g}× than the geometric-mean one ({row['general_geomean']:.4g})")
        tol = self.options.get("tolerance", 0.05)
        n_portable = len(self.portable(tol))
        lines.append(f"{n_portable} {'setting is' if n_portable == 1 else 'settings are'} within {tol:.0%} of the "
                     "best on every platform; "
                     f"the best general setting is within {self.tolerance_needed():.1%}")
        return "\n".join(lines)

    def report_sections(self) -> list[tuple[str, Any]]:
        """``(heading, content)`` pairs for the HTML report's ``extra_sections``."""
        diff = self.differences()
        tolerance = self.options.get("tolerance", 0.05)
        portable: Any = self.portable(tolerance).head(20).rename(columns={"worst_relative": "worst relative"})
        if portable.empty:  # say what that means, rather than show a bare header row
            portable = (f"<p>No measured setting is within {tolerance:.0%} of each platform's own best on every "
                        f"platform: the closest, the best worst-case general setting, needs a tolerance of "
                        f"{self.tolerance_needed():.1%}.</p>")
        importance = (100 * diff["importance"]).round(1).reset_index(names="parameter")
        importance.columns = [c if c == "parameter" else f"{c} (%)" for c in importance.columns]
        return [("Platforms: own best vs one general setting", self.plot()),
                ("Platforms: speed-up of each platform's own best", self._speedups_for_people()),
                ("Platforms: best subspaces", self._subspaces_for_people()),
                ("Platforms: tree differences", diff["splits"]),
                ("Platforms: share of each tree's SSE reduction per parameter", importance),
                (f"Settings within {tolerance:.0%} of the best everywhere", portable)]

    def _speedups_for_people(self) -> pd.DataFrame:
        """:meth:`speedups` as the report shows it: worded headers, the configuration as ``k=v`` pairs."""
        speed = self.speedups()
        speed["own_best_config"] = speed["own_best_config"].map(
            lambda c: ", ".join(f"{k}={v}" for k, v in c.items()))
        m = self.metric
        return speed.rename(columns={
            "own_best": f"own best {m}", "general_worst": f"{m} of the best worst-case setting",
            "general_geomean": f"{m} of the best geometric-mean setting",
            "speedup_vs_worst": "own best vs worst-case setting (×)",
            "speedup_vs_geomean": "own best vs geometric-mean setting (×)",
            "own_best_config": "own best configuration"})

    def _subspaces_for_people(self) -> pd.DataFrame:
        """:meth:`best_subspaces` as the report shows it: worded headers."""
        m = self.metric
        return self.best_subspaces().rename(columns={
            "merged_best": "best subspace (merged tree)", "merged_best_n": "designs (merged)",
            "merged_best_mean": f"mean {m} (merged)", "merged_worst_mean": f"worst subspace's mean {m} (merged)",
            "own_best": "best leaf (own tree)", "own_best_n": "designs (own)", "own_best_mean": f"mean {m} (own)"})


def _as_level(index: pd.Index, level: int, value: Any) -> Any:
    """``value`` as the table's index holds it (``16`` for ``"16"`` or ``16.0`` from the command line)."""
    levels = list(index.levels[level] if isinstance(index, pd.MultiIndex) else index)
    for known in levels:  # the value as written first: "1" is the level "1", not "01"
        if known == value or str(known) == str(value):
            return known
    for known in levels:  # then as a number: "16" for 16, 16.0
        try:
            if float(known) == float(value):
                return known
        except (TypeError, ValueError):
            pass
    return value


def _factor(relative: float) -> float:
    return float(1.0 / relative) if relative > 0 else float("inf")


def _without(description: str, name: str) -> str:
    """A leaf description without its platform condition (stats are per platform already)."""
    parts = [p for p in description.split(" ∧ ") if not p.startswith(f"{name} ")]
    return " ∧ ".join(parts) if parts else "all designs"


def compare_platforms(data: Dataset | Mapping[str, Dataset], metric: str | None = None, *,
                      name: str = "platform", minimize: bool | None = None, samples: int | None = None, seed: int = 0,
                      tolerance: float = 0.05, tree_options: Mapping[str, Any] | None = None) -> PlatformComparison:
    """Compare platforms: merged tree, per-platform trees and bests, general settings, portable settings.

    Parameters
    ----------
    data:
        A dataset merged by :func:`merge_platforms`, or ``{platform: dataset}`` to merge.
    metric:
        The response; default the merged dataset's default metric.
    name:
        The platform parameter's name.
    minimize:
        Whether smaller values are better; default by the metric's name
        (:func:`starchart._util.direction.lower_is_better`: ``GFLOP/s`` is maximised, ``time`` minimised).
    samples:
        Use only this many configurations, drawn uniformly (``seed``) among those
        measured on every platform (the paper: 200); default all.
    tolerance:
        What "good everywhere" means for :meth:`PlatformComparison.portable` (0.05: within 5 %).
    tree_options:
        Keyword arguments of :class:`~starchart.StarchartTree`.

    Raises
    ------
    InputError
        Among others: a valid value of the metric ≤ 0 (< 0 for a metric to maximise), which
        relative performance cannot rank.
    """
    if not isinstance(data, (Mapping, Dataset)):
        raise InputError(f"compare_platforms takes a merged dataset or {{platform: dataset}}, got {type(data).__name__}",
                         where="data", hint="e.g. compare_platforms({'A100': a100, 'A6000': a6000}, 'time')")
    if not tolerance >= 0:  # checked now, not when summary() or portable() first uses it
        raise InputError(f"tolerance must be ≥ 0, got {tolerance}", where="tolerance", hint="e.g. 0.05 for 5 %")
    merged = merge_platforms(data, name=name) if isinstance(data, Mapping) else data
    if name not in merged.params:
        raise InputError(f"the dataset has no {name!r} parameter", where=merged.meta.get("source") or "dataset",
                         hint="merge the platforms' datasets with merge_platforms first")
    metric = merged.default_metric if metric is None else metric
    if metric not in merged.metrics:
        raise InputError(f"no metric named {metric!r}", where="metric",
                         hint=f"the metrics are: {', '.join(merged.metrics)}")
    minimize = lower_is_better(metric, merged.meta) if minimize is None else bool(minimize)
    params = [p for p in merged.params if p != name]
    column = merged.frame[name]
    # the platforms present (a filtered merge keeps its other categories, which hold no rows)
    platforms = [str(p) for p in column.cat.categories if (column == p).any()] \
        if isinstance(column.dtype, pd.CategoricalDtype) else list(dict.fromkeys(column.astype(str)))
    # the platforms by name everywhere below: a column of GPU numbers (0, 1) compared with the names
    # "0", "1" matched nothing, and the comparison said platform '0' had no valid measurement
    frame = merged.frame.assign(**{name: pd.Categorical(column.astype(str), categories=platforms)})
    if len(platforms) < 2:
        raise InputError(f"only one platform ({platforms}) in the data", where=name, hint="compare at least two")

    # Configurations (any status) present on every platform: the comparable ones.
    keys = pd.Series(frame_keys(frame, params), index=frame.index)
    present = keys.value_counts(sort=False)
    common = [k for k in dict.fromkeys(keys) if present[k] == len(platforms)]
    # configurations some platform lacks are left out: say how many, or a 300-sample study of which
    # 14 configurations are shared reads like a study of 14
    unshared = frame.loc[~keys.isin(set(common)).to_numpy(), name].astype(str).value_counts()
    unshared = {p: int(unshared.get(p, 0)) for p in map(str, platforms) if unshared.get(p, 0)}
    if samples is not None:
        # 0 or 1 ended in "fewer than two valid measurements in common", a negative count in numpy
        samples = check("samples", samples, Interval(int, 2, None),
                        hint="leave it unset to use every configuration measured on all platforms (the paper draws 200)")
        if samples > len(common):
            raise InputError(f"cannot draw {samples} configurations: {len(common)} are measured on every platform",
                             where="samples", hint=f"ask for at most {len(common)}")
        pick = np.random.default_rng(seed).choice(len(common), size=int(samples), replace=False)
        common = [common[i] for i in np.sort(pick)]
    in_common = keys.isin(set(common)).to_numpy()
    used = frame[in_common]
    ok_rows = (used["status"] == "ok").to_numpy() & np.isfinite(used[metric].to_numpy(float))
    ok = used[ok_rows]
    if len(ok) < 2:
        raise InputError(f"fewer than two valid measurements in common: the platforms share {len(common)} "
                         f"measured configurations, with {len(ok)} valid measurements of {metric!r}", where="data",
                         hint="measure the same configurations on every platform (the same space, sample size "
                              "and seed), with the same parameters (a CSV's --metrics)")
    _check_positive(ok, metric, name, minimize, merged.meta)
    ok_data = Dataset(frame=ok, params=[name, *params], metrics=list(merged.metrics), meta=dict(merged.meta))
    options = check_tree_options(tree_options)
    tree = StarchartTree(**options).fit(ok[[name, *params]], ok[metric].to_numpy(float))
    trees = {}
    for p in platforms:
        part = ok[(ok[name] == p).to_numpy()]
        if len(part) < 1:
            failed = int((used[name] == p).sum())
            raise InputError(f"platform {p!r} has no valid measurement of {metric!r} among the configurations "
                             f"measured on every platform ({failed} of them failed there)", where=name,
                             hint=f"leave {p!r} out of the comparison, or see why it failed "
                                  "(Dataset.failure_reasons())")
        trees[p] = StarchartTree(**options).fit(part[params], part[metric].to_numpy(float))
    values = (used.assign(_value=np.where(ok_rows, used[metric].to_numpy(float), np.nan))
              .pivot_table(index=params, columns=name, values="_value", aggfunc="first", dropna=False, observed=True))
    values = values.reindex(columns=platforms)
    values = values[values.notna().any(axis=1)]
    values.columns = [str(c) for c in values.columns]
    relative = relative_performance(values, minimize=minimize)
    return PlatformComparison(data=ok_data, metric=metric, minimize=minimize, name=name,
                              platforms=[str(p) for p in platforms], params=params, tree=tree, trees=trees,
                              values=values, relative=relative,
                              options={"samples": samples, "seed": seed, "tolerance": tolerance,
                                       "tree_options": options, "unshared": unshared})


def _check_positive(ok: pd.DataFrame, metric: str, name: str, minimize: bool, meta: Mapping[str, Any]) -> None:
    """Refuse values relative performance cannot rank: ≤ 0 for a metric to minimise, < 0 for one to maximise.

    ``best / value`` with a time of 0 or below made every other setting worth 0 (or the
    most negative "time" the best), and the speed-ups meaningless, without a word.
    """
    values = ok[metric].to_numpy(float)
    bad = values <= 0 if minimize else values < 0
    if bad.any():
        i = int(np.argmax(bad))
        platform = str(ok[name].iloc[i])
        raise InputError(f"{metric!r} is {values[i]:g} for a valid configuration on platform {platform!r} "
                         f"({int(bad.sum())} such values): relative performance needs "
                         + ("positive values" if minimize else "values ≥ 0"),
                         where=(meta.get("sources") or {}).get(platform) or platform,
                         hint="mark failed measurements as failed rather than 0, or compare another metric")


def __getattr__(name: str) -> Any:
    # plot_platforms moved to starchart.report.figures with the other figures; its old name still works here
    return moved_name(__name__, name)
