"""References to code by name (``"package.module:attribute"``), loaded on first use.

This is how an entry point names its object, and how a lower layer names an implementation that a
higher layer provides (a :class:`~starchart.dataset.Dataset` writing itself through ``starchart.io``)
without importing it: the name is data, resolved when called.

>>> load_reference("os.path:join")("a", "b") == __import__("os").path.join("a", "b")
True
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import warnings
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from starchart.errors import InputError, StarchartError


def load_reference(reference: str) -> Any:
    """The object that ``"module:attribute"`` (attribute may be dotted) names."""
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise StarchartError(f"{reference!r} is not a 'module:attribute' reference")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


def load_module_file(path: Path, where: str) -> ModuleType:
    """Import the Python file ``path`` as a module named after it (its folder first on ``sys.path``, for
    the modules it imports); an error while it runs is an :class:`InputError` naming ``where`` and the file.

    The file runs as code, like the function of a ``kind: python`` evaluator: it is the user's own.
    """
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{path} cannot be imported as Python", where=where, hint="name a .py file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's file may fail in any way: say where, in one line
        raise InputError(f"importing {path} failed: {type(exc).__name__}: {exc}", where=where,
                         hint="run the file with python to see the whole error") from None
    return module


class PluginLoader:
    """The objects that installed packages declare in one entry-point group, loaded once.

    Each registry of starchart (evaluators, formats, strategies) keeps its built-in entries in a
    table and asks its loader for the rest on the first lookup that misses. A plug-in that fails to
    load is skipped with a warning naming it, so one broken package does not stop the others.

    >>> PluginLoader("starchart.no-such-group").load()
    {}
    """

    def __init__(self, group: str) -> None:
        self.group = group
        self._loaded: dict[str, Any] | None = None

    def load(self) -> dict[str, Any]:
        """``{entry point name: loaded object}`` for the group (read from the installed packages once)."""
        if self._loaded is None:
            loaded: dict[str, Any] = {}
            for point in entry_points(group=self.group):
                try:
                    loaded[point.name] = point.load()
                except Exception as exc:  # noqa: BLE001 - a third party's import error of any kind
                    warnings.warn(f"{self.group} plug-in {point.name!r} ({point.value}) did not load: "
                                  f"{type(exc).__name__}: {exc}", stacklevel=2)
            self._loaded = loaded
        return self._loaded
