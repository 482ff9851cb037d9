"""References to code by name (``"package.module:attribute"``), loaded on first use.

This is how an entry point names its object, and how a lower layer names an implementation that a
higher layer provides (a :class:`~starchart.dataset.Dataset` writing itself through ``starchart.io``)
without importing it: the name is data, resolved when called.

>>> load_reference("os.path:join")("a", "b") == __import__("os").path.join("a", "b")
True
"""

from __future__ import annotations

import importlib
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
