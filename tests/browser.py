"""Headless Chromium for the report tests: where it is, and the flags it needs on a machine with no network."""

from __future__ import annotations

import shutil

#: The browser, or None where none is installed (the ``browser`` mark then skips the test).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

#: Headless, as root, without the background connections this closed network refuses.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
