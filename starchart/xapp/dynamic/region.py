"""Which source line starts the region to measure: the ``#pragma xapp parallel`` loop.

The region is the whole loop nest of the band's outermost loop: everything executed from
entering that loop until it exits, including code of functions it calls.

Examples
--------
>>> src = "int main(void) {\\n  int s = 0;\\n#pragma xapp parallel\\n  for (int i = 0; i < 9; i++)\\n    s += i;\\n}\\n"
>>> band_line_of(src, "k.c")
4
>>> band_line_of(src, "k.c", band_line=4)
4
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from ...errors import InputError, arg
from ..pragmas import no_band_hint, scan_pragmas, strip_comments

_LOOP_START = re.compile(r"^\s*(?:\}\s*)?(?:for|while|do)\b")


def band_line_of(source: str, path: str = "<source>", band_line: int | None = None,
                 compiled_loop_lines: Callable[[], Collection[int]] | None = None) -> int:
    """The line of the band loop's keyword: ``band_line`` (checked) or the pragma's loop.

    ``compiled_loop_lines``, when given, returns the lines the compiled program has loops on; it
    is asked only for a ``band_line`` whose text starts no loop, and accepts it when a loop
    starts there: a loop written by a macro (``LOOP(i, n) a[i] *= 2;``), which clang places
    on the macro call's line, as static XAPP does.

    Raises
    ------
    InputError
        No ``#pragma xapp parallel`` and no ``band_line``; more than one band pragma
        without ``band_line``; ``band_line`` outside the file or not starting a loop.
    """
    lines = strip_comments(source).split("\n")
    if band_line is not None:
        if not isinstance(band_line, int) or not 1 <= band_line <= len(lines):
            raise InputError(f"{arg('band_line', repr(band_line))} is not a line of the file ({len(lines)} lines)",
                             where=path, hint="give the line number of the band loop's `for`")
        if not _LOOP_START.match(lines[band_line - 1]) and (
                compiled_loop_lines is None or band_line not in compiled_loop_lines()):
            raise InputError(f"line {band_line} does not start a loop: {lines[band_line - 1].strip()[:60]!r}",
                             where=f"{path}, line {band_line}",
                             hint=f"{arg('band_line')} must be the line of the band loop's `for`/`while`/`do` keyword "
                                  "(or of the macro call that writes the loop)")
        return band_line
    bands = [p for p in scan_pragmas(source, path) if p.parallel is not None]
    if not bands:
        raise InputError("no `#pragma xapp parallel` marks a band loop", where=path, hint=no_band_hint(source))
    if len(bands) > 1:
        raise InputError("several `#pragma xapp parallel` bands (lines "
                         + ", ".join(str(p.line) for p in bands) + "); dynamic features measure one region",
                         where=path, hint=f"pass {arg('band_line', '<line of the for>')} to choose one: "
                                          + " or ".join(str(p.target_line) for p in bands if p.target_line))
    band = bands[0]
    if band.target_line is None:
        raise InputError("`#pragma xapp parallel` is not followed by a loop", where=f"{path}, line {band.line}",
                         hint="put the pragma on the line just before the loop")
    return band.target_line
