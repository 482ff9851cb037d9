"""``starchart msp``: MSP-tuning from the command line.

    starchart msp SPACE_FILE --sizes 8,64,512,4096 [--size-param n] [--work "n * 256"]
                  [--default "BLOCK=256,GROUP=4"] [--target T] [--threshold 0.1] [--stable]
                  [--search exhaustive|uniform|tree] [--budget B] [--seed S] [--baseline search|exhaustive|none]
                  [--transfer] [--confirm K] [--stat median|min|mean]
                  [--command CMD | --c-source FILE | --evaluator FILE] [--repeats R] [--warmup W]
                  [--timeout S] [--pattern RE] [--metric M] [--plots DIR] [--json] [--store msp.db]

Every measurement is kept in ``--store`` (default ``msp.db``) as it arrives: the same
command again (after Ctrl-C, a crash, or to change --threshold, --transfer ...) measures
nothing the store holds.

Importing this module registers the command on the ``starchart`` app.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional

import typer
from rich.table import Table

from starchart.cli.app import app, err, friendly, out
from starchart.cli.common import option_names, seed_option
from starchart.cli.evaluators import (
    WarmupOption,
    _evaluator_description,
    _evaluator_source,
    _interruptible,
    _read_study_file,
)
from starchart.errors import InputError
from starchart.measure import evaluator_from_dict
from starchart.msp.tuning import threshold_sweep, tune_at_msp

__all__ = ["msp_command", "msp_command_line", "parse_config", "parse_sizes"]

#: The most sizes a ``start..stop*factor`` range may give (each is a measurement of the curve).
MAX_RANGE_SIZES = 1000


def parse_sizes(text: str) -> list[int | float]:
    """Input sizes from ``"8,64,512"`` or a geometric range ``"8..4096*2"`` (start..stop*factor).

    >>> parse_sizes("8..64*2"), parse_sizes("1e3, 1e4")
    ([8, 16, 32, 64], [1000, 10000])
    """
    text = text.strip()
    if ".." in text:
        start, _, rest = text.partition("..")
        stop, _, factor = rest.partition("*")
        a, b, f = _number(start, text), _number(stop, text), _number(factor or "2", text)
        # finite bounds: "8..inf" would otherwise grow the list until the machine runs out of memory
        if not (a > 0 and b >= a and f > 1 and math.isfinite(b) and math.isfinite(f)):
            raise InputError(f"bad size range {text!r}", where="--sizes",
                             hint="start..stop*factor with 0 < start <= stop and factor > 1, all finite, "
                                  "e.g. 8..4096*2")
        # counted before the list is built: "8..1e300*1.0000001" would otherwise exhaust the memory, and a typo
        # such as *1.01 for *2 would measure hundreds of sizes
        count = math.floor((math.log(b) - math.log(a)) / math.log(f) + 1e-9) + 1
        if count > MAX_RANGE_SIZES:
            raise InputError(f"size range {text!r} gives {count:,} sizes, more than {MAX_RANGE_SIZES:,}",
                             where="--sizes", hint="a curve needs a few dozen sizes at most: raise the factor "
                                                   "(e.g. 8..4096*2) or list the sizes (8,64,512)")
        sizes, s = [], a
        while s <= b * (1 + 1e-12):
            sizes.append(s)
            s *= f
        return sizes
    return [_number(part, text) for part in text.split(",") if part.strip()]


def _number(text: str, whole: str) -> int | float:
    try:
        value = float(text.strip())
    except ValueError:
        raise InputError(f"{text.strip()!r} is not a number (in {whole!r})", where="--sizes",
                         hint="e.g. --sizes 8,64,512 or --sizes 8..4096*2") from None
    return int(value) if value.is_integer() else value


def parse_config(text: str | None, values: Mapping[str, Sequence[Any]] | None = None) -> dict[str, Any] | None:
    """A configuration from ``"BLOCK=256,GROUP=4"`` (numbers become numbers).

    ``values`` (each parameter's values, e.g. a space's ``tune_params``): a value written as one of
    them is that value, so the string ``"1"`` of a YAML list or its ``true`` can be typed too.

    >>> parse_config("BLOCK=256, MODE=fast, X=0.5")
    {'BLOCK': 256, 'MODE': 'fast', 'X': 0.5}
    >>> parse_config("VARIANT=1,FLAG=true", {"VARIANT": ["1", "2"], "FLAG": [True, False]})
    {'VARIANT': '1', 'FLAG': True}
    """
    if text is None:
        return None
    config: dict[str, Any] = {}
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InputError(f"{item!r} is not NAME=VALUE", where="--default", hint="e.g. --default BLOCK=256,GROUP=4")
        try:
            number = float(value)
            config[name.strip()] = int(number) if number.is_integer() and "." not in value else number
        except ValueError:
            config[name.strip()] = value.strip()
        known = list((values or {}).get(name.strip(), []))
        if known and config[name.strip()] not in known:  # e.g. 1 where the space lists the string "1"
            config[name.strip()] = next((v for v in known if _spelled(v, value.strip())), config[name.strip()])
    return config


def _spelled(value: Any, text: str) -> bool:
    """Whether ``text`` (as typed, quotes optional) writes ``value``: ``1`` for ``"1"``, ``true`` for ``True``."""
    text = text.strip("\"'")
    return str(value) == text or (isinstance(value, bool) and str(value).lower() == text.lower())


#: tune_at_msp's arguments as the options of `starchart msp` (for its error messages).
CLI_OPTIONS = {"sizes": "--sizes", "target": "--target", "size_param": "--size-param", "config": "--default",
               "work": "--work", "threshold": "--threshold", "stable": "--stable", "search": "--search",
               "budget": "--budget", "seed": "--seed", "baseline": "--baseline", "transfer": "--transfer",
               "confirm": "--confirm", "stat": "--stat", "metric": "--metric", "repeats": "--repeats",
               "store": "--store"}


@app.command("msp")
@friendly
def msp_command(
    space_file: Path = typer.Argument(..., help="Space file (YAML/JSON), optionally with an 'evaluator' section."),
    sizes: str = typer.Option(..., "--sizes", help="Input sizes: 8,64,512 or a range 8..4096*2."),
    size_param: str = typer.Option("n", "--size-param", help="The input-size parameter."),
    work: str = typer.Option("n", "--work", help="Units of work: n, 'n log n', n^2, n^3 or an expression."),
    default: Optional[str] = typer.Option(None, "--default", help="Default configuration, e.g. BLOCK=256,GROUP=4 "
                                                                  "(default: the first value of every parameter)."),
    target: Optional[float] = typer.Option(None, "--target", help="The size tuned for (default: the largest)."),
    threshold: float = typer.Option(0.10, "--threshold", help="Noise threshold of the MSP (fraction)."),
    stable: bool = typer.Option(False, "--stable", help="Require every larger size to stay saturated."),
    search: str = typer.Option("exhaustive", "--search", help="exhaustive, uniform or tree (the tree-guided "
                                                             "search), or an installed search strategy."),
    budget: Optional[int] = typer.Option(None, "--budget", min=1, help="Evaluations of a uniform or tree search."),
    seed: int = seed_option(0, "Seed of the search."),
    baseline: str = typer.Option("search", "--baseline",
                                 help="Reference at the target: search (the same), exhaustive, or none."),
    transfer: bool = typer.Option(False, "--transfer", help="Search at every size (the transfer curve)."),
    confirm: int = typer.Option(0, "--confirm", min=0, help="Rounds re-measuring the finalists at the target."),
    stat: str = typer.Option("median", "--stat", help="median, min or mean of the repeats."),
    command: Optional[str] = typer.Option(None, "--command", help="Program to run, e.g. \"./bench {n} {bx}\"."),
    c_source: Optional[Path] = typer.Option(None, "--c-source", help="C file compiled with -D<PARAM>=<value>."),
    evaluator_file: Optional[Path] = typer.Option(None, "--evaluator", help="Evaluator file (YAML/JSON)."),
    pattern: Optional[str] = typer.Option(None, "--pattern", help="Regex whose first group is the time (ms)."),
    metric: Optional[str] = typer.Option(None, "--metric", help="Name of the measured time metric."),
    repeats: Optional[int] = typer.Option(None, "--repeats", min=1, help="Measured repeats per configuration."),
    warmup: Optional[int] = WarmupOption,
    timeout: Optional[float] = typer.Option(None, "--timeout", min=0.0, help="Seconds before a run is killed."),
    plots: Optional[Path] = typer.Option(None, "--plots", help="Write msp_curve.png (and msp_transfer.png) here."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
    store: Path = typer.Option(Path("msp.db"), "--store", "-s",
                               help="SQLite store of every measurement (run the same command again to resume)."),
) -> None:
    """Tune at the minimum saturation point: throughput curve, MSP, search there, winner at the target."""
    options = {"pattern": pattern, "metric": metric, "repeats": repeats, "warmup": warmup, "timeout": timeout}
    options = {k: v for k, v in options.items() if v is not None}
    with option_names(CLI_OPTIONS):  # the library's errors name its arguments: say the options
        space, section = _read_study_file(space_file)
        description = _evaluator_description(command, c_source, evaluator_file, None, section, options,
                                             replayable=False)
        evaluator = evaluator_from_dict(description, where=_evaluator_source(command, c_source, evaluator_file, None,
                                                                             space_file))
        size_list = parse_sizes(sizes)
        goal = None if target is None else (int(target) if float(target).is_integer() else target)
        config = parse_config(default, space.tune_params)

        def measure() -> Any:
            # the folder is made before any measuring (a bad one must not cost the whole run's results), but
            # only once tune_at_msp has checked its arguments: a refused command leaves no empty folder behind
            return tune_at_msp(
                evaluator, space, size_list, target=goal, size_param=size_param, config=config, work=work,
                search=search, budget=budget, seed=seed, threshold=threshold, stable=stable, stat=stat,
                baseline=None if baseline.lower() == "none" else baseline, transfer=transfer, confirm=confirm,
                store=store, before_measuring=None if plots is None else lambda: _plots_folder(plots))

        result = _interruptible(measure, store, again=_again(store))
    written = []
    if plots is not None:
        written.append(plots / "msp_curve.png")
        result.plot_curve().savefig(written[-1], dpi=120)
        if result.transfer is not None:
            written.append(plots / "msp_transfer.png")
            result.plot_transfer().savefig(written[-1], dpi=120)
    if as_json:
        payload = result.summary()
        payload["curve"] = [_row(r) for r in result.curve.drop(columns=["repeats"]).to_dict("records")]
        if result.transfer is not None:
            payload["transfer"] = [_row(r) for r in result.transfer.to_dict("records")]
            payload["threshold_sweep"] = [_row(r) for r in threshold_sweep(result).to_dict("records")]
        payload["plots"] = [str(p) for p in written]
        payload["store"] = str(store)
        print(json.dumps(payload, indent=2, default=str))
        return
    _print(result)
    for path in written:
        out.print(f"wrote {path}", highlight=False, soft_wrap=True)  # a path, whole: copied from logs
    err.print(f"every measurement is kept in {store}: the same command again measures nothing twice",
              highlight=False, soft_wrap=True)


def _again(store: Path) -> str:
    """How to continue an interrupted ``starchart msp``: the command as typed, when it is known
    (no ``cd``: it is said in the folder the command ran in)."""
    return msp_command_line(sys.argv, store)


def msp_command_line(argv: Sequence[str], store: str | Path, cwd: str | Path | None = None) -> str:
    """The shell command that runs the ``starchart msp`` of ``argv`` (``sys.argv``: the program first)
    again on ``store``: in ``cwd`` (``cd CWD && ...``, as its paths may be relative to it) when given, with
    ``--store`` when ``argv`` lacks it (it then measured into the default store); a placeholder for the
    other arguments when ``argv`` is not a ``starchart msp`` command (a study made from Python).

    >>> msp_command_line(["starchart", "msp", "s.yaml", "--sizes", "8,64"], "/w/msp.db", "/w")
    'cd /w && starchart msp s.yaml --sizes 8,64 --store /w/msp.db'
    >>> msp_command_line(["starchart", "msp", "s.yaml", "--store=m.db"], "m.db")
    'starchart msp s.yaml --store=m.db'
    >>> msp_command_line(["python", "tune.py"], "my study.db")
    "starchart msp SPACE_FILE --sizes ... --store 'my study.db'"
    """
    args = list(argv[1:])
    if args[:1] != ["msp"]:
        args = ["msp", "SPACE_FILE", "--sizes", "..."]
    if not any(_names_store(a) for a in args):
        args += ["--store", str(store)]
    command = "starchart " + shlex.join(args)
    return command if cwd is None else f"cd {shlex.quote(str(cwd))} && {command}"


def _names_store(arg: str) -> bool:
    """Whether a command-line argument is ``--store`` / ``-s`` (also as ``--store=X``, ``-sX``)."""
    return arg == "--store" or arg.startswith("--store=") or (arg.startswith("-s") and not arg.startswith("--"))


def _plots_folder(plots: Path) -> None:
    """Create the ``--plots`` folder, or refuse it with an :class:`InputError` (e.g. it is a file)."""
    if plots.exists() and not plots.is_dir():
        raise InputError(f"{str(plots)!r} is a file, not a folder", where="--plots",
                         hint="name a folder: msp_curve.png (and msp_transfer.png) are written into it")
    try:
        plots.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder {str(plots)!r}: {exc.strerror or exc}", where="--plots",
                         hint="name a folder you may write to") from None


def _row(row: dict[str, Any]) -> dict[str, Any]:
    clean = {}
    for key, value in row.items():
        value = value.item() if hasattr(value, "item") else value
        clean[key] = None if isinstance(value, float) and not math.isfinite(value) else value
    return clean


def _print(result: Any) -> None:
    table = Table(title="throughput curve (default configuration)", show_edge=False)
    for column in ("size", "time (ms)", "throughput", ""):
        table.add_column(column, justify="right")
    for row in result.curve.itertuples():
        mark = "MSP" if row.size == result.msp.size else ("target" if row.size == result.target else "")
        table.add_row(str(row.size), f"{row.time:.4g}", f"{row.throughput:.4g}", mark)
    out.print(table)
    out.print(str(result), highlight=False, soft_wrap=True)
    if result.transfer is not None:
        t = Table(title="transfer: winner at each size, run at the target", show_edge=False)
        for column in ("size", "winner", "quality", "T_x (s)", "speedup"):
            t.add_column(column, justify="right")
        names = [c for c in result.transfer.columns if c.startswith("best_")]
        for row in result.transfer.to_dict("records"):
            ran = any(row[c] is not None for c in names)  # a size where nothing ran has None as its best
            winner = ", ".join(f"{c[5:]}={row[c]}" for c in names) if ran else "none: nothing ran"
            t.add_row(str(row["size"]), winner, f"{row['quality']:.1%}", f"{row['search_s']:.3g}",
                      f"{row['speedup']:.3g}x")
        out.print(t)
