"""Read the ``#pragma xapp`` annotations of a C file from its text.

The user marks the parallel band and may add what static analysis cannot know:

=================================  ==================================================
``#pragma xapp parallel``          the next loop is the (whole) parallel band
``#pragma xapp parallel(2)``       the next loop and the loop nested directly in it
                                   form the band (like OpenMP's ``collapse(2)``)
``#pragma xapp trip(16)``          the next loop runs about 16 iterations
``#pragma xapp prob(0.25)``        the next ``if`` is taken with probability 0.25
=================================  ==================================================

Clauses combine on one line (``#pragma xapp parallel trip(1048576)``). The thesis's own
spelling is accepted too: ``#pragma parallel XAPP (1048576)`` (band with its trip count)
and ``#pragma XAPP(16)`` (trip count). A pragma applies to the next line of code, skipping
blank lines, comments and other ``#`` lines.

Examples
--------
>>> src = "#pragma xapp parallel(2) trip(64)\\nfor (i = 0; i < n; i++)\\n"
>>> p, = scan_pragmas(src, "k.c")
>>> (p.line, p.target_line, p.parallel, p.trip, p.prob)
(1, 2, 2, 64.0, None)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import InputError, arg

_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)
_PRAGMA = re.compile(r"^\s*#\s*pragma\s+(.*?)\s*$")
_CLAUSE = re.compile(r"\s*,?\s*([A-Za-z_]\w*)\s*(?:\(\s*([^()]*?)\s*\))?")
_LOOP_LINE = re.compile(r"^\s*(?:\}\s*)?(?:for|while|do)\b")
_IF_LINE = re.compile(r"^\s*(?:\}\s*)?(?:else\s+)?if\b")
CLAUSES = ("parallel", "trip", "prob")


@dataclass(frozen=True)
class Pragma:
    """One ``#pragma xapp`` line: where it is, which code line it annotates, its clauses."""

    line: int
    target_line: int | None
    parallel: int | None = None
    trip: float | None = None
    prob: float | None = None


def strip_comments(text: str) -> str:
    """``text`` with comments blanked out (newlines kept, so line numbers stay).

    >>> strip_comments('a /* x\\n y */ b // c\\n"//s"')
    'a \\n b \\n"//s"'
    """
    def blank(m: re.Match) -> str:
        s = m.group(0)
        return s if s[0] in "\"'" else "\n" * s.count("\n")
    return _COMMENT_OR_STRING.sub(blank, text)


def _number(text: str | None, clause: str, where: str, *, integer: bool = False) -> float:
    try:
        value = int(text) if integer else float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        kind = "a whole number" if integer else "a number"
        raise InputError(f"`{clause}` needs {kind} in parentheses, got {text!r}", where=where,
                         hint=f"write e.g. #pragma xapp {clause}({'2' if integer else '16'})") from None
    if not math.isfinite(value):  # float() reads nan and inf, which would turn every feature into NaN
        raise InputError(f"`{clause}({text})` is not a finite number", where=where,
                         hint=f"write e.g. #pragma xapp {clause}({'2' if integer else '16'})")
    return value


def _parse_clauses(body: str, where: str) -> dict[str, float | int]:
    out: dict[str, float | int] = {}
    pos = 0
    while pos < len(body):
        m = _CLAUSE.match(body, pos)
        if m is None or m.end() == pos:
            raise InputError(f"cannot read `#pragma xapp {body}` from {body[pos:]!r}", where=where,
                             hint="clauses are parallel, parallel(N), trip(N), prob(P)")
        name, arg = m.group(1).lower(), m.group(2)
        pos = m.end()
        if name == "parallel":
            depth = 1 if arg is None else int(_number(arg, name, where, integer=True))
            if depth < 1:
                raise InputError(f"parallel({depth}) needs at least one loop", where=where)
            out["parallel"] = depth
        elif name == "trip":
            trip = _number(arg, name, where)
            if trip < 0:
                raise InputError(f"trip({arg}) is negative", where=where, hint="a trip count is >= 0")
            out["trip"] = trip
        elif name == "prob":
            prob = _number(arg, name, where)
            if not 0.0 <= prob <= 1.0:
                raise InputError(f"prob({arg}) is not a probability", where=where, hint="write a value in [0, 1]")
            out["prob"] = prob
        else:
            raise InputError(f"unknown clause `{name}` in #pragma xapp", where=where,
                             hint="clauses are " + ", ".join(CLAUSES))
    return out


def _clauses_of(directive: str, where: str) -> dict[str, float | int] | None:
    """Clauses of one pragma's text (after ``#pragma``), or None when it is not an XAPP pragma."""
    alias_band = re.match(r"parallel\s+xapp\b\s*(?:\(\s*([^()]*?)\s*\))?\s*$", directive, re.I)
    if alias_band:  # the thesis's `#pragma parallel XAPP (N)`
        clauses: dict[str, float | int] = {"parallel": 1}
        if alias_band.group(1) is not None:
            clauses["trip"] = _number(alias_band.group(1), "trip", where)
        return clauses
    head = re.match(r"xapp\b", directive, re.I)
    if not head:
        return None
    rest = directive[head.end():].strip()
    alias_trip = re.fullmatch(r"\(\s*([^()]*?)\s*\)", rest)
    if alias_trip:  # the thesis's `#pragma XAPP(16)`
        return {"trip": _number(alias_trip.group(1), "trip", where)}
    if not rest:
        raise InputError("empty #pragma xapp", where=where, hint="clauses are " + ", ".join(CLAUSES))
    return _parse_clauses(rest, where)


def scan_pragmas(text: str, path: str = "<source>") -> list[Pragma]:
    """All XAPP pragmas of a C source text, in line order.

    Raises
    ------
    InputError
        A malformed pragma, or one whose next code line is not what it annotates
        (``parallel``/``trip`` need a loop, ``prob`` an ``if``); the message names the line.
    """
    lines = strip_comments(text).split("\n")
    found: list[Pragma] = []
    i = 0
    while i < len(lines):
        start = i
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):  # continued directive
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        m = _PRAGMA.match(line)
        if not m:
            continue
        where = f"{path}, line {start + 1}"
        clauses = _clauses_of(m.group(1), where)
        if clauses is None:
            continue
        target = next((j for j in range(i, len(lines))
                       if lines[j].strip() and not lines[j].lstrip().startswith(("#", "_Pragma"))), None)
        target_text = lines[target] if target is not None else ""
        if ("parallel" in clauses or "trip" in clauses) and not _LOOP_LINE.match(target_text):
            raise InputError("this #pragma xapp annotates a loop, but the next code line is not a "
                             f"`for`/`while`/`do`: {target_text.strip()[:60]!r}", where=where,
                             # a loop a macro writes cannot carry the pragma: band_line is the way left
                             hint="put the pragma on the line just before the loop; for a loop written by "
                                  f"a macro, remove the pragma and pass {arg('band_line', '<line of the macro call>')}")
        if "prob" in clauses and not _IF_LINE.match(target_text):
            raise InputError("#pragma xapp prob(...) annotates an `if`, but the next code line is "
                             f"{target_text.strip()[:60]!r}", where=where,
                             hint="put the pragma on the line just before the `if`")
        found.append(Pragma(line=start + 1, target_line=None if target is None else target + 1,
                            parallel=clauses.get("parallel"), trip=clauses.get("trip"),  # type: ignore[arg-type]
                            prob=clauses.get("prob")))
    return found


#: An OpenMP or OpenACC directive that shares a loop's iterations among threads (or gangs).
_PARALLEL_LOOP = re.compile(r"^(omp\b.*\b(?:for|distribute|loop|taskloop)\b|acc\b.*\b(?:loop|kernels|parallel)\b)")
_COLLAPSE = re.compile(r"\bcollapse\s*\(\s*(\d+)\s*\)")


def other_parallel_loops(text: str) -> list[tuple[str, int, int]]:
    """``(directive, loop line, loops)`` of every ``#pragma omp ... for`` / ``#pragma acc ... loop``
    followed by a loop: the band a program already marks for OpenMP or OpenACC (``loops`` is
    its ``collapse(N)``, else 1). For the hint when no ``#pragma xapp parallel`` is found.

    >>> other_parallel_loops("#pragma omp parallel for collapse(2)\\nfor (i = 0; i < n; i++)\\n")
    [('omp parallel for collapse(2)', 2, 2)]
    """
    lines = strip_comments(text).split("\n")
    found = []
    for i, line in enumerate(lines):
        m = _PRAGMA.match(line)
        if not m or not _PARALLEL_LOOP.match(m.group(1)):
            continue
        target = next((j for j in range(i + 1, len(lines))
                       if lines[j].strip() and not lines[j].lstrip().startswith(("#", "_Pragma"))), None)
        if target is not None and _LOOP_LINE.match(lines[target]):
            collapse = _COLLAPSE.search(m.group(1))
            found.append((m.group(1), target + 1, int(collapse.group(1)) if collapse else 1))
    return found


def no_band_hint(text: str) -> str:
    """The hint for a file without ``#pragma xapp parallel``: the loops its OpenMP/OpenACC pragmas
    mark, when it has some (a ported program's band is usually already marked that way)."""
    marked = other_parallel_loops(text)
    if not marked:
        return ("put `#pragma xapp parallel` on the line before the band's `for`, "
                f"or pass {arg('band_line', '<line of the for>')}")
    directive, line, loops = marked[0]
    clause = f"parallel({loops})" if loops > 1 else "parallel"
    others = f" (loops marked so start on lines {', '.join(str(m[1]) for m in marked)})" if len(marked) > 1 else ""
    return (f"the file marks its parallel loops for OpenMP/OpenACC instead: `#pragma {directive}` before line "
            f"{line}{others}; put `#pragma xapp {clause}` on the line before that loop, or pass "
            f"{arg('band_line', str(line))}")
