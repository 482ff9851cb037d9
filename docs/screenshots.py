"""Screenshots of the documentation's home page and of a report, in headless Chromium.

    python docs/screenshots.py            # builds the site (mkdocs), writes docs/screenshots/home.png and report.png

``docs/test_docs_site.py`` runs the same functions on every CI run, into a temporary folder, and checks
that each page renders (many colours, dark text on a light ground) without console errors.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the one place that finds Chromium and its flags

from browser import CHROMIUM, FLAGS  # noqa: E402

from starchart import datasets  # noqa: E402
from starchart.report.study import write_study_report  # noqa: E402


def build_site(site: Path) -> Path:
    """``mkdocs build --strict`` into ``site``; returns the home page."""
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
                   cwd=ROOT, check=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return site / "index.html"


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """``folder`` served over HTTP on a free local port (the site's search loads its index by fetch, which a
    ``file://`` page may not); yields the base URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def screenshot(page: Path | str, shot: Path, size: str = "1280,1000") -> list[str]:
    """Render ``page`` (a file or a URL) into the PNG ``shot``; returns the page's console messages."""
    if CHROMIUM is None:
        raise RuntimeError("needs Chromium (Debian: apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run([CHROMIUM, *FLAGS, "--enable-logging=stderr", "--v=1", f"--user-data-dir={profile}",
                               f"--window-size={size}", f"--screenshot={shot}",
                               page.as_uri() if isinstance(page, Path) else page],
                              capture_output=True, text=True, timeout=120)
    if not shot.is_file():
        raise RuntimeError(f"Chromium wrote no screenshot: {done.stderr[-2000:]}")
    return [line for line in done.stderr.splitlines() if re.search(r"CONSOLE[:(]\d+", line)]


def kmeans_report(folder: Path) -> Path:
    """The HTML report of the bundled kmeans measurements (the quickstart's last command)."""
    return write_study_report(datasets.data_path("kmeans"), folder / "report.html", metric="runtime")


def main() -> None:
    out = ROOT / "docs" / "screenshots"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        home = build_site(Path(tmp) / "site")
        with served(home.parent) as url:
            pages = (("home", url, "1280,1000"), ("report", kmeans_report(Path(tmp)), "1280,1800"))
            for name, page, size in pages:
                console = screenshot(page, out / f"{name}.png", size)
                print(f"wrote {out / f'{name}.png'}" + (f"; console: {console}" if console else ""))


if __name__ == "__main__":
    main()
