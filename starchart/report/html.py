"""One self-contained HTML report of a study: the tree, the best region, importance, leaves, data.

:func:`write_html_report` writes a single ``.html`` file that needs nothing else
to be read (figures are inline SVG, the style sheet is inline, nothing is
fetched from the network) and, beside it, the figures as separate SVG files named
after it, so that two reports can share a folder (for ``study.html``: ``study-tree.svg``,
``study-importance.svg``, ``study-leaves.svg``, ``study-measurements.svg``, and each extra
section's figure under its heading, e.g. ``study-power-performance-trade-off.svg``) for
papers and slides. Every piece of text that comes from the data (parameter
names and values, failure reasons, file names, environment) is HTML-escaped.

Examples
--------
>>> import tempfile
>>> import pandas as pd
>>> from pathlib import Path
>>> from starchart.dataset import Dataset
>>> from starchart.tree import StarchartTree
>>> ds = Dataset.from_frame(pd.DataFrame({"tpp": [1, 1, 2, 2, 4, 4, 8, 8], "consec": [0, 1] * 4,
...                                       "time": [9, 9.2, 5, 5.1, 3, 3.2, 2.9, 3.1]}))
>>> tree = StarchartTree(min_samples_split=2).fit(ds.X, ds.y("time"))
>>> out = write_html_report(Path(tempfile.mkdtemp()) / "report.html", dataset=ds, tree=tree,
...                         metric="time", title="tpp <sweep>")
>>> text = out.read_text(encoding="utf-8")
>>> "<svg" in text, "tpp &lt;sweep&gt;" in text, (out.parent / "report-tree.svg").exists()
(True, True, True)
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from starchart import __version__
from starchart._util.direction import direction_word, lower_is_better
from starchart._util.files import folder_problem
from starchart._util.forked import in_processes
from starchart._util.text import shorten
from starchart._util.units import unit_of
from starchart.errors import InputError, StarchartError
from starchart.report.plots import (
    PAGE_INCHES,
    failure_counts,
    figure_makers,
    metric_label,
    splits_that_matter,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from starchart.dataset import Dataset
    from starchart.space import Space
    from starchart.tree import StarchartTree

__all__ = ["Captioned", "Rendered", "figure_svg", "render_sections", "write_html_report"]


class Captioned(NamedTuple):
    """An extra section's content (a Figure, a DataFrame or an HTML string) with a note under it,
    for what a reader must know to read it right; the figure is still saved beside the report."""

    content: Any
    note: str


#: Extra sections of a report: ``{heading: content}`` or ``[(heading, content), ...]``.
Sections = Mapping[str, Any] | Sequence[tuple[str, Any]]


class Rendered(NamedTuple):
    """An extra section's content already turned into HTML (:func:`render_sections`): ``svg`` is its
    figure's, saved beside the report, or None. Plain strings, so another process can make it."""

    html: str
    svg: str | None = None


#: Figures written beside the report (``<report stem>-<name>.svg``), in the order they appear; a tree with a
#: split adds ``validation`` (:func:`starchart.report.plots.validation_pair`).
FIGURE_NAMES: tuple[str, ...] = ("tree", "importance", "leaves", "measurements")

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;
       color: #1d2330; background: #fafbfc; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5rem 2rem 3rem; }
h1 { font-size: 1.7rem; margin: 0.2rem 0 0.3rem; }
h2 { font-size: 1.25rem; margin: 2.2rem 0 0.6rem; padding-bottom: 0.25rem; border-bottom: 2px solid #dfe3ea; }
h3 { font-size: 1.02rem; margin: 1.2rem 0 0.4rem; }
.subtitle { color: #5a6272; margin: 0 0 1rem; }
nav { font-size: 0.9rem; margin: 0.5rem 0 1rem; }
nav a { margin-right: 1rem; color: #1f3fbf; text-decoration: none; }
.cards { display: flex; flex-wrap: wrap; gap: 0.8rem; margin: 1rem 0; }
.card { background: white; border: 1px solid #dfe3ea; border-radius: 8px; padding: 0.6rem 1rem;
        min-width: 9rem; }
.card .value { font-size: 1.35rem; font-weight: 600; }
.card .label { color: #5a6272; font-size: 0.82rem; }
.best { background: #eef2ff; border: 1px solid #b9c6f5; border-radius: 8px; padding: 0.8rem 1.1rem; }
.best .region { font-size: 1.15rem; font-weight: 600; color: #1f3fbf; font-family: ui-monospace, monospace; }
table { border-collapse: collapse; margin: 0.4rem 0 1rem; font-size: 0.88rem; background: white; }
th, td { border: 1px solid #dfe3ea; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f0f2f6; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.table-wrap { max-width: 100%; overflow-x: auto; }
.table-wrap > table { margin-bottom: 0.4rem; }
tr.highlight td { background: #eef2ff; font-weight: 600; }
.figure { overflow-x: auto; background: white; border: 1px solid #dfe3ea; border-radius: 8px;
          padding: 0.4rem; margin: 0.6rem 0 1rem; }
.figure svg { display: block; }
.scroll { max-height: 32rem; overflow: auto; }
pre.text-tree { max-height: 40rem; }
pre { background: white; border: 1px solid #dfe3ea; border-radius: 8px; padding: 0.8rem; overflow: auto;
      font-size: 0.8rem; line-height: 1.3; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.note { color: #5a6272; font-size: 0.86rem; }
.caution { background: #fff6e0; border-left: 4px solid #e0a100; padding: 0.4rem 0.8rem; font-size: 0.9rem; }
.reason { font-family: ui-monospace, monospace; font-size: 0.8rem; white-space: pre-wrap; }
footer { color: #8a92a2; font-size: 0.8rem; margin-top: 3rem; }
"""


# ------------------------------------------------------------------------ helpers
def figure_svg(fig: Figure, salt: str = "starchart", text_as_paths: bool = True) -> str:
    """The figure as an ``<svg>`` element to inline in HTML (no XML prolog).

    Text is drawn as glyph outlines by default, so the figure looks the same in any
    browser or drawing program whatever fonts are installed (``text_as_paths=False``
    keeps it as text: half the size, selectable, but set in the reader's fonts).
    Element ids are salted with ``salt`` so several figures can share one page.
    """
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path" if text_as_paths else "none", "svg.hashsalt": salt}):
        fig.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _draw(make: Callable[[], Figure], name: str) -> tuple[str, float]:
    """The figure ``make`` draws, as SVG with ids salted by ``name``, and its width in inches."""
    fig = make()
    return figure_svg(fig, salt=name), float(fig.get_figwidth())


def _validation(svg: str | None) -> str:
    """The validation plot with what it shows, or nothing (a tree without a split has none)."""
    if svg is None:
        return ""
    return _figure(svg, "Validation (the paper's Fig. 1b/c): the metric against the parameter of the split that "
                        "reduces the squared error most, symbols by the next such parameter. Points that fall "
                        "apart by symbol show the interaction the tree splits on.")


def _num(value: Any, digits: int = 4) -> str:
    """A number for a table cell: integers as they are, floats to ``digits`` significant digits,
    NaN and ``None`` (nothing known, e.g. no GPU found) as a dash."""
    if value is None:
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "–"
        if value.is_integer() and abs(value) < 1e12:
            return str(int(value))
        return f"{value:.{digits}g}"
    return str(value)


def _cell(value: Any) -> str:
    numeric = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    css = ' class="num"' if numeric else ""
    return f"<td{css}>{escape(_num(value))}</td>"


def _table(frame: pd.DataFrame, *, highlight: Iterable[int] = (), index: bool = False,
           classes: str = "", column_classes: Mapping[str, str] | None = None) -> str:
    """An HTML table of ``frame`` with every header and cell escaped.

    ``highlight``: row positions to mark; ``column_classes``: a CSS class per column name.
    """
    marked = set(highlight)
    head = ([escape(str(frame.index.name or ""))] if index else []) + [escape(str(c)) for c in frame.columns]
    css_of = [(column_classes or {}).get(str(c)) for c in frame.columns]
    rows = []
    for position, (label, row) in enumerate(frame.iterrows()):
        cells = ([f"<th>{escape(str(label))}</th>"] if index else [])
        cells += [f'<td class="{escape(css)}">{escape(_num(v))}</td>' if css else _cell(v)
                  for v, css in zip(row.tolist(), css_of)]
        css = ' class="highlight"' if position in marked else ""
        rows.append(f"<tr{css}>{''.join(cells)}</tr>")
    cls = f' class="{escape(classes)}"' if classes else ""
    # In a box that scrolls sideways: a table wider than the page (many parameters, long cells)
    # would otherwise run out of its section and past the right edge of the page.
    return (f'<div class="table-wrap"><table{cls}><thead><tr>{"".join(f"<th>{h}</th>" for h in head)}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")


def _key_values(pairs: Iterable[tuple[str, Any]]) -> str:
    rows = "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(_plain_text(v))}</td></tr>" for k, v in pairs)
    return f"<table>{rows}</table>"


def _plain_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(value, default=str, ensure_ascii=False)
    return _num(value)


def share_text(share: float) -> str:
    """A share as a percentage with two decimals, or two significant digits when smaller than that
    shows: 40 of 29 million configurations measured is not "0.00%", which reads as none.

    >>> share_text(0.25), share_text(40 / 29_209_200), share_text(0.0)
    ('25.00%', '0.00014%', '0.00%')
    """
    if 0 < share < 0.0001:
        return f"{100 * share:.2g}%" if 100 * share >= 1e-4 else f"{100 * share:.1e}%"
    return f"{share:.2%}"


def _card(value: str, label: str) -> str:
    return (f'<div class="card"><div class="value">{escape(value)}</div>'
            f'<div class="label">{escape(label)}</div></div>')


def _section(anchor: str, heading: str, body: str) -> str:
    return f'<section id="{escape(anchor)}"><h2>{escape(heading)}</h2>\n{body}\n</section>'


def _figure(svg: str, caption: str | None = None) -> str:
    note = f'<p class="note">{escape(caption)}</p>' if caption else ""
    return f'<div class="figure">{svg}</div>{note}'


# ------------------------------------------------------------------------ sections
def _failures_table(dataset: Dataset, examples: int = 3, width: int = 300) -> str:
    """Failures by status with their most common reasons."""
    counts = failure_counts(dataset)
    if not counts:
        return '<p class="note">No configuration failed.</p>'
    rows = []
    reasons = dataset.failure_reasons(examples)
    for status, count in counts.items():
        # a one-line reason is tidied; a multi-line one (a compiler log) keeps its lines
        shown = "\n".join(f"{n}× {shorten(reason, width, collapse=len(reason.splitlines()) < 2)}"
                          for reason, n in reasons.get(status, []))
        rows.append({"status": status, "configurations": count, "most common reasons": shown or "(none given)"})
    # Reasons are multi-line text: the "reason" class keeps their line breaks.
    return _table(pd.DataFrame(rows), column_classes={"most common reasons": "reason"})


def _summary(dataset: Dataset, metric: str, space: Space | None, minimize: bool) -> str:
    n_total = len(dataset)
    n_ok = int(dataset.valid.sum())
    failed = n_total - n_ok
    cards = [_card(f"{n_total:,}", "configurations measured"), _card(f"{n_ok:,}", "valid"),
             _card(f"{failed:,}", "failed")]
    space_rows: list[tuple[str, Any]] = []
    if space is not None:
        try:
            size = space.size_estimate(seed=0)
            shown = f"{size.estimate:,}" if size.exact else f"≈{size.estimate:,}"
            cards.append(_card(shown, "valid configurations in the space"))
            if size.estimate:
                cards.append(_card(share_text(n_total / size.estimate), "of the space measured"))
            space_rows = [("Cartesian size", f"{space.cartesian_size:,}"), ("valid configurations", str(size))]
        except StarchartError as exc:  # a space too large to count: say so, keep the report
            space_rows = [("valid configurations", f"unknown ({exc})")]
    ok = dataset.y(metric)[dataset.valid.to_numpy()]
    ok = ok[np.isfinite(ok)]
    unit = unit_of(metric, dataset.meta)
    if ok.size:
        best = ok.min() if minimize else ok.max()
        cards.append(_card(f"{_num(best)}{' ' + unit if unit else ''}", f"best {metric}"))
        cards.append(_card(f"{_num(np.median(ok))}{' ' + unit if unit else ''}", f"median {metric}"))

    about = [(k, dataset.meta[k]) for k in ("kernel_name", "device_name", "problem_size", "source", "format")
             if dataset.meta.get(k) not in (None, "")]
    if dataset.meta.get("unfinished"):  # the CLI warned on stderr; a reader of the page must know it too
        about.append(("unfinished file", "the tuning run did not complete: only its complete entries are here"))
    about.append(("metric", f"{metric_label(metric, unit or '')}, {direction_word(minimize)}"))
    about.append(("parameters", ", ".join(dataset.params)))
    parts = [f'<div class="cards">{"".join(cards)}</div>', "<h3>Data</h3>", _key_values(about + space_rows)]
    parts += ["<h3>Failures by status</h3>", _failures_table(dataset)]
    if space is not None:
        parts += ["<details><summary>The tuning space</summary>",
                  f"<pre>{escape(_describe_space(space))}</pre></details>"]
    environment = dataset.meta.get("environment")
    if environment:
        parts.append("<h3>Environment</h3>")
        if isinstance(environment, Mapping):
            parts.append(_key_values(_environment_rows(environment)))
        else:
            parts.append(f"<pre>{escape(_plain_text(environment))}</pre>")
    return "\n".join(parts)


def _environment_rows(environment: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The recorded environment as people read it: memory in GiB, "none" for no GPU, packages as name version.

    >>> _environment_rows({"memory_bytes": 25276063744, "gpus": [], "gpu_source": None,
    ...                    "packages": {"numpy": "2.4.6", "starchart": "0.1.0"}})
    [('memory', '23.5 GiB'), ('gpus', 'none'), ('gpu_source', None), ('packages', 'numpy 2.4.6, starchart 0.1.0')]
    """
    rows: list[tuple[str, Any]] = []
    for key, value in environment.items():
        if key == "memory_bytes" and isinstance(value, (int, float)):
            rows.append(("memory", f"{value / 2**30:.1f} GiB"))
        elif key == "gpus" and not value:
            rows.append((key, "none"))
        elif key == "packages" and isinstance(value, Mapping):
            rows.append((key, ", ".join(f"{name} {version}" for name, version in value.items())))
        else:
            rows.append((key, value))
    return rows


def _describe_space(space: Space) -> str:
    try:
        return space.describe()
    except StarchartError as exc:
        return f"{space!r}\n(could not describe it: {exc})"


def _best(tree: StarchartTree, dataset: Dataset, metric: str, minimize: bool) -> str:
    leaf = tree.best_leaf(minimize=minimize)
    unit = unit_of(metric, dataset.meta)
    suffix = f" {unit}" if unit else ""
    parts = ['<div class="best">',
             f'<div class="region">{escape(leaf.description)}</div>',
             (f"<p>Leaf [{leaf.node_id}] (one of {len(tree.leaves_)}): mean {escape(metric)} "
              f"<b>{escape(_num(leaf.mean))}{escape(suffix)}</b> over n = {leaf.n_samples} training "
              f"configurations (std {escape(_num(leaf.std))}, min {escape(_num(leaf.min))}, "
              f"max {escape(_num(leaf.max))}).</p>")]
    ok = dataset.ok()
    values = ok.y(metric)
    finite = np.isfinite(values)
    if finite.any():
        # an infinite value is left out of the tree and the summary's best: it is no best measurement here either
        at = int(np.argmin(np.where(finite, values, np.inf)) if minimize
                 else np.argmax(np.where(finite, values, -np.inf)))
        config = ok.X.iloc[[at]]
        home = int(tree.apply(config)[0])
        if home == leaf.node_id:
            where = "lies in this leaf"
        else:
            other = next(lf for lf in tree.leaves_ if lf.node_id == home)
            where = f"lies in leaf [{home}] ({other.description}, mean {_num(other.mean)})"
        table = config.assign(**{metric_label(metric, unit or ""): values[at]})
        parts += [(f"<p>The best measured configuration ({escape(metric)} = "
                   f"{escape(_num(values[at]))}{escape(suffix)}) {escape(where)}:</p>"),
                  _table(table.reset_index(drop=True))]
    parts.append("</div>")
    return "\n".join(parts)


def _importance(tree: StarchartTree, svg: str) -> str:
    raw = tree.importance_
    share = tree.importance(normalize=True)
    frame = pd.DataFrame({"parameter": raw.index.astype(str), "SSE reduction": raw.to_numpy(),
                          "share (%)": (share * 100).round(2).to_numpy()})
    frame = frame.sort_values("SSE reduction", ascending=False, kind="stable")
    note = ("Importance is the total SSE reduction of the splits on each parameter "
            "(how much of the variation of the response it explains in this tree).")
    return _figure(svg) + _table(frame) + f'<p class="note">{escape(note)}</p>'


def _leaves(tree: StarchartTree, minimize: bool) -> str:
    frame = tree.leaves_frame()
    best = tree.best_leaf(minimize=minimize).node_id
    frame = frame[["node_id", "description", "n_samples", "mean", "std", "min", "max"]]
    frame = frame.rename(columns={"n_samples": "n", "node_id": "leaf"})
    frame = frame.sort_values("mean", ascending=minimize, kind="stable")
    highlight = [i for i, node in enumerate(frame["leaf"]) if node == best]
    note = ("Leaves sorted by mean, best first (highlighted: the best subspace); "
            "“leaf” is its node id, the [id] of the tree figure, the per-leaf chart and the text tree.")
    return f'<p class="note">{escape(note)}</p><div class="scroll">{_table(frame, highlight=highlight)}</div>'


def render_sections(sections: Sections) -> list[tuple[str, Rendered]]:
    """Each extra section's content as :class:`Rendered` HTML, in order, as the report shows it
    (a figure's SVG ids are salted by its place, so the result is the same wherever it is made).

    >>> import pandas as pd
    >>> [(heading, rendered.html) for heading, rendered in render_sections({"Table": pd.DataFrame()})]
    [('Table', '<p class="note">None: no row to show here.</p>')]
    """
    items = sections.items() if isinstance(sections, Mapping) else sections
    return [(str(heading), _render(heading, content, i)) for i, (heading, content) in enumerate(items)]


def _render(heading: Any, content: Any, index: int) -> Rendered:
    if isinstance(content, Rendered):
        return content
    note = None
    if isinstance(content, Captioned):
        content, note = content
    svg = None
    if isinstance(content, Figure):
        svg = figure_svg(content, salt=f"extra{index}")
        body = _figure(svg)
    elif isinstance(content, pd.DataFrame) and content.empty:
        # A header row alone reads as a broken table: say that nothing qualified.
        body = '<p class="note">None: no row to show here.</p>'
    elif isinstance(content, pd.DataFrame):
        body = _table(content)
    elif isinstance(content, str):
        body = content  # an HTML fragment made by the caller
    else:
        raise InputError(f"extra section {heading!r} is a {type(content).__name__}",
                         hint="pass an HTML string, a pandas DataFrame or a matplotlib Figure")
    if note:
        body += f'<p class="caution">{escape(note)}</p>'
    return Rendered(body, svg)


def _extra(sections: Sections) -> list[tuple[str, str, str, str | None]]:
    """``(anchor, heading, html, svg)`` of each extra section (``svg``: its figure, if it is one)."""
    out = []
    for i, (heading, (body, svg)) in enumerate(render_sections(sections)):
        out.append((f"extra-{i}", heading, _section(f"extra-{i}", heading, body), svg))
    return out


def figure_file_name(heading: str) -> str:
    """The file name an extra section's figure is saved under, from its heading.

    >>> figure_file_name("Power/performance trade-off")
    'power-performance-trade-off.svg'
    """
    return "-".join(re.findall(r"[a-z0-9]+", heading.lower())) + ".svg"


def _check_tree_metric(tree: StarchartTree, dataset: Dataset, metric: str) -> None:
    """Refuse a tree whose mean lies outside the measured values of ``metric``: a tree of another metric.

    A tree fitted on (part of) ``dataset``'s ``metric`` has its mean between that metric's
    smallest and largest measured values (metrics of overlapping ranges cannot be told apart).
    """
    mean = float(tree.root_.mean)
    ranges = {}
    for name in dataset.metrics:
        values = dataset.y(name)
        values = values[np.isfinite(values)]
        if values.size:
            ranges[name] = (float(values.min()), float(values.max()))
    if metric not in ranges:
        return
    low, high = ranges[metric]
    slack = 1e-9 * max(abs(low), abs(high))  # the tree's mean is a sum divided: a rounding apart
    if low - slack <= mean <= high + slack:
        return
    others = [name for name, (lo, hi) in ranges.items() if name != metric and lo <= mean <= hi]
    fitted_on = f"; it fits {' or '.join(map(repr, others))}" if others else ""
    instead = f"metric={others[0]!r}" if others else "the metric it was fitted on as metric="
    raise InputError(f"the tree was not fitted on {metric!r}: the mean of its samples, {_num(mean)}, is outside "
                     f"the measured {metric!r} values ({_num(low)} to {_num(high)}){fitted_on}", where="tree",
                     hint=f"fit the tree on dataset.ok().y({metric!r}), or pass {instead}")


# ------------------------------------------------------------------------ the report
def write_html_report(path: str | Path, *, dataset: Dataset, tree: StarchartTree, metric: str | None = None,
                      title: str = "Starchart report", space: Space | None = None,
                      extra_sections: Sections | Callable[[], Sections] | None = None,
                      minimize: bool | None = None, save_figures: bool = True,
                      tree_max_depth: int | None | Literal["auto"] = "auto", caution: str | None = None,
                      accuracy: str | None = None, legend: str | None = None) -> Path:
    """Write a self-contained HTML report of ``tree`` fitted on ``dataset``'s ``metric``.

    Sections: summary (samples, failures by status with their reasons, the space's
    size, the environment from ``dataset.meta["environment"]``), the tree (inline
    SVG), the best subspace with the best measured configuration, parameter
    importance (plot and table), the leaves (table), the measurements (per leaf,
    and all sorted with their repeat spread), any ``extra_sections``, and the text tree.

    Parameters
    ----------
    path:
        The ``.html`` file to write (its folder is created).
    dataset:
        The measurements (all of them: failures are counted, valid ones plotted).
    tree:
        A :class:`~starchart.tree._tree.StarchartTree` fitted on (part of) ``dataset``'s ``metric``
        (a tree whose mean lies outside the measured values of ``metric``, a tree of another
        metric, is refused).
    metric:
        The response the tree was fitted on; default the dataset's default metric.
    title:
        Heading and ``<title>`` of the page.
    space:
        The tuning space, to show its size and description.
    extra_sections:
        ``{heading: content}`` or ``[(heading, content), ...]`` after the measurements (before the text tree);
        content is a matplotlib Figure, a DataFrame, or an HTML string inserted as
        it is (escape any text in it yourself), or any of these with a note as
        :class:`Captioned`, or :class:`Rendered`; headings are escaped. A function returning them is
        called after the report's own figures are drawn, so that they can be made meanwhile elsewhere
        (:func:`starchart.report.study.write_study_report` makes them in a second process).
    minimize:
        Whether lower values are better; default: as the dataset records it, else by the
        metric's name (:func:`starchart._util.direction.lower_is_better`: GFLOP/s is maximised).
    save_figures:
        Also write the figures beside the HTML file, named after it (for ``report.html``:
        ``report-tree.svg``, ``report-importance.svg``, ``report-leaves.svg``,
        ``report-measurements.svg`` and ``report-`` + :func:`figure_file_name` of each extra
        figure's heading).
    tree_max_depth:
        Draw the tree figure only down to this depth (the text tree stays complete);
        ``"auto"`` draws it whole up to 16 leaves, else the path to the best leaf and the splits that
        reduce the squared error most, in 16 boxes (:func:`~starchart.report.plots.splits_that_matter`);
        None always draws it whole.
    caution:
        A warning about the data shown at the top of the tree and the importance sections,
        e.g. that a search chose the configurations, so they are no uniform sample of the space.
    accuracy:
        How well the tree predicts unseen configurations (e.g. ``"predicts unseen configurations
        within 12.3 % median error (5-fold CV)"``), said under the title and above the tree.
    legend:
        What the parameters and their values mean (``"ORDER: 0 ijk, 1 ikj, ..."``), said above the tree.

    Returns
    -------
    Path
        The HTML file written.
    """
    path = Path(path)
    metric = dataset.default_metric if metric is None else metric
    if metric not in dataset.metrics:
        raise InputError(f"no metric named {metric!r}", where=dataset.meta.get("source"),
                         hint=f"the metrics are: {', '.join(dataset.metrics)}")
    tree._check_fitted()
    _check_tree_metric(tree, dataset, metric)
    if minimize is None:
        minimize = lower_is_better(metric, dataset.meta)
    check_writable(path)  # before the figures: they take a while, and then the write would fail

    expand = None
    if tree_max_depth == "auto":
        # readable at any size: the path to the best leaf and the splits that reduce the SSE most
        expand, tree_max_depth = splits_that_matter(tree, minimize=minimize), None
    tree_options: dict[str, Any] = {"max_depth": tree_max_depth} if tree_max_depth is not None else {}
    if expand is not None:
        tree_options["expand"] = expand
    makers = figure_makers(tree, dataset, metric, minimize=minimize, unit=unit_of(metric, dataset.meta) or "",
                           tree_options=tree_options or None)
    # drawn side by side on several cores when it is safe (see starchart._util.forked): the slow part
    drawn = dict(zip(makers, in_processes([partial(_draw, make, name) for name, make in makers.items()])))
    svgs = {name: svg for name, (svg, _) in drawn.items()}
    tree_inches = drawn["tree"][1]
    if callable(extra_sections):
        extra_sections = extra_sections()
    extras = _extra(extra_sections) if extra_sections else []
    if save_figures:
        header = '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        files = {f"{name}.svg": svg for name, svg in svgs.items()}  # FIGURE_NAMES, and validation
        files |= {figure_file_name(heading): svg for _, heading, _, svg in extras if svg is not None}
        for name, svg in files.items():  # named after the report: two reports can share a folder
            _write(path.parent / f"{path.stem}-{name}", header + svg, path)

    warning = f'<p class="caution">{escape(caution)}</p>' if caution else ""
    sections = [
        _section("summary", "Summary", _summary(dataset, metric, space, minimize)),
        _section("tree", "The Starchart tree",
                 warning + (f'<p>This tree {escape(accuracy)}.</p>' if accuracy else "")
                 + (f'<p>{escape(legend)}</p>' if legend else "")
                 + _figure(svgs["tree"], "Boxes: split parameter, sample count n and mean; edges: the "
                         "condition of each branch; leaves coloured by mean, the best one outlined "
                         "and starred. Scroll sideways for wide trees."
                         + (" Wider than the page, the tree is drawn from the left: each split sits above "
                            "its left branch, its right branch runs off to the right."
                            if tree_inches > PAGE_INCHES else "")
                         + (f" Drawn down to depth {tree_max_depth} of {tree.depth_}; boxes marked … "
                            "have more splits below (see the text tree)."
                            if tree_max_depth is not None and tree_max_depth < tree.depth_ else "")
                         + (f" Of its {tree.n_leaves_ - 1} splits, the {len(expand)} drawn are the path to the "
                            "best leaf and those that reduce the squared error most; boxes marked … hold the "
                            "others (all of them in the text tree below)." if expand is not None else ""))),
        _section("best", "Best subspace", _best(tree, dataset, metric, minimize)),
        _section("importance", "Parameter importance", warning + _importance(tree, svgs["importance"])),
        _section("leaves", f"Leaves ({tree.n_leaves_})", _leaves(tree, minimize)),
        _section("measurements", "Measurements",
                 _figure(svgs["leaves"]) + _figure(svgs["measurements"]) + _validation(svgs.get("validation"))),
    ]
    # The analyses (a search's progress, accuracy vs samples, platforms...) before the text tree, a
    # reference listing: after it, they sat below a long box where readers stopped scrolling.
    sections += [html for _, _, html, _ in extras]
    # a box of its own height: a tree of thousands of leaves is as many lines, which made the
    # page tens of thousands of pixels long and buried the sections after it
    sections.append(_section("text-tree", "The tree as text",
                             f'<pre class="text-tree">{escape(tree.export_text())}</pre>'))

    links = "".join(f'<a href="#{a}">{escape(h)}</a>' for a, h in
                    (("summary", "Summary"), ("tree", "Tree"), ("best", "Best subspace"),
                     ("importance", "Importance"), ("leaves", "Leaves"), ("measurements", "Measurements"),
                     *((a, h) for a, h, _, _ in extras), ("text-tree", "Text tree")))
    leaves = f"{tree.n_leaves_} leaf" if tree.n_leaves_ == 1 else f"{tree.n_leaves_} leaves"
    fitted = (f"Tree fitted on {tree.n_samples_:,} samples: {leaves}, depth {tree.depth_}, "
              f"threshold {_num(tree.threshold)}, min_samples_split {tree.min_samples_split}"
              + (f", max_depth {tree.max_depth}" if tree.max_depth is not None else "") + "."
              + (f" It {accuracy}." if accuracy else ""))
    stamp = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")

    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<main>
<h1>{escape(title)}</h1>
<p class="subtitle">{escape(fitted)}</p>
<nav>{links}</nav>
{chr(10).join(sections)}
<footer>Generated by starchart {escape(__version__)} on {escape(stamp)}.</footer>
</main>
</body>
</html>
"""
    _write(path, page, path)
    return path


def check_writable(path: Path) -> None:
    """Refuse, naming ``path`` (the report the user asked for), a report that cannot be written
    there: its folder cannot be created, or no file can be written in it. An empty file made to
    find out is removed again."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:

        raise InputError(f"cannot create the report's folder {str(path.parent)!r} "
                         f"({folder_problem(path.parent, exc)})", where=str(path),
                         hint="choose a writable path with -o") from exc
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    if not existed:
        path.unlink(missing_ok=True)


def _write(target: Path, text: str, report: Path) -> None:
    """Write ``target`` (the report or a figure beside it); a failure names the report."""
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _unwritable(report, exc, target) from exc


def _unwritable(report: Path, exc: OSError, target: Path | None = None) -> InputError:
    what = "the report" if target is None or target == report else f"the report's figure {target.name!r}"
    return InputError(f"cannot write {what} ({exc.strerror or exc})", where=str(report),
                      hint=f"choose a path you may write to with -o (the figures go beside it, in "
                           f"{str(report.parent)!r})")
