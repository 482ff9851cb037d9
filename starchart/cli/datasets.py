"""``starchart datasets``: the real measured datasets that ship with starchart, and those it fetches."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from starchart import datasets as catalogue
from starchart.cli.app import app, out
from starchart.cli.app import friendly as _friendly


@app.command()
@_friendly
def datasets(name: Optional[str] = typer.Argument(None, help="A dataset: describe it and print its path "
                                                             "(downloading a fetched one first)."),
             ) -> None:
    """List the real measured datasets that ship with starchart (or download one), with licence and path."""
    if name is not None:
        path = catalogue.data_path(name)
        out.print(catalogue.describe(name), soft_wrap=True, highlight=False)
        out.print(f"  path: {path}", soft_wrap=True, highlight=False)
        return
    table = Table(box=None, header_style="bold")
    for column in ("name", "MB", "licence"):
        table.add_column(column, no_wrap=True, min_width=len("ktt_convolution") if column == "name" else None)
    table.add_column("where", overflow="fold")
    for record in catalogue.DATASETS.values():
        if record.bundled:
            where = str(catalogue.data_path(record.name))
        else:
            cached = catalogue.get_data_home() / record.file
            where = str(cached) if cached.exists() else f"fetched on first use (starchart datasets {record.name})"
        table.add_row(record.name, f"{record.size / 1e6:.2f}", record.licence, where)
    out.print(table)
    out.print("Load one in Python with starchart.datasets.load_named(NAME); `starchart datasets NAME` shows "
              "its source and citation.", soft_wrap=True, highlight=False)
