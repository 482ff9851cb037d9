"""The ``starchart`` command line: thin wrappers that call the library and format its results.

    starchart info DATA
    starchart tree DATA --metric M [--sample N --seed S] [--threshold T] [--min-split K]
                        [--max-depth D] [--format text|json|dot|svg] [-o FILE]
    starchart space FILE [--size] [--sample N] [--restriction EXPR ...]
    starchart run | resume | export | demo        (measuring: see starchart/cli/measure.py)
    starchart samples SPACE_FILE ...              (sample-size selection: see starchart/cli/samples.py)
    starchart platforms | tradeoff | inputs       (analysing: see starchart/cli/analyse.py)

Errors print one readable line and a hint, never a traceback.
"""

from __future__ import annotations

import shlex
import sys
from enum import Enum
from pathlib import Path
from typing import Any, Optional

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from starchart._util.files import cut_off, parse_json, read_text_cut
from starchart._util.text import percent
from starchart._util.units import unit_of
from starchart.cli.app import app, err, out
from starchart.cli.app import friendly as _friendly
from starchart.cli.common import (
    DirectionOption,
    MetricsOption,
    check_output_folder,
    load_data,
    metric_name,
    minimize_for,
    option_names,
    print_failure_reasons,
    seed_option,
)
from starchart.errors import InputError, StarchartError
from starchart.io import csv, kernel_tuner, ktt, t4
from starchart.io.formats import BUILT_IN
from starchart.io.load import detect_format, is_store, load
from starchart.space import Space
from starchart.study.store import Store
from starchart.tree import (
    StarchartForest,
    best_leaf_line,
    describe_error,
    dot_to_svg,
    expanded_nodes,
    fit_stated_tree,
)

#: How deep `starchart tree` draws a tree on the terminal by default: enough for the splits that matter
#: most (a tree of thousands of configurations has hundreds of leaves and ran to 1,555 lines).
SHOWN_DEPTH = 4

DataHelp = "Measurements: Kernel Tuner cache, T4, KTT, CSV, or a starchart store (study.db)."

#: Parameters `starchart info` lists, one row each (the rest are counted).
INFO_PARAMETER_ROWS = 100

#: The formats whose files `starchart space` reads its own way (restrictions, T1 and caches' spaces).
BUILT_IN_NAMES = frozenset(fmt.name for fmt in BUILT_IN)


@app.command()
@_friendly
def info(data: Path = typer.Argument(..., help=DataHelp),
         metrics: Optional[str] = MetricsOption) -> None:
    """Summarise a measurement file: format, device, statuses, parameters and metrics."""
    ds = load_data(data, metrics)
    meta = ds.meta
    # a styled line: escape() the path, the user's text ("run[old]/k.csv" would be eaten); soft_wrap: whole
    out.print(f"[bold]{escape(str(data))}[/]  ({escape(str(meta.get('format', '?')))})", markup=True, soft_wrap=True)
    for key in ("device_name", "kernel_name", "problem_size", "objective"):
        if meta.get(key) not in (None, ""):
            out.print(f"  {key.replace('_', ' ')}: {meta[key]}", markup=False)
    if meta.get("search"):
        budget = meta["search"].get("budget")
        unspent = (f"; {len(ds)} evaluations spent (starchart resume {data} continues it)"
                   if isinstance(budget, int) and len(ds) < budget else "")  # stopped, e.g. at its time limit
        out.print(f"  search: {_search_settings(meta['search'])}{unspent}", markup=False, highlight=False,
                  soft_wrap=True)
    if meta.get("sample_size"):
        study = meta["sample_size"]
        out.print(f"  sample-size study: target {percent(study['target'])} median error, {study['validation']} held out, "
                  f"training budget {study['budget']}, seed {study['seed']} (starchart resume {data} continues it)",
                  markup=False, highlight=False, soft_wrap=True)
    counts = ds.status.value_counts()
    out.print(f"  configurations: {len(ds)}  valid: {int(ds.valid.sum())}  "
              + "  ".join(f"{k}: {v}" for k, v in counts.items() if k != "ok"))
    print_failure_reasons(ds)
    params = Table(title="parameters", show_edge=False)
    for column in ("name", "values", "distinct"):
        # fold, not "…": a name cut short cannot be typed back (--metric, restrictions)
        params.add_column(column, overflow="fold" if column == "name" else "ellipsis")
    for name in ds.params[:INFO_PARAMETER_ROWS]:
        uniq = sorted(ds.frame[name].unique().tolist(), key=lambda v: (str(type(v)), v))
        shown = ", ".join(map(str, uniq[:10])) + (" …" if len(uniq) > 10 else "")
        params.add_row(str(name), shown, str(len(uniq)))
    out.print(params)
    if len(ds.params) > INFO_PARAMETER_ROWS:  # a table of 100,000 rows took 20 s to draw, and no one reads it
        out.print(f"  … and {len(ds.params) - INFO_PARAMETER_ROWS:,} more parameters ({len(ds.params):,} in all)",
                  markup=False, highlight=False)
    ok = ds.ok()
    if meta.get("ignored_fields"):  # e.g. an observer's strings or lists in a Kernel Tuner cache
        out.print(f"  not metrics (not a number in every valid configuration): {', '.join(meta['ignored_fields'])}",
                  markup=False, highlight=False, soft_wrap=True)
    if not len(ok):  # an empty table would only show its header
        out.print(f"  metrics: {', '.join(ds.metrics) or 'none'} (no valid configuration to summarise)",
                  markup=False, highlight=False, soft_wrap=True)
        return
    table = Table(title="metrics (valid configurations)", show_edge=False)
    for column in ("name", "min", "median", "max"):
        table.add_column(column, justify="left" if column == "name" else "right",
                         overflow="fold" if column == "name" else "ellipsis")
    notes = []
    for name in ds.metrics:
        values = ok.frame[name].to_numpy(dtype=float)
        missing, infinite = int(np.isnan(values).sum()), int(np.isinf(values).sum())
        values = values[np.isfinite(values)]
        if values.size:
            table.add_row(str(name), f"{values.min():.4g}", f"{np.median(values):.4g}", f"{values.max():.4g}")
        else:  # keep the row: a metric silently missing from the table looks like a reading error
            table.add_row(str(name), "–", "–", "–")
        said = [f"missing in {missing}"] * bool(missing) + [f"infinite in {infinite}"] * bool(infinite)
        if said:
            notes.append(f"  {name} is {' and '.join(said)} of the {len(ok)} valid configurations "
                         "(trees leave them out)")
    out.print(table)
    for note in notes:
        out.print(note, highlight=False, soft_wrap=True, markup=False)


def _search_settings(settings: dict[str, Any]) -> str:
    """A stored search's settings in a few words.

    >>> _search_settings({"budget": 50, "seed": 7, "prior": None})
    'budget 50, seed 7'
    >>> _search_settings({"budget": 50, "seed": 7, "prior": "a100.json"})
    'budget 50, seed 7, warm start from a100.json'
    >>> _search_settings({"budget": 50, "seed": 7, "strategy": "uniform"})
    'budget 50, seed 7, strategy uniform'
    """
    prior, strategy = settings.get("prior"), settings.get("strategy")
    return (f"budget {settings.get('budget')}, seed {settings.get('seed')}"
            + (f", strategy {strategy}" if strategy else "")
            + (f", warm start from {prior}" if prior else ""))


class TreeFormat(str, Enum):
    text = "text"
    json = "json"
    dot = "dot"
    svg = "svg"


@app.command()
@_friendly
def tree(data: Path = typer.Argument(..., help=DataHelp),
         metric: Optional[str] = typer.Option(None, "--metric", "-m",
                                              help="Response to model (default: the file's objective)."),
         metrics: Optional[str] = MetricsOption,
         sample: Optional[int] = typer.Option(None, "--sample", "--samples", "-n", min=1,
                                              help="Fit on N valid configurations drawn uniformly."),
         seed: Optional[int] = seed_option(None, "Seed for --sample."),
         threshold: float = typer.Option(0.0, "--threshold", min=0.0,
                                         help="Split only when SSE drops by more than this."),
         min_split: int = typer.Option(10, "--min-split", min=2,
                                       help="Do not split nodes with fewer samples."),
         max_depth: Optional[int] = typer.Option(None, "--max-depth", min=0, help="Limit the depth."),
         leaf_model: str = typer.Option("mean", "--leaf-model", metavar="mean|linear",
                                        help="What a leaf predicts: its mean (the paper's) or a line in the numeric "
                                             "parameters (fewer levels for the same error)."),
         prune: Optional[str] = typer.Option(None, "--prune",
                                             help="Cost-complexity pruning sized by 10-fold CV: '1se' (rpart's "
                                                  "1-SE rule) or 'relative' (lowest CV median relative error)."),
         forest: Optional[int] = typer.Option(None, "--forest", min=2,
                                              help="Also fit a forest of N bagged Starchart trees (more accurate "
                                                   "than one tree) and state its out-of-bag error and importance."),
         maximize: Optional[bool] = DirectionOption,
         fmt: TreeFormat = typer.Option(TreeFormat.text, "--format", "-f", help="Output format."),
         output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write here instead of stdout."),
         depth: int = typer.Option(SHOWN_DEPTH, "--depth", min=0,
                                   help="Text on the terminal: draw the tree down to this depth (the fit is whole)."),
         full: bool = typer.Option(False, "--full", help="Text: draw every node (always so with -o)."),
         top_splits: Optional[int] = typer.Option(None, "--top-splits", min=1, metavar="K",
                                                  help="Draw only the K splits that explain most, the way to "
                                                       "the best leaf and the splits above them (text, dot, svg)."),
         leaf: Optional[str] = typer.Option(None, "--leaf", metavar="ID|best",
                                            help="Print that leaf (its [number] in the drawing, or 'best') as "
                                                 "restrictions, to sample more inside it: starchart space SPACE "
                                                 "-r ... --sample N."),
         ) -> None:
    """Fit a Starchart tree to measured configurations and show it."""
    _check_seed(seed, sample)
    metric = metric_name(metric)
    if forest is not None and fmt is not TreeFormat.text:
        raise InputError("a forest is summarised in text only (it cannot be drawn as one tree)", where="--forest",
                         hint="leave out --format, or leave out --forest to export the single tree")
    if output is not None:  # refuse a missing folder before the fit, not after it
        check_output_folder(output, "-o")
        _refuse_overwriting(output, data, "tree.txt")
    loaded = load_data(data, metrics)
    ds = loaded.ok()
    metric = ds.default_metric if metric is None else metric
    if metric not in ds.metrics:
        raise InputError(f"no metric {metric!r}", where=str(data),
                         hint=f"choose --metric from: {', '.join(ds.metrics)}")
    if sample is not None:
        if sample > len(ds):  # Dataset.sample's message named neither the option nor that only valid ones count
            raise InputError(f"--sample {sample} asks for more than the {len(ds)} valid configurations",
                             where=str(data),
                             hint=f"ask for at most {len(ds)}, or leave out --sample to fit on all of them")
        ds = ds.sample(sample, seed=seed)
    y = ds.y(metric)
    finite = np.isfinite(y)
    if not finite.any():
        others = [m for m in ds.metrics if m != metric]
        if others and len(ds):
            hint = f"choose another --metric ({', '.join(others)})"
        elif len(ds):  # valid configurations, but none with a finite value: "no configuration succeeded" is wrong
            hint = f"its {len(ds)} valid configuration(s) hold no finite {metric} (NaN or infinite); fix the file"
        elif not len(loaded):  # a store stopped before its first result: none failed either
            hint = f"nothing is measured yet; `starchart resume {data}` continues an interrupted study"
        else:
            hint = f"no configuration succeeded; `starchart info {data}` shows why they failed"
        raise InputError(f"metric {metric!r} has no measured values", where=str(data), hint=hint)
    X, y = ds.X[finite], y[finite]
    params: dict[str, Any] = {"threshold": threshold, "min_samples_split": min_split, "max_depth": max_depth,
                              "leaf_model": leaf_model}
    if not np.isfinite(threshold):  # --threshold's min=0 lets inf and nan through
        raise InputError(f"the threshold must be a finite number, got {threshold}", where="--threshold",
                         hint="use 0 (the paper's default) or a small SSE drop")

    with option_names({"prune": "--prune", "leaf_model": "--leaf-model", "max_depth": "--max-depth"}):
        fitted, said, _ = fit_stated_tree(X, y, prune=prune, metric=metric, **params)
    if leaf is not None:
        minimize = minimize_for(maximize, metric, ds.meta)
        _emit("\n".join(_leaf_restrictions(fitted, leaf, minimize)), output)
    elif fmt is TreeFormat.json:
        _emit(fitted.to_json(), output)
    elif fmt is TreeFormat.dot:
        _emit(fitted.to_dot(top_splits=top_splits, minimize=minimize_for(maximize, metric, ds.meta)), output)
    elif fmt is TreeFormat.svg:

        _emit(dot_to_svg(fitted.to_dot(top_splits=top_splits, minimize=minimize_for(maximize, metric, ds.meta))),
              output)
    else:
        minimize = minimize_for(maximize, metric, ds.meta)
        shown = None if full or output is not None or top_splits is not None else depth
        text = _tree_summary(fitted, metric, int(finite.sum()), str(data), said, minimize,
                             left_out=int((~finite).sum()), shown_depth=shown, unit=unit_of(metric, ds.meta),
                             top_splits=top_splits)
        if forest is not None:  # after the single tree's summary, before its drawing
            header, drawing = text.split("\n\n", 1)
            text = header + _forest_summary(X, y, forest) + "\n" + drawing
        _emit(text, output)


def _leaf_restrictions(fitted: Any, leaf: str, minimize: bool) -> list[str]:
    """The lines ``tree --leaf`` prints: the region of leaf ``leaf`` (a node number, or ``best``) as
    restrictions, then the command that samples inside it."""
    regions = {region.node_id: region for region in fitted.leaves_}
    if leaf.strip().lower() == "best":
        region = fitted.best_leaf(minimize=minimize)
    elif leaf.strip().isdigit() and int(leaf) in regions:
        region = regions[int(leaf)]
    else:
        raise InputError(f"{leaf!r} is not a leaf of the tree", where="--leaf",
                         hint=f"give 'best' or a leaf's number, one of {sorted(regions)[:12]}")
    restrictions = region.to_restrictions()
    options = " ".join(f"-r {shlex.quote(r)}" for r in restrictions)
    return [f"# leaf [{region.node_id}]: {region.description}  (n={region.n_samples}, mean={region.mean:.4g})",
            *restrictions,
            f"# to measure more inside it: starchart space SPACE {options} --sample N -o more.csv"]


def _refuse_overwriting(output: Path, source: Path, example: str) -> None:
    """Refuse ``-o`` naming the file read: a slip (tab completion) would replace the measurements or the space."""
    try:
        same = output.exists() and source.exists() and output.samefile(source)  # also through links
    except OSError:
        same = False
    if same:
        raise InputError(f"it names the input file {str(source)!r}, which writing would replace", where="-o",
                         hint=f"write to another file, e.g. -o {example}")


def _check_seed(seed: Optional[int], sample: Optional[int]) -> None:
    """Refuse a ``--seed`` that would be ignored: it only seeds ``--sample``."""
    if seed is not None and sample is None:
        raise InputError("it seeds --sample, which is not given", where="--seed",
                         hint="add --sample N to draw N configurations with this seed, or leave out --seed")


def _tree_summary(fitted: Any, metric: str, n: int, source: str, error_line: str = "",
                  minimize: bool = True, left_out: int = 0, shown_depth: Optional[int] = None,
                  unit: Optional[str] = None, top_splits: Optional[int] = None) -> str:
    """The tree's header lines (size, cross-validated error, importance, best leaf), then its drawing down to
    ``shown_depth`` (all of it for None; only the ``top_splits`` splits that explain most, with the way to the
    best leaf, when given), then how many nodes the drawing left out and how to see them."""
    importance = fitted.importance(normalize=True).sort_values(ascending=False)
    ranked = ", ".join(f"{name} {share:.1%}" for name, share in importance.items() if share > 0)
    lines = [f"Starchart tree of {metric} — {source}",
             f"{n} {'sample' if n == 1 else 'samples'}, {fitted.n_leaves_} {'leaf' if fitted.n_leaves_ == 1 else 'leaves'}, "
             f"depth {fitted.depth_}"
             + (f" ({left_out} more without a finite {metric} left out)" if left_out else "")
             + (f"; each leaf predicts by a line in {', '.join(fitted.leaf_columns_)} (the means shown are the "
                "leaves' own)" if getattr(fitted, "leaf_coef_", None) is not None else ""),
             *([error_line] if error_line else []),
             f"parameter importance (share of SSE explained): {ranked or 'none'}",
             best_leaf_line(fitted, metric, minimize, unit),
             "", fitted.export_text(max_depth=shown_depth, top_splits=top_splits, minimize=minimize)]
    hidden = int((fitted.tree_.depth > shown_depth).sum()) if shown_depth is not None else 0
    if top_splits is not None:
        drawn = 1 + 2 * len(expanded_nodes(fitted, top_splits=top_splits, minimize=minimize))
        if drawn < fitted.tree_.node_count:
            lines += ["", f"{fitted.tree_.node_count - drawn} of {fitted.tree_.node_count} nodes lie below splits "
                          f"that explain less and are not drawn: --full draws them all"]
    elif hidden:
        lines += ["", f"{hidden} of {fitted.tree_.node_count} nodes lie below depth {shown_depth} and are not drawn: "
                      f"--full draws them all, --depth D to depth D, --format svg -o tree.svg as a picture"]
    return "\n".join(lines) + "\n"


def _forest_summary(X: Any, y: Any, n_trees: int) -> str:
    """What a forest of ``n_trees`` bagged Starchart trees adds: its out-of-bag error and importance.

    The out-of-bag error is each configuration predicted by the trees whose bootstrap left it
    out, so, like the single tree's cross-validated error, it is measured on unseen configurations.
    """
    if len(y) < 5:
        raise InputError(f"a forest's out-of-bag error needs at least 5 samples, got {len(y)}", where="--forest",
                         hint="fit on more configurations, or leave out --forest")
    model = StarchartForest(n_estimators=n_trees, random_state=0).fit(X, y)
    ranked = ", ".join(f"{name} {share:.1%}" for name, share in
                       model.importance_.sort_values(ascending=False).items() if share > 0)
    return (f"\nforest of {n_trees} bagged Starchart trees: {describe_error(model.oob_error_)} "
            f"(out-of-bag)\nforest importance: {ranked or 'none'}\n")


def _emit(text: str, output: Optional[Path]) -> None:
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write output ({exc.strerror})", where=str(output),
                         hint="choose a writable path for -o") from exc
    err.print(f"wrote {output}")


@app.command()
@_friendly
def space(file: Path = typer.Argument(..., help="Space file (YAML/JSON), T1 input, Kernel Tuner cache, or "
                                                  "measurements (CSV, T4, KTT: the configurations they hold; a "
                                                  "store: its study's space)."),
          restriction: list[str] = typer.Option([], "--restriction", "-r",
                                                help="Extra restriction (repeatable), added to those of the space "
                                                     "file, T1 input or Kernel Tuner cache."),
          size: bool = typer.Option(False, "--size", help="Count the valid configurations."),
          sample: Optional[int] = typer.Option(None, "--sample", "--samples", "-n", min=1,
                                               help="Print N valid configurations drawn uniformly."),
          seed: Optional[int] = seed_option(None, "Seed for --sample."),
          output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the sample as CSV here."),
          ) -> None:
    """Describe a tuning space; count it; draw a uniform sample of valid configurations."""
    _check_seed(seed, sample)
    if output is not None:
        if sample is None:  # it would be silently ignored
            raise InputError("it writes the sample of --sample, which is not given", where="-o",
                             hint="add --sample N to write N configurations there as CSV")
        check_output_folder(output, "-o")  # before the work, and naming the option (pandas names neither)
        _refuse_overwriting(output, file, "sample.csv")
    the_space = _read_space(file, restriction)
    # a sample printed to stdout must be plain CSV (`... --sample 50 > configs.csv`): describe on stderr then
    console = err if sample is not None and output is None else out
    console.print(the_space.describe(), highlight=False, soft_wrap=True, markup=False)
    if size:
        console.print(f"valid configurations: {_size_text(the_space)}", highlight=False, soft_wrap=True,
                      markup=False)
    if sample is not None:
        frame = _sample_space(the_space, sample, seed, file)
        if output is not None:
            frame.to_csv(output, index=False)
            err.print(f"wrote {output}")
        else:
            sys.stdout.write(frame.to_csv(index=False))


def _read_space(file: Path, restrictions: list[str]) -> Any:
    """The space a file describes: a space file, a T1 input, a Kernel Tuner cache (+ restrictions),
    a starchart store (its study's space) or a CSV (the configurations it holds)."""
    store = is_store(file)
    if store or file.name.lower().removesuffix(".gz").endswith((".csv", ".tsv")):
        _refuse_restrictions(restrictions, file, "filter the configurations before, or write a space file")
        if not store:
            return Space.from_dataset(load(file))

        with Store.open(file, read_only=True) as db:
            stored = db.space
        if stored is None:
            raise InputError("the store holds no space yet", where=str(file), hint="give the study's space file")
        return stored
    if file.name.lower().removesuffix(".gz").endswith((".yaml", ".yml")):  # space.yaml.gz too
        return _restricted(Space.from_file(file), restrictions)
    text, cut = read_text_cut(file)
    head = text[:65536]
    if cut and not kernel_tuner.sniff(head):  # only a cache cut off mid-run is read in part
        raise cut_off(file)
    if not head.lstrip().startswith(("{", "[")) and csv.sniff(head):
        # a table whatever its name (results.json holding CSV), as `info` and `tree` read it
        _refuse_restrictions(restrictions, file, "filter the configurations before, or write a space file")
        return Space.from_dataset(load(file, format="csv"))
    plugin = _plugin_format(file, text)
    if plugin is not None:  # a format a plug-in registered: the configurations its file holds
        _refuse_restrictions(restrictions, file, "filter the configurations before, or write a space file")
        return Space.from_dataset(load(file, format=plugin))
    if kernel_tuner.sniff(head):
        # an unfinished cache (a crashed run, a cut .json.gz) still has its whole header: read it as `info`
        # and `tree` do, rather than calling it invalid JSON
        document, unfinished = kernel_tuner.parse_cache(text, file)
        if unfinished:
            kernel_tuner.warn_unfinished(file, len(document.get("cache") or {}))
    else:
        document = parse_json(text, file)
    if isinstance(document, dict) and "ConfigurationSpace" in document:
        return _restricted(Space.from_t1(file, document), restrictions)
    if isinstance(document, dict) and "tune_params" in document:
        return Space.from_kernel_tuner(document, restrictions=restrictions, where=str(file))
    # T4 results or KTT output: the configurations they hold, as for a CSV
    if isinstance(document, dict) and "parameters" not in document and (t4.sniff(text) or ktt.sniff(text)):
        _refuse_restrictions(restrictions, file, "filter the configurations before, or write a space file")
        return Space.from_dataset(load(file))
    return _restricted(Space.from_file(file), restrictions)


def _restricted(space: Space, restrictions: list[str]) -> Space:
    """``space`` with the ``--restriction`` options added to its own (e.g. a leaf's, from ``tree --leaf``)."""
    if not restrictions:
        return space
    with option_names({"restrictions": "--restriction"}):
        return space.restricted(restrictions)


def _plugin_format(file: Path, text: str) -> str | None:
    """The name of the registered plug-in format (not a built-in one) a file is in, if any."""
    try:
        name = detect_format(file, text)
    except InputError:
        return None
    return None if name in BUILT_IN_NAMES else name


def _refuse_restrictions(restrictions: list[str], file: Path, hint: str) -> None:
    if restrictions:
        raise InputError("--restriction applies to spaces (space files, T1 inputs, Kernel Tuner caches), not to "
                         "measured configurations", where=str(file), hint=hint)


def _sample_space(the_space: Any, n: int, seed: Optional[int], file: Path) -> Any:
    """``n`` valid configurations of the space; a failure says what to type instead (not the Python API)."""
    try:
        return the_space.sample(n, seed=seed)
    except StarchartError as exc:
        known = the_space.size_estimate(seed=0)  # exact (and cached) when the space could be counted
        if known.exact and n > known.estimate:
            hint = (f"ask for at most {known.estimate:,} (--sample {known.estimate})" if known.estimate else
                    "the restrictions exclude every configuration: loosen them")
        else:
            hint = ("so few random configurations are valid that they cannot be found by drawing: ask for fewer, "
                    "or narrow the value lists so that fewer combinations break the restrictions")
        raise InputError(exc.raw_message, where=f"{file}, --sample", hint=hint) from exc


def _size_text(the_space: Any) -> str:
    try:
        return f"{the_space.size():,} of {the_space.cartesian_size:,} Cartesian points"
    except StarchartError:
        estimate = the_space.size_estimate(seed=0)  # the seed of describe(): the same estimate, not another
        return f"{estimate} (estimated from a sample; {the_space.cartesian_size:,} Cartesian points)"
