"""``starchart demo``: tune the bundled C matrix multiply on this CPU, then explain it.

    starchart demo [--out starchart-demo] [--samples 200] [--repeats 5]
"""


from __future__ import annotations

import shlex
from pathlib import Path

import typer

from starchart.cli.app import app, friendly, out
from starchart.cli.common import seed_option
from starchart.cli.evaluators import _measure
from starchart.demo.job import run_demo


@app.command("demo")
@friendly
def demo_command(
    out_dir: Path = typer.Option(Path("starchart-demo"), "--out", "-o", help="Folder for the store and report."),
    samples: int = typer.Option(200, "--samples", "-n", min=10, help="Configurations to measure."),
    repeats: int = typer.Option(5, "--repeats", min=1, help="Timed repeats per configuration."),
    workers: int = typer.Option(1, "--workers", "-w", min=1,
                                help="Configurations measured at a time (more is faster but noisier)."),
    seed: int = seed_option(0, "Seed of the uniform sample."),
) -> None:
    """Tune the bundled C matrix-multiply kernel on this CPU, then explain it with a Starchart tree."""
    result = _measure(lambda: run_demo(out_dir, samples=samples, repeats=repeats, workers=workers, seed=seed),
                      out_dir / "demo.db", summary=False,
                      again=f"starchart demo --out {shlex.quote(str(out_dir))} --samples {samples} "
                            f"--repeats {repeats} (it also writes the report)")
    out.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
