"""The registry of file formats: one :class:`Format` record per format, the only table of them.

:func:`starchart.load` detects and reads with it, :meth:`Store.export <starchart.study.store.Store.export>`
and the ``Dataset.to_*`` methods write with it, and every ``--format`` choice of the command line lists
it. A package adds a format with :func:`register_format`, or by declaring a :class:`Format` in the
entry-point group ``starchart.formats``, and then ``starchart info``, ``tree``, ``report`` and ``export``
take its files with no change to starchart.

Examples
--------
>>> [f.name for f in formats().values()][:4]
['kernel_tuner', 't4', 'ktt', 'csv']
>>> format_for_writing("results.t4.json").name, format_for_writing("x.csv.gz").name
('t4', 'csv')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starchart._util.plugins import PluginLoader
from starchart.dataset import Dataset
from starchart.errors import InputError
from starchart.io import csv, kernel_tuner, ktt, t4

#: The entry-point group through which other packages add formats: ``name = "module:FORMAT"``.
ENTRY_POINT_GROUP = "starchart.formats"


@dataclass(frozen=True)
class Format:
    """What starchart knows of one file format of measured configurations.

    Attributes
    ----------
    name:
        What ``format=`` and ``--format`` call it.
    title:
        How messages name it ("Kernel Tuner cache JSON").
    read:
        ``read(path, text, **options) -> Dataset``; ``None`` for a format that is only written.
    sniff:
        ``sniff(head) -> bool`` on the first 64 KB of the file's text: whether it is this format.
    json:
        Whether its files are JSON documents: those are sniffed first, in registry order.
    options:
        The reader options ``read`` accepts (``metrics``, ``sep``...).
    write:
        ``write(dataset, path, **options)``; ``None`` for a format that is only read.
    write_suffixes:
        File-name endings that choose this format for writing (``.t4.json`` before ``.json``: the
        longest match wins).
    write_hint:
        How an error about an unknown export name shows the suffix (``.json (Kernel Tuner cache)``).
    read_suffixes:
        File-name endings that say the format when sniffing a non-JSON file is not enough.
    aliases:
        Other names ``format=`` accepts.
    """

    name: str
    title: str
    read: Callable[..., Dataset] | None = None
    sniff: Callable[[str], bool] | None = None
    json: bool = False
    options: frozenset[str] = frozenset()
    write: Callable[..., None] | None = None
    write_suffixes: tuple[str, ...] = ()
    write_hint: str = ""
    read_suffixes: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


#: The built-in formats, in the order files are sniffed (CSV last: almost any text parses as CSV).
BUILT_IN: tuple[Format, ...] = (
    Format("kernel_tuner", "Kernel Tuner cache JSON", kernel_tuner.read, kernel_tuner.sniff, json=True,
           options=kernel_tuner.OPTIONS, write=kernel_tuner.write_cache, write_suffixes=(".json", ".json.gz"),
           write_hint=".json (Kernel Tuner cache)", aliases=("kerneltuner", "kt", "cache")),
    Format("t4", "T4 results JSON", t4.read, t4.sniff, json=True, options=t4.OPTIONS, write=t4.write_t4,
           write_suffixes=(".t4.json", ".t4.json.gz"), write_hint=".t4.json"),
    Format("ktt", "KTT output JSON", ktt.read, ktt.sniff, json=True, options=ktt.OPTIONS),
    Format("csv", "CSV", csv.read, csv.sniff, options=csv.OPTIONS, write=csv.write,
           write_suffixes=(".csv", ".csv.gz"), write_hint=".csv", read_suffixes=(".csv", ".tsv")),
)

_registered: dict[str, Format] = {f.name: f for f in BUILT_IN}
_plugins = PluginLoader(ENTRY_POINT_GROUP)


def register_format(fmt: Format) -> Format:
    """Add ``fmt`` to the registry (after the built-in formats; CSV stays the last one sniffed).

    >>> fake = Format("example", "an example format", sniff=lambda head: head.startswith("EXAMPLE"))
    >>> register_format(fake) is fake and "example" in formats()
    True
    >>> unregister_format("example")
    """
    if not isinstance(fmt, Format) or not fmt.name:
        raise InputError(f"{fmt!r} is not a starchart.io.formats.Format with a name", where="register_format",
                         hint="declare Format(name, title, read=..., sniff=..., write=...)")
    _registered[fmt.name] = fmt
    return fmt


def unregister_format(name: str) -> None:
    """Remove a format :func:`register_format` added (tests, notebooks)."""
    _registered.pop(name, None)


def formats() -> dict[str, Format]:
    """Every format by name: built-in, registered and installed plug-ins; CSV comes last."""
    for name, fmt in _plugins.load().items():
        if isinstance(fmt, Format):
            _registered.setdefault(fmt.name or name, fmt)
    ordered = {name: fmt for name, fmt in _registered.items() if name != "csv"}
    ordered["csv"] = _registered["csv"]
    return ordered


def readable() -> dict[str, Format]:
    """The formats that can be read."""
    return {name: fmt for name, fmt in formats().items() if fmt.read is not None}


def writable() -> dict[str, Format]:
    """The formats that can be written."""
    return {name: fmt for name, fmt in formats().items() if fmt.write is not None}


def get_format(name: str, where: Any, *, writing: bool = False) -> Format:
    """The format called ``name`` (or one of its aliases); a clear error naming the choices otherwise."""
    key = name.strip().lower().replace("-", "_")
    table = writable() if writing else readable()
    for fmt in table.values():
        if key == fmt.name or key in fmt.aliases:
            return fmt
    raise InputError(f"unknown {'export ' if writing else ''}format {name!r}", where=where,
                     hint=f"use {_one_of(list(table), writing)}")


def format_for_writing(path: str | Path, format: str | None = None) -> Format:
    """The format to write ``path`` in: ``format`` if given, else the longest matching name suffix."""
    if format is not None:
        return get_format(format, path, writing=True)
    name = Path(path).name.lower()
    choices = [(suffix, fmt) for fmt in writable().values() for suffix in fmt.write_suffixes]
    for suffix, fmt in sorted(choices, key=lambda choice: -len(choice[0])):
        if name.endswith(suffix):
            return fmt
    hints = [fmt.write_hint or fmt.write_suffixes[0] for _, fmt in sorted(writable().items()) if fmt.write_suffixes]
    raise InputError("cannot tell the export format from the file name", where=path,
                     hint=f"end it in {_joined(hints)}, or pass --format")


def write(dataset: Dataset, path: str | Path, format: str | None = None, **options: Any) -> None:
    """Write ``dataset`` to ``path`` in ``format`` (default: from the file name)."""
    fmt = format_for_writing(path, format)
    assert fmt.write is not None  # writable() holds only formats with a writer
    fmt.write(dataset, path, **options)


def _one_of(names: list[str], writing: bool) -> str:
    return _joined(sorted(names)) if writing else "one of: " + ", ".join(names)


def _joined(items: list[str]) -> str:
    """``a, b or c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
