"""References to code by name (``"package.module:attribute"``), loaded on first use.

This is how an entry point names its object, and how a lower layer names an implementation that a
higher layer provides (a :class:`~starchart.dataset.Dataset` writing itself through ``starchart.io``)
without importing it: the name is data, resolved when called.

>>> load_reference("os.path:join")("a", "b") == __import__("os").path.join("a", "b")
True
"""

from __future__ import annotations

import importlib
import warnings
from importlib.metadata import entry_points
from typing import Any

from starchart.errors import StarchartError


def load_reference(reference: str) -> Any:
    """The object that ``"module:attribute"`` (attribute may be dotted) names."""
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        raise StarchartError(f"{reference!r} is not a 'module:attribute' reference")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


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
