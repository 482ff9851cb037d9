"""``starchart report``: one HTML file for a store or a measurement file, with whatever applies.

Always: the tree (SVG), the best region, importance, leaves and measurements
(:func:`starchart.report.html.write_html_report`; for a store, with the size of the space it
recorded and how much of it was measured). Then, when the data allows:

- *progress* — a store knows the order its configurations were measured in:
  each value and the best so far, failures in a strip of their own; a store written by
  :func:`starchart.search` also shows the search's settings (budget, seed, objective,
  warm-start source) and warns, here and above the tree and the importance, that a
  search's configurations are no uniform sample of the space;
- *accuracy vs samples* — a store of ``starchart samples``: its study's curve (replayed from
  the designs it measured); else, with enough valid configurations, the paper's
  protocol replayed on the data itself (hold out 200, grow the training set);
- *power/performance* — a time-like and a power-like metric: the trade-off
  scatter with the Pareto front;
- *platforms* — a ``platform`` parameter: the per-platform best against the best
  general setting.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from starchart._util.direction import lower_is_better
from starchart._util.forked import Job
from starchart._util.text import shorten
from starchart.analyses.platforms import compare_platforms, load_platforms, split_label
from starchart.analyses.sample_size import choose_sample_size
from starchart.analyses.tradeoff import suggest_limits, traded_metrics, tradeoff
from starchart.dataset import Dataset
from starchart.errors import InputError, StarchartError
from starchart.io.load import is_store, load
from starchart.measure.replay import ReplayEvaluator
from starchart.report.html import Captioned, Rendered, check_writable, render_sections, write_html_report
from starchart.report.plots import plot_progress
from starchart.space import Space
from starchart.strategies.neighbourhood import best_neighbourhood
from starchart.study.records import R, SampleSizeRecord, SearchRecord
from starchart.study.store import Store
from starchart.tree import fit_stated_tree

if TYPE_CHECKING:
    from starchart.space import Space

Section = tuple[str, Any]


@dataclass
class LoadedStudy:
    """What a report reads from its source: the dataset and, for a store, the results in the order
    measured (status, metric values), the settings a search recorded, the space it recorded and a
    sample-size study's settings with that space (``None`` where they do not apply)."""

    dataset: Dataset
    results: list[tuple[str, dict[str, float]]] | None = None
    search: SearchRecord | None = None
    space: Space | None = None
    sample_size: tuple[SampleSizeRecord, Space] | None = None


def load_study(source: str | Path, metrics: list[str] | None = None) -> LoadedStudy:
    """Read ``source`` for a report (see :class:`LoadedStudy`); ``metrics``: a CSV's measured columns
    (see :func:`starchart.load`)."""
    if not is_store(source):
        return LoadedStudy(load(source, **({"metrics": metrics} if metrics else {})))

    with Store.open(source, read_only=True) as store:  # one opening for all of it
        dataset = store.to_dataset()
        frame = store.results_frame()
        search, sample_size = _record(SearchRecord, store), _record(SampleSizeRecord, store)
        space = _stored_space(store.get("space"), source)
    return LoadedStudy(dataset, list(zip(frame["status"], frame["summary"])), search, space,
                       (sample_size, space) if sample_size and space is not None else None)


def _record(kind: type[R], store: Store) -> R | None:
    """A study record for the report's sections, or ``None`` when the store holds none or one that does not
    read (the report stands without its search or sample-size section, as for a store of a plain run)."""
    try:
        return kind.read(store)
    except InputError:
        return None


def _stored_space(description: dict[str, Any] | None, source: str | Path) -> Space | None:
    """The space a store recorded (``None`` when it has none, one whose restrictions were not saved, or
    one that does not read back), so that the summary says how much of it was measured: 100
    configurations read differently as a whole space or as 2 % of it."""
    if not description or description.get("unsaved_restrictions"):
        return None
    try:
        return Space.from_dict(description, where=f"{source}: stored space")
    except StarchartError:  # the report stands without the space's size: do not lose it for that
        return None


def measured_order(results: list[tuple[str, dict[str, float]]] | None, metric: str) -> list[float] | None:
    """``metric``'s value of each result in the order measured (NaN for a failure)."""
    if results is None:
        return None
    return [summary.get(metric, np.nan) if status == "ok" else np.nan for status, summary in results]


def study_sections(dataset: Dataset, metric: str, *, order: list[float] | None = None,
                   minimize: bool = True, search: SearchRecord | Mapping[str, Any] | None = None,
                   traded: list[str] | None = None, limits: Mapping[str, float] | None = None,
                   sample_size: tuple[SampleSizeRecord | Mapping[str, Any], Any] | None = None,
                   space: Any = None) -> list[Section]:
    """The optional sections that apply to ``dataset`` (see the module docstring); ``traded``
    and ``limits``: the power/performance section's metrics and targets (default: found by name);
    ``sample_size``: the settings and space a ``starchart samples`` store recorded
    (:attr:`LoadedStudy.sample_size`), whose curve is then shown; ``space``: the space a store
    recorded, with which a search's settings say whether its best is a local optimum."""
    if traded is None:
        traded = traded_metrics(dataset, limits)
    # the settings as a store keeps them, or as records
    searched = SearchRecord.from_json(search) if isinstance(search, Mapping) else search
    study = None if sample_size is None else (
        sample_size[0] if isinstance(sample_size[0], SampleSizeRecord) else SampleSizeRecord.from_json(sample_size[0]),
        sample_size[1])
    builders: list[Callable[[], list[Section]]] = [
        lambda: _search(searched, dataset, metric, minimize, space),
        lambda: _progress(order, metric, minimize, searched=bool(searched)),
        lambda: _accuracy(dataset, metric, study),
        lambda: _power_performance(dataset, traded, limits),
        lambda: _platforms(dataset, metric, minimize),
    ]
    sections: list[Section] = []
    for build in builders:
        sections += build()
    return sections


def write_study_report(source: str | Path | Sequence[str | Path], output: str | Path | None = None, *,
                       metric: str | None = None, title: str | None = None, minimize: bool | None = None,
                       metrics: list[str] | None = None, limits: Mapping[str, float] | None = None,
                       prune: str | None = None, max_depth: int | None = None,
                       min_samples_split: int = 10) -> Path:
    """Write the HTML report of a store or measurement file; returns its path.

    Several sources (``PATH`` or ``LABEL=PATH``) are one space measured on several
    platforms: they are merged with a ``platform`` parameter
    (:func:`~starchart.analyses.platforms.load_platforms`) and the report compares them;
    one ``LABEL=PATH`` is that file, titled by its label.
    ``output`` defaults to ``<source stem>-report/report.html`` in the current folder (``platforms-report/``
    for several sources), not beside the data, which may be read-only or a package's; an existing folder,
    or a string ending in ``/`` (a folder to create), gets ``report.html`` in it, and a name without
    ``.html`` gets it appended;
    ``metric`` defaults to the data's default metric;
    ``title`` to "starchart report: NAME"; ``minimize`` (whether lower values are better)
    to what the data records, else to what the metric's name says
    (:func:`starchart._util.direction.lower_is_better`); ``metrics`` names a CSV's measured
    columns when it does not say them itself; ``limits`` (``{metric: target}``) are the
    power/performance section's targets (default: what the best quarter of the designs reach);
    ``prune`` (``"1se"`` or ``"relative"``), ``max_depth`` and ``min_samples_split`` size the
    tree as ``starchart tree`` does (:func:`~starchart.tree._pruning.fit_stated_tree`; default: the
    full Starchart tree, which on thousands of configurations has hundreds of leaves).
    """
    def read() -> tuple[LoadedStudy, Path, Path, str]:
        """The study, its source's path, the default output and the report's name."""
        if isinstance(source, (str, Path)):
            label, path = split_label(str(source))  # one LABEL=PATH: the label names it
            return (load_study(path, metrics), path, Path(f"{path.name.split('.')[0]}-report") / "report.html",
                    label or path.name)
        merged = LoadedStudy(load_platforms(source, metrics=metrics))
        return (merged, split_label(str(source[0]))[1], Path("platforms-report") / "report.html",
                " · ".join(merged.dataset.meta["platforms"]))

    def resolve(study: LoadedStudy, path: Path) -> tuple[str, bool, list[str] | None]:
        """The metric, its direction and the traded metrics, checked (before the slow part)."""
        dataset = study.dataset
        if metric is not None and not str(metric).strip():  # "" is no "not given": it would model the objective
            raise InputError(f"{metric!r} is an empty metric name", where="metric",
                             hint=f"name one of the data's metrics ({', '.join(dataset.metrics)}), or leave it out "
                                  "for the data's objective")
        chosen = metric or dataset.default_metric
        if chosen not in dataset.metrics:
            raise InputError(f"no metric named {chosen!r}", where=path,
                             hint=f"choose --metric from: {', '.join(dataset.metrics)}")
        finite = int(np.isfinite(dataset.ok().y(chosen)).sum())
        if finite < 2:
            raise too_few_valid(dataset, chosen, finite, path)
        return (chosen, lower_is_better(chosen, dataset.meta) if minimize is None else minimize,
                traded_metrics(dataset, limits))

    here: dict[str, Any] = {}  # what this process has read: a job run here uses it

    def sections() -> list[list[Any]]:
        if "resolved" in here:
            study, path, (chosen, lower, traded) = here["study"], here["path"], here["resolved"]
        else:  # a child forked before the data is read reads it itself, on the second core, while this process does
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # what reading it warns of, the main process says once
                study, path = read()[:2]
                chosen, lower, traded = resolve(study, path)
        rendered = render_sections(study_sections(
            study.dataset, chosen, order=measured_order(study.results, chosen), minimize=lower, search=study.search,
            traded=traded, limits=limits, sample_size=study.sample_size, space=study.space))
        return [[heading, *content] for heading, content in rendered]

    def read_here() -> tuple[Path, str]:
        study, path, default_output, name = read()
        here.update(study=study, path=path, resolved=resolve(study, path))
        return default_output, name

    # The sections (an accuracy replay of a thousand trees, figures) are made in a second process. For data of
    # a modest size it is started before the data is read and reads it too, while this one reads, grows the
    # tree and draws its figures; larger data is read once, here, and shared with the child it forks after.
    early = _input_bytes(source) <= EARLY_READ_BYTES
    if not early:
        default_output, name = read_here()
    with Job(sections) as extras:
        if early:
            default_output, name = read_here()
        study, (chosen, lower, _) = here["study"], here["resolved"]
        # "-o out/" names a folder even before it exists (Path() would drop the slash and write out.html)
        folder = output is not None and str(output).endswith(("/", os.sep))
        target = Path(output) if output is not None else default_output
        if folder or target.is_dir():  # a folder: the report goes in it
            target = target / "report.html"
        elif target.suffix.lower() not in (".html", ".htm"):  # else a browser would not open it as a page
            target = target.with_name(target.name + ".html")
        check_writable(target)  # before the tree and the sections: minutes on a large study
        ok = study.dataset.ok()
        y = ok.y(chosen)
        finite = np.isfinite(y)
        tree, accuracy, _ = fit_stated_tree(ok.X[finite], y[finite], prune=prune, metric=chosen,  # type: ignore[arg-type]
                                            max_depth=max_depth, min_samples_split=min_samples_split)
        return write_html_report(
            target, dataset=study.dataset, tree=tree, metric=chosen, title=title or f"starchart report: {name}",
            extra_sections=lambda: [(heading, Rendered(body, svg)) for heading, body, svg in extras.result()],
            minimize=lower, space=study.space, caution=SEARCH_CAUTION_SHORT if study.search else None,
            accuracy=accuracy)


#: Input size (bytes on disk) up to which a report's second process reads the data itself (see
#: :func:`write_study_report`): beyond it, two copies in memory would cost more than reading it twice saves.
EARLY_READ_BYTES = 64 * 2**20


def _input_bytes(source: str | Path | Sequence[str | Path]) -> int:
    """The size on disk of a report's sources (0 for what cannot be sized: its reader says why)."""
    sources = [source] if isinstance(source, (str, Path)) else list(source)
    total = 0
    for item in sources:
        try:
            total += Path(split_label(str(item))[1]).stat().st_size
        except (OSError, InputError):
            pass
    return total


def too_few_valid(dataset: Dataset, metric: str, valid: int, source: str | Path) -> InputError:
    """The error for data with fewer than 2 valid values of ``metric``, saying why: every configuration
    failed (and the most common reason), or too few were measured; "measure more" does not help the first.

    >>> import pandas as pd
    >>> ds = Dataset.from_frame(pd.DataFrame({"x": [1, 2], "time": [None, None], "status": ["compile"] * 2,
    ...                                       "reason": ["nvcc: error", "nvcc: error"]}))
    >>> print(too_few_valid(ds, "time", 0, "s.db").message)
    no valid measurement of 'time': all 2 configurations failed (2 compile; most common reason: nvcc: error)
    """
    if not len(dataset):  # a store stopped before its first result: nothing failed, nothing was measured
        return InputError(f"nothing is measured yet, so there is no {metric!r} to explain", where=source,
                          hint=f"measure first: `starchart resume {source}` continues an interrupted study")
    failed = int((dataset.status != "ok").sum())
    if valid == 0 and failed == len(dataset):
        counts = dataset.status.value_counts()
        said = ", ".join(f"{n} {status}" for status, n in counts.items())
        reasons = dataset.failure_reasons(1).get(str(counts.index[0])) or []
        if reasons:
            said += f"; most common reason: {shorten(reasons[0][0], 120)}"
        return InputError(f"no valid measurement of {metric!r}: all {len(dataset)} configurations failed ({said})",
                          where=source, hint=f"fix what makes them fail (`starchart info {source}` lists the "
                                             "reasons), then measure again")
    among = f"{len(dataset)} configuration" + ("" if len(dataset) == 1 else "s")
    return InputError(f"{valid} valid measurement(s) of {metric!r} among {among}: a tree needs at least 2",
                      where=source,
                      hint="measure more configurations first" + (" (or choose another --metric)" if
                                                                  len(dataset.metrics) > 1 else ""))


def _search(settings: SearchRecord | None, dataset: Dataset, metric: str, minimize: bool,
            space: Any = None) -> list[Section]:
    if not settings:
        return []

    sense = "minimised" if settings.minimize else "maximised"
    budget = settings.budget
    spent = (f"{budget} ({len(dataset)} spent: the search stopped early, and starchart resume continues it)"
             if isinstance(budget, int) and len(dataset) < budget else budget)
    rows = {"budget": spent, "seed": settings.seed, "objective": f"{settings.objective} ({sense})",
            "warm start from": settings.prior or "none (cold start)"}
    around = _best_neighbourhood(dataset, metric, minimize, space)
    if around is not None:
        rows["around the best"] = around.describe()
    return [("Search settings", pd.DataFrame({"setting": list(rows), "value": list(rows.values())}))]


def _best_neighbourhood(dataset: Dataset, metric: str, minimize: bool, space: Any) -> Any:
    """The one-parameter neighbourhood of the best measured configuration, or ``None`` (no space, no value)."""
    if space is None or metric not in dataset.frame or not set(space.names) <= set(dataset.params):
        return None
    values = dataset.frame[metric].where(dataset.valid).astype(float)
    if not np.isfinite(values).any():
        return None
    row = values.idxmin() if minimize else values.idxmax()
    names = list(space.names)
    best = dataset.frame.loc[row, names].to_dict()
    return best_neighbourhood(space, best, dataset.frame[names])


#: What a search's report must say: its configurations are no uniform sample of the space.
SEARCH_CAUTION = ("These configurations were chosen by a search, which measures more of what looks good so "
                  "far: they are not a uniform sample of the space. The tree, the importance and the leaf and "
                  "median values describe where the search looked, not the whole space; for a map of the whole "
                  "space, measure a uniform sample (starchart run … --samples N).")
#: Its short form, above the tree and the importance.
SEARCH_CAUTION_SHORT = ("Chosen by a search, these configurations are not a uniform sample of the space: the tree "
                        "and the importance describe where the search looked, not the whole space (see Progress).")


def _progress(order: list[float] | None, metric: str, minimize: bool, searched: bool = False) -> list[Section]:
    if not order:
        return []

    figure = plot_progress(order, metric=metric, minimize=minimize)
    return [("Progress: values in the order measured", Captioned(figure, SEARCH_CAUTION) if searched else figure)]


#: Metric names (lower case) read as time-like and power-like for the trade-off section.

#: Fewest valid configurations for the accuracy-vs-samples section (200 are held out).
ACCURACY_MIN_ROWS = 400


def _accuracy(dataset: Dataset, metric: str, study: tuple[SampleSizeRecord, Any] | None = None) -> list[Section]:

    if study is not None:
        # A sample-size study's store holds too few designs for the 200-held-out replay below, but it
        # holds every design its own study measured: replaying that study (same space, seed and
        # settings, so the same designs) gives its curve back without measuring anything.

        record, space = study
        settings = record.arguments()
        budget = min(int(settings.pop("budget")), len(dataset) - int(record.validation))
        if settings.get("metric", metric) == metric and budget > 0:
            with warnings.catch_warnings():  # the space's configurations not in the store: by design here
                warnings.filterwarnings("ignore", message=r".* of the space's configurations are not in the "
                                                          r"replayed", category=UserWarning)
                result = choose_sample_size(space, ReplayEvaluator(dataset, metrics=[metric]), budget=budget,
                                            progress=False, **settings)
            return result.report_sections()
    ok = dataset.ok()
    if len(ok) < ACCURACY_MIN_ROWS:
        return []

    result = choose_sample_size(Space.from_dataset(ok), ReplayEvaluator(ok, metrics=[metric]), validation=200,
                                budget=min(len(ok) - 200, 1280), seed=0, progress=False)
    return result.report_sections()


def _power_performance(dataset: Dataset, traded: list[str] | None,
                       limits: Mapping[str, float] | None) -> list[Section]:
    if traded is None or dataset.ok().frame[traded].dropna().shape[0] < 20:
        return []

    return tradeoff(dataset, traded, limits=limits or suggest_limits(dataset, traded)).report_sections()


def _platforms(dataset: Dataset, metric: str, minimize: bool) -> list[Section]:
    if "platform" not in dataset.params or dataset.ok().frame["platform"].nunique() < 2:
        return []  # one platform alone has nothing to compare with

    return compare_platforms(dataset, metric, minimize=minimize).report_sections()
