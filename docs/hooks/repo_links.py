"""mkdocs hook: a link from a page to a file of the repository outside ``docs/`` (a script, a dataset's
README) becomes its path in code type, since the site has no copy of it; links within the site are
left to mkdocs, which checks them (``strict: true``)."""

from __future__ import annotations

import posixpath
import re
from typing import Any

LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, **_: Any) -> str:
    here = posixpath.dirname(page.file.src_uri)

    def rewrite(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if "://" in target or target.startswith("mailto:"):
            return match.group(0)
        path = posixpath.normpath(posixpath.join(here, target))
        if not path.startswith("../") and path != "..":
            return match.group(0)  # inside docs/: mkdocs resolves and checks it
        repo_path = path[3:]
        return text if "`" in text else f"{text} (`{repo_path}`)"

    return LINK.sub(rewrite, markdown)
