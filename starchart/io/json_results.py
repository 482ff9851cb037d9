"""The common head of the JSON results formats (T4, KTT): a list of results and a metadata object.

>>> import json, tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "r.json")
>>> _ = open(p, "w").write(json.dumps({"results": [{"x": 1}], "metadata": {"timeunit": "ms"}}))
>>> doc, results, metadata = results_and_metadata(p, None, "results", "metadata", "T4 results")
>>> results, metadata
([{'x': 1}], {'timeunit': 'ms'})
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starchart._util.files import parse_json, read_text
from starchart.errors import InputError


def results_and_metadata(path: str | Path, text: str | None, results_key: str, metadata_key: str,
                         what: str) -> tuple[dict[str, Any], list[Any], dict[str, Any]]:
    """The JSON document ``text`` (read from ``path`` when ``None``), its non-empty list under ``results_key``
    and its object under ``metadata_key`` (``{}`` when absent); a clear error naming the file otherwise."""
    text = read_text(path) if text is None else text
    doc = parse_json(text, path)
    results = doc.get(results_key) if isinstance(doc, dict) else None
    if not isinstance(results, list) or not results:
        raise InputError(f"no \"{results_key}\" list in {what.split()[0]} file", where=path,
                         hint=f"give a {what} file with at least one result")
    metadata = doc.get(metadata_key) or {}
    if not isinstance(metadata, dict):
        raise InputError(f"\"{metadata_key}\" is a {type(metadata).__name__}, not an object", where=path,
                         hint=f"write {metadata_key} as {{\"key\": value, ...}}, or leave it out")
    return doc, results, metadata
