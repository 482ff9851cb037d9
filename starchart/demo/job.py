"""The embedded default job (``starchart demo``): measure, explain, report.

Measures a uniform sample of the bundled matrix-multiply kernel's space on this
CPU (resumable: the store lives in the output folder), fits a Starchart tree to
the runtimes, and writes an HTML report with the tree, the best subspace,
parameter importance and the measurements.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starchart._util.configs import plain_config
from starchart._util.files import folder_problem
from starchart.dataset import Dataset
from starchart.demo import ORDER_NAMES, demo_evaluator, demo_space, order_legend
from starchart.errors import InputError
from starchart.report.html import write_html_report
from starchart.study.runner import run
from starchart.tree import StarchartTree, cross_validated_error, describe_error


@dataclass
class DemoResult:
    """What the demo produced: the measurements, the tree and the files written."""

    dataset: Dataset
    tree: StarchartTree
    store: Path
    report: Path
    metric: str = "time"
    cv_error: float | None = None

    def summary(self) -> str:
        """A few lines for the terminal: samples, failures, best subspace, importance, files."""
        frame = self.dataset.frame
        ok = self.dataset.ok()
        failures = frame.loc[frame["status"] != "ok", "status"].value_counts()
        best_row = ok.frame[self.metric].idxmin()
        best_config = plain_config({p: ok.frame.loc[best_row, p] for p in self.dataset.params})
        leaf = self.tree.best_leaf(minimize=True)
        inside = bool(leaf.contains(ok.frame.loc[[best_row], self.dataset.params])[0])
        importance = self.tree.importance(normalize=True).sort_values(ascending=False)
        ranked = ", ".join(f"{name} {share:.0%}" for name, share in importance.items() if share >= 0.005)
        lines = [
            f"measured {len(frame)} configurations of the matrix-multiply kernel ({len(ok)} ok"
            + (", " + ", ".join(f"{n} {s}" for s, n in failures.items()) if len(failures) else "") + ")",
            f"Starchart tree: {self.tree.n_leaves_} leaves, depth {self.tree.depth_}"
            + (f"; {describe_error(self.cv_error)} (5-fold CV)" if self.cv_error is not None else ""),
            f"parameter importance: {ranked}",
            f"best subspace: {leaf.description}{_orders_in(leaf)}  (n={leaf.n_samples}, mean {leaf.mean:.3g} ms)",
            (f"best measured: {ok.frame.loc[best_row, self.metric]:.3g} ms at {best_config}; "
             f"slowest {ok.frame[self.metric].max():.3g} ms"),
            *([] if inside else [
                "  (it lies outside the best subspace: the subspace is the region with the lowest mean time, "
                "fast for every configuration in it; one configuration elsewhere can be faster alone, "
                "or by the noise of its measurement)"]),
            order_legend(),
            *_noise_line(self.dataset.repeat_spread(self.metric)),
            f"report: {self.report}",
            f"store:  {self.store}  (re-running reuses it; export with: starchart export {self.store} -o demo.csv)",
        ]
        return "\n".join(lines)


def _orders_in(leaf: Any) -> str:
    """The loop orders a subspace's ORDER condition admits, by name: ``" (ORDER: kij, kji)"`` for ``ORDER > 3``.

    >>> from types import SimpleNamespace as Leaf
    >>> _orders_in(Leaf(bounds={"ORDER": (3.0, None)})), _orders_in(Leaf(bounds={}))
    (' (ORDER: kij, kji)', '')
    """
    if "ORDER" not in leaf.bounds:
        return ""
    low, high = leaf.bounds["ORDER"]
    names = [name for value, name in ORDER_NAMES.items()
             if (low is None or value > low) and (high is None or value <= high)]
    return f" (ORDER: {', '.join(names)})"


#: A spread of the repeats above which the summary warns that close configurations cannot be told apart.
NOISY = 0.10


def _noise_line(spread: float | None) -> list[str]:
    """The summary's line on measurement noise (none without repeats).

    >>> _noise_line(0.04)
    ['measurement noise: the repeats of a configuration differ by 4% (median)']
    >>> _noise_line(0.25)[0].endswith("close other programs or add --repeats, and measure again")
    True
    """
    if spread is None:
        return []
    line = f"measurement noise: the repeats of a configuration differ by {spread:.0%} (median)"
    if spread > NOISY:  # a busy machine: the ranking of close configurations (and the tree) may not repeat
        line += ("; differences smaller than that are noise, so the best subspace may change from run to run — "
                 "close other programs or add --repeats, and measure again")
    return [line]


def intro(space: Any, samples: int, repeats: int, warmup: int) -> str:
    """What the demo is about to do, said before its progress bar."""
    return (f"Tuning a tiled 256 x 256 matrix multiply written in C (starchart/demo/matmul.c) on this CPU: "
            f"{samples} of the {space.size():,} valid configurations of {', '.join(space.names)}, drawn uniformly; "
            f"each is compiled with gcc -O3, checked against a reference result and timed {repeats} times "
            f"after {warmup} warm-up run{'s' if warmup != 1 else ''}.\n{order_legend()}; TI, TJ, TK: the tile's sides.")


def run_demo(out_dir: str | Path = "starchart-demo", *, samples: int = 200, repeats: int = 5, warmup: int = 1,
             workers: int = 1, seed: int = 0, progress: bool = True) -> DemoResult:
    """Run the demo into ``out_dir`` (``demo.db``, ``report.html`` and the figures).

    Re-running reuses the store: nothing measured is measured again, and a
    larger ``samples`` only measures the difference.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:

        raise InputError(f"cannot create the output folder ({folder_problem(out, exc)})", where=out,
                         hint="choose a writable folder with --out") from None
    space = demo_space()
    store = out / "demo.db"
    if progress:
        print(intro(space, samples, repeats, warmup), flush=True)
    dataset = run(space, demo_evaluator(repeats=repeats, warmup=warmup), samples=samples, store=store,
                  seed=seed, workers=workers, progress=progress)
    ok = dataset.ok()
    if len(ok) < 2:
        reasons = "; ".join(sorted(set(dataset.frame["reason"])))[:500]
        raise InputError(f"only {len(ok)} configurations ran correctly: {reasons}", where=store,
                         hint="check that gcc works (gcc --version) and see the reasons above")
    tree = StarchartTree().fit(ok.X, ok.y("time"))
    cv_error = cross_validated_error(ok.X, ok.y("time"), folds=5, seed=0)

    report = write_html_report(out / "report.html", dataset=dataset, tree=tree, metric="time",
                               title="starchart demo: tiled matrix multiply on this CPU", space=space,
                               accuracy=f"{describe_error(cv_error)} (5-fold CV)",
                               legend=order_legend() + "; TI, TJ, TK: the tile's sides; UNROLL: of the "
                                       "innermost loop; TRANSPOSE_B: B transposed first (1) or not (0).")
    (out / "tree.txt").write_text(tree.export_text() + "\n", encoding="utf-8")
    return DemoResult(dataset=dataset, tree=tree, store=store, report=report, cv_error=cv_error)
