"""Read clang's textual LLVM IR into functions, blocks and instructions, keeping line positions.

llvmlite parses and verifies IR but cannot insert instructions, so the instrumenter edits
the text; this module gives it the structure it needs: each instruction's source line in
the ``.ll`` text, its result name, opcode, operand text, debug location and loop metadata.
It reads what clang 14+ prints (typed or opaque pointers); it is not a general IR parser.

Examples
--------
>>> ir = '''define i32 @f(i32 %n) {
... entry:
...   %c = icmp sgt i32 %n, 0
...   br i1 %c, label %a, label %b
... a:
...   ret i32 1
... b:
...   ret i32 0
... }'''
>>> m = parse_module(ir)
>>> f = m.functions[0]
>>> [b.name for b in f.blocks], f.blocks[0].succs, f.params
(['entry', 'a', 'b'], ['a', 'b'], ['%n'])
>>> f.blocks[0].instrs[0].opcode, f.blocks[0].instrs[0].result
('icmp', '%c')
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ..ir import DebugInfo

VALUE = r'%(?:[-a-zA-Z$._][-a-zA-Z$._0-9]*|\d+|"[^"]*")'
_VALUE_RE = re.compile(VALUE)
_LABEL_REF = re.compile(r"label\s+(" + VALUE + ")")
_BLOCK_LABEL = re.compile(r'^([-a-zA-Z$._0-9]+|"[^"]*"):')
_RESULT = re.compile(r"^\s*(" + VALUE + r")\s*=\s*(.*)$")
_DBG = re.compile(r"!dbg\s+!(\d+)")
_LOOP = re.compile(r"!llvm\.loop\s+!(\d+)")
_MD_LINE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?(.*)$")
_DILOC = re.compile(r"^!DILocation\((.*)\)\s*$")
_FIELD = re.compile(r"(\w+):\s*(![0-9]+|\d+|[\w.]+)")
_TYPE_DEF = re.compile(r"^(%[-a-zA-Z$._0-9\"]+(?:\"[^\"]*\")?)\s*=\s*type\s+(.*)$")
_CALL_PREFIX = ("tail", "musttail", "notail")

#: Opcodes that end a basic block.
TERMINATORS = frozenset({"ret", "br", "switch", "indirectbr", "invoke", "callbr", "resume",
                         "unreachable", "catchswitch", "catchret", "cleanupret"})


def _unquoted(text: str, begin: int = 0) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of ``text`` from ``begin`` on, leaving out the quotes and what they hold."""
    quote = False
    for i in range(begin, len(text)):
        ch = text[i]
        if ch == '"':
            quote = not quote
        elif not quote:
            yield i, ch


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside brackets and quotes, stripping each part.

    >>> split_top('float %a, float* getelementptr (i8, i8* @x, i64 1), align 4')
    ['float %a', 'float* getelementptr (i8, i8* @x, i64 1)', 'align 4']
    """
    parts, depth, start = [], 0, 0
    for i, ch in _unquoted(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail or parts:
        parts.append(tail)
    return parts


def bracket_groups(text: str, open_: str = "[", close: str = "]") -> list[str]:
    """Contents of the top-level ``[...]`` groups of ``text`` (quotes respected).

    >>> bracket_groups('phi i32 [ %a, %x ], [ 0, %y ]')
    [' %a, %x ', ' 0, %y ']
    """
    out, depth, start = [], 0, 0
    for i, ch in _unquoted(text):
        if ch == open_:
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                out.append(text[start:i])
    return out


def matching_paren(text: str, open_at: int) -> int:
    """Index of the ``)`` closing the ``(`` at ``open_at`` (quotes respected)."""
    depth = 0
    for i, ch in _unquoted(text, open_at):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError(f"unbalanced parentheses in {text[:80]!r}")


@dataclass
class Instr:
    """One IR instruction: ``index`` is its line in the module text."""

    index: int
    result: str | None
    opcode: str
    body: str          # text after ``=`` (or the whole line), metadata attachments removed
    dbg: int | None
    loop_md: int | None

    def refs(self) -> list[str]:
        """All ``%name`` tokens of the operand text except branch-target labels, in order."""
        labels = {m.start(1) for m in _LABEL_REF.finditer(self.body)}
        return [m.group(0) for m in _VALUE_RE.finditer(self.body) if m.start() not in labels]

    def labels(self) -> list[str]:
        """Branch-target block names, in order (``label %x`` operands)."""
        return [m.group(1)[1:] for m in _LABEL_REF.finditer(self.body)]


@dataclass
class Block:
    name: str                      # without the leading ``%``
    label_index: int | None        # line of ``name:`` (None for an unlabelled entry block)
    phis: list[Instr] = field(default_factory=list)
    instrs: list[Instr] = field(default_factory=list)   # non-phi, terminator last

    @property
    def terminator(self) -> Instr:
        return self.instrs[-1]

    @property
    def succs(self) -> list[str]:
        return self.terminator.labels() if self.instrs else []


@dataclass
class Function:
    name: str
    define_index: int
    end_index: int
    params: list[str]
    blocks: list[Block]

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)


@dataclass(frozen=True)
class Location:
    """A ``!DILocation``: source line/column, its scope and where it was inlined (ids).

    ``main`` says whether the scope's file is the compiled file (not an included header):
    line numbers are only comparable with the source's when it is.
    """

    line: int
    column: int
    scope: int | None
    inlined_at: int | None
    main: bool = True


@dataclass
class Module:
    lines: list[str]
    functions: list[Function]
    locations: dict[int, Location]
    loop_starts: dict[int, tuple[int | None, int | None]]   # loop md id -> (start, end) loc ids
    types: dict[str, str]                                  # named struct types -> body text

    def line_of(self, md: int | None) -> int | None:
        """Line in the compiled file of a ``!dbg`` id (0, unknown and header locations give None).

        A header's line 8 is not the ``.c`` file's line 8, so header locations have no line here.
        """
        loc = self.locations.get(md) if md is not None else None
        return loc.line if loc and loc.line and loc.main else None


def _open_brackets(line: str) -> int:
    depth, quote = 0, False
    for ch in line:
        if ch == '"':
            quote = not quote
        elif not quote and ch == "[":
            depth += 1
        elif not quote and ch == "]":
            depth -= 1
    return depth


def _strip_attachments(body: str) -> tuple[str, int | None, int | None]:
    dbg = _DBG.search(body)
    loop = _LOOP.search(body)
    parts = split_top(body)
    keep = [p for p in parts if not p.startswith("!")]
    return ", ".join(keep), int(dbg.group(1)) if dbg else None, int(loop.group(1)) if loop else None


def _opcode(rest: str) -> str:
    words = rest.split()
    while words and words[0] in _CALL_PREFIX:
        words = words[1:]
    return words[0] if words else ""


def parse_params(define_line: str) -> list[str]:
    """Parameter value names of a ``define`` line (unnamed ones numbered like LLVM does).

    >>> parse_params('define i32 @f(i32 noundef %n, float* %0) #0 {')
    ['%n', '%0']
    """
    at = define_line.index("@")
    open_at = define_line.index("(", at)
    inner = define_line[open_at + 1:matching_paren(define_line, open_at)]
    params, unnamed = [], 0
    for part in split_top(inner):
        if not part or part == "...":
            continue
        last = part.split()[-1]
        if _VALUE_RE.fullmatch(last):
            params.append(last)
            if last[1:].isdigit():
                unnamed = int(last[1:]) + 1
        else:
            params.append(f"%{unnamed}")
            unnamed += 1
    return params


def _function_name(define_line: str) -> str:
    m = re.search(r'@([-a-zA-Z$._0-9]+|"[^"]*")\s*\(', define_line)
    if not m:
        raise ValueError(f"cannot read the function name of {define_line[:80]!r}")
    return m.group(1)


def _parse_function(lines: list[str], start: int) -> tuple[Function, int]:
    header = lines[start]
    params = parse_params(header)
    unnamed = sum(1 for p in params if p[1:].isdigit())
    blocks: list[Block] = []
    i = start + 1
    current: Block | None = None
    while i < len(lines) and lines[i].rstrip() != "}":
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            i += 1
            continue
        label = _BLOCK_LABEL.match(line)
        if label:
            current = Block(name=label.group(1), label_index=i)
            blocks.append(current)
            i += 1
            continue
        if stripped.startswith("#dbg_"):       # debug records (LLVM 19+): not instructions
            i += 1
            continue
        if current is None:                    # unlabelled entry block: the next unnamed number
            current = Block(name=str(unnamed), label_index=None)
            blocks.append(current)
        start_i = i
        while _open_brackets(line) > 0 and i + 1 < len(lines):   # switch cases span lines
            i += 1
            line = line + " " + lines[i].strip()
        m = _RESULT.match(line)
        result, rest = (m.group(1), m.group(2)) if m else (None, line.strip())
        body, dbg, loop = _strip_attachments(rest)
        ins = Instr(index=start_i, result=result, opcode=_opcode(rest), body=body, dbg=dbg, loop_md=loop)
        if ins.opcode == "phi":
            current.phis.append(ins)
        else:
            current.instrs.append(ins)
        i += 1
    return Function(_function_name(header), start, i, params, blocks), i


def _parse_metadata(line: str, locations: dict[int, Location],
                    loops: dict[int, tuple[int | None, int | None]]) -> None:
    m = _MD_LINE.match(line)
    if not m:
        return
    ident, rest = int(m.group(1)), m.group(2).strip()
    loc = _DILOC.match(rest)
    if loc:
        fields = dict(_FIELD.findall(loc.group(1)))

        def ref(key: str) -> int | None:
            return int(fields[key][1:]) if fields.get(key, "").startswith("!") else None

        locations[ident] = Location(int(fields.get("line", 0)), int(fields.get("column", 0)),
                                    ref("scope"), ref("inlinedAt"))
    elif rest.startswith((f"!{{!{ident},", f"!{{!{ident}}}")):
        ids = [int(x) for x in re.findall(r"!(\d+)", rest)[1:]]
        loops[ident] = tuple(ids[:2]) + (None,) * (2 - len(ids[:2]))  # type: ignore[assignment]


def _mark_main(text: str, locations: dict[int, Location]) -> dict[int, Location]:
    """Set ``main`` on each location through the scope's ``DIFile`` (static XAPP's check).

    IR without a compile unit (hand-written) has no files: every location counts as main.
    """
    debug = DebugInfo(text)
    if debug.main_path is None:
        return locations
    out = {}
    for ident, loc in locations.items():
        static = debug.loc(ident)
        out[ident] = replace(loc, main=static is not None and static.main)
    return out


def parse_module(text: str) -> Module:
    """Parse clang's ``.ll`` text (see the module docstring for what it keeps)."""
    lines = text.split("\n")
    functions: list[Function] = []
    locations: dict[int, Location] = {}
    loops: dict[int, tuple[int | None, int | None]] = {}
    types: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            fn, i = _parse_function(lines, i)
            functions.append(fn)
        elif line.startswith("!"):
            _parse_metadata(line, locations, loops)
        elif line.startswith("%"):
            t = _TYPE_DEF.match(line)
            if t:
                types[t.group(1)] = t.group(2)
        i += 1
    locations = _mark_main(text, locations)
    # keep only loop nodes whose first operands really are locations
    loop_starts = {k: v for k, v in loops.items() if v[0] in locations}
    return Module(lines, functions, locations, loop_starts, types)
