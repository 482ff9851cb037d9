"""``starchart datasets`` and ``starchart --version``."""

from __future__ import annotations

from importlib.metadata import version

from typer.testing import CliRunner

from starchart import datasets
from starchart.cli import app

runner = CliRunner()


def test_version_prints_the_installed_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"starchart {version('starchart')}"


def test_datasets_lists_every_set_with_its_licence() -> None:
    result = runner.invoke(app, ["datasets"], terminal_width=200)
    assert result.exit_code == 0
    for name, record in datasets.DATASETS.items():
        assert name in result.output
    assert "BSD-3-Clause" in result.output and "fetched on first use" in result.output


def test_datasets_name_prints_source_licence_and_path() -> None:
    result = runner.invoke(app, ["datasets", "kmeans"], terminal_width=300)
    assert result.exit_code == 0
    assert "licence: BSD-3-Clause" in result.output and "PACT 2013" in result.output
    assert f"path: {datasets.data_path('kmeans')}" in result.output


def test_an_unknown_dataset_is_one_line_with_the_choices() -> None:
    result = runner.invoke(app, ["datasets", "kmean"])
    assert result.exit_code == 2 and "no dataset named 'kmean'" in result.output and "choose one of" in result.output
