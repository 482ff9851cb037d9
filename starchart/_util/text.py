"""Short text for terminals, tables and plot labels."""

from __future__ import annotations

__all__ = ["shorten"]


def shorten(text: str, limit: int, *, collapse: bool = False) -> str:
    """``text`` cut to at most ``limit`` characters, ending in "…" when cut; with
    ``collapse``, every run of whitespace (line breaks included) first becomes one space.

    Examples
    --------
    >>> shorten("block_size_x > 32 ∧ tile = 2", 12)
    'block_size_…'
    >>> shorten("pattern  matched\\n nothing", 40, collapse=True)
    'pattern matched nothing'
    """
    if collapse:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def percent(share: float) -> str:
    """A share as a percentage with one decimal, or with two significant digits when that would read 0.0 %.

    >>> percent(0.118), percent(0.15), percent(0.0004), percent(0.0)
    ('11.8%', '15.0%', '0.04%', '0.0%')
    """
    if 0 < abs(share) < 0.0005:  # "target 0.0%" would hide the target
        return f"{100 * share:.2g}%"
    return f"{share:.1%}"
