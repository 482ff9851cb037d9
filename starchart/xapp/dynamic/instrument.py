"""Instrument a program's LLVM IR so the XAPP runtime sees every dynamic instruction of a region.

The rewrite is textual (llvmlite parses and verifies IR but cannot insert instructions) and
adds only calls and ``ptrtoint``/``zext`` feeding them:

* ``__xapp_addr(i64)`` before each load/store/atomic — the address it accesses;
* ``__xapp_seg(i32 id, i64 v)`` before each call that may run instrumented code and before
  each terminator — "segment ``id`` ran" (``v``: the branch condition or switch value);
* ``__xapp_enter(i32 f)`` at the top of every function (a shadow frame for its values);
* ``__xapp_region_enter(i32 f)`` at the top of the band loop's header and
  ``__xapp_region_exit()`` at the top of its exit blocks: recording is on only in between,
  so code before and after the band (set-up, printing) is not counted.

The runtime replays each executed segment through the static tables emitted here (C source
compiled with the runtime): per instruction its class, operand slots (SSA values of its
function), result slot and memory-operation id; per block its phi nodes; per segment its
instructions, successor blocks and branch id.

Examples
--------
>>> from starchart.xapp.dynamic.build import program_ir
>>> out = instrument_ir(program_ir("stream.c"), band_line=15)        # doctest: +SKIP
>>> out.counts["branches"], "@__xapp_region_enter(i32 0)" in out.ir  # doctest: +SKIP
(3, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...errors import InputError, StarchartError
from .classify import Kind, call_target, classify
from .irloops import loop_line, loops_at_line, natural_loops, source_loop_lines
from .irtext import (
    TERMINATORS,
    VALUE,
    Function,
    Module,
    bracket_groups,
    parse_module,
    split_top,
)

CLASS_CODE = {"mem": 0, "ctrl": 1, "int": 2, "fp": 3, "dp": 4, "copy": 6}
SUB_CODE = {None: 0, "mul": 1, "div": 2, "sqrt": 3, "exp": 4, "sin": 5}
MEM_CODE = {None: 0, "load": 1, "store": 2, "rmw": 3}
END_CALL, END_BR, END_CONDBR, END_SWITCH, END_RET, END_OTHER = range(6)

_VALUE_FULL = re.compile(VALUE + r"$")
_ORDERING = re.compile(r'(\s+syncscope\("[^"]*"\))?\s+(unordered|monotonic|acquire|release|acq_rel|seq_cst)$')
_SCALAR_SIZE = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 16, "fp128": 16,
                "ppc_fp128": 16, "ptr": 8}
# Function attributes that would let the optimiser drop, merge or move calls to functions
# that now call the (opaque) hooks: removed from every attribute group.
_PURE_ATTRS = re.compile(r'(?<![\w"=.-])(readnone|readonly|writeonly|argmemonly|inaccessiblememonly|'
                         r'inaccessiblemem_or_argmemonly|speculatable|memory\([^)]*\))(?![\w"-])')
HOOK_DECLS = (
    "declare void @__xapp_addr(i64)",
    "declare void @__xapp_seg(i32, i64)",
    "declare void @__xapp_enter(i32)",
    "declare void @__xapp_region_enter(i32)",
    "declare void @__xapp_region_exit()",
)


@dataclass
class BlockInfo:
    """One IR block of the instrumented program (index = its id in the runtime's counts)."""

    function: str
    name: str
    lines: frozenset[int]          # source lines of its instructions (as written, not inlined-at)
    band_copy: int                 # which copy of the band loop it belongs to, -1 outside the band

    @property
    def in_band(self) -> bool:
        return self.band_copy >= 0


@dataclass
class BranchInfo:
    """One conditional branch or switch: where its successor counts start in ``succ_counts``."""

    function: str
    block: str
    line: int | None
    succs: list[str]
    succ_offset: int
    in_band: bool


@dataclass
class Instrumented:
    """The instrumented IR, the runtime tables (C source) and what they describe."""

    ir: str
    tables: str
    band_line: int
    band_end_line: int | None
    blocks: list[BlockInfo]
    branches: list[BranchInfo]
    loop_headers: dict[int, list[int]] = field(default_factory=dict)   # source line -> header block ids
    counts: dict[str, int] = field(default_factory=dict)


def type_prefix(text: str) -> tuple[str, str]:
    """Split a leading IR type from the rest of ``text``.

    >>> type_prefix("<4 x float> %v")
    ('<4 x float>', '%v')
    >>> type_prefix("%struct.pt* %p")
    ('%struct.pt*', '%p')
    """
    text = text.strip()
    if text[:1] in "<[{":
        close = {"<": ">", "[": "]", "{": "}"}[text[0]]
        depth = 0
        for i, ch in enumerate(text):
            depth += ch == text[0]
            depth -= ch == close
            if depth == 0:
                j = i + 1
                while j < len(text) and text[j] == "*":
                    j += 1
                return text[:j], text[j:].strip()
    if text.startswith("ptr addrspace("):
        j = text.index(")") + 1
        return text[:j], text[j:].strip()
    head, _, rest = text.partition(" ")
    if rest.startswith("addrspace("):               # typed pointer in an address space
        j = rest.index(")") + 1
        stars = len(rest[j:]) - len(rest[j:].lstrip("*"))
        return f"{head} {rest[:j + stars]}", rest[j + stars:].strip()
    return head, rest.strip()


def type_size(t: str, types: dict[str, str] | None = None) -> int:
    """Bytes a load/store of type ``t`` accesses (structs: fields summed, no padding).

    >>> type_size("i32"), type_size("double"), type_size("<4 x float>"), type_size("i8*")
    (4, 8, 16, 8)
    """
    t = t.strip()
    if t.endswith("*") or t.startswith("ptr"):
        return 8
    if t in _SCALAR_SIZE:
        return _SCALAR_SIZE[t]
    m = re.fullmatch(r"i(\d+)", t)
    if m:
        return max(1, (int(m.group(1)) + 7) // 8)
    m = re.fullmatch(r"[<\[]\s*(\d+)\s*x\s*(.*)[>\]]", t)
    if m:
        return int(m.group(1)) * type_size(m.group(2), types)
    if t.startswith(("{", "<{")):
        inner = t.strip("<>{} ")
        return sum(type_size(f, types) for f in split_top(inner)) or 1
    if types and t in types:
        return type_size(types[t], types)
    return 8


def _mem_operands(opcode: str, body: str) -> tuple[str, str]:
    """(accessed type, ``<ptr type> <ptr>`` text) of a load/store/atomic.

    >>> _mem_operands("store", "store float %x, float* %p, align 4")
    ('float', 'float* %p')
    >>> _mem_operands("atomicrmw", "atomicrmw add ptr %p, i32 1 seq_cst")
    ('i32', 'ptr %p')
    """
    parts = split_top(body)
    if opcode == "load":
        head = [w for w in parts[0].split()[1:] if w not in ("volatile", "atomic")]
        return " ".join(head), _ORDERING.sub("", parts[1])
    if opcode == "store":
        words = parts[0].split()[1:]
        while words and words[0] in ("volatile", "atomic"):
            words = words[1:]
        return type_prefix(" ".join(words))[0], _ORDERING.sub("", parts[1])
    # atomicrmw [volatile] <op> <ptr>, <ty> <val> ...  /  cmpxchg [weak] [volatile] <ptr>, <ty> <cmp>, ...
    head = parts[0].split()[1:]
    while head and head[0] in ("volatile", "weak"):
        head = head[1:]
    if opcode == "atomicrmw":
        head = head[1:]
    return type_prefix(parts[1])[0], _ORDERING.sub("", " ".join(head))


class _Builder:
    """Accumulates the runtime tables and the text to insert while walking the module."""

    def __init__(self, module: Module):
        self.m = module
        self.fids = {fn.name: i for i, fn in enumerate(module.functions)}
        self.block_ids: dict[tuple[str, str], int] = {}
        for fn in module.functions:
            for b in fn.blocks:
                self.block_ids[(fn.name, b.name)] = len(self.block_ids)
        self.funcs: list[tuple[int, int]] = []
        self.blocks: list[tuple[int, int]] = []
        self.phis: list[tuple[int, int, int]] = []
        self.phi_inc: list[int] = []
        self.segs: list[tuple[int, ...]] = []
        self.instrs: list[tuple[int, ...]] = []
        self.operands: list[int] = []
        self.succ: list[int] = []
        self.cases: list[int] = []
        self.n_memops = 0
        self.branch_info: list[BranchInfo] = []
        self.block_info: list[BlockInfo] = []
        self.inserts: dict[int, list[str]] = {}
        self.tmp = 0
        self.max_seg_mem = 0

    def fresh(self) -> str:
        self.tmp += 1
        return f"%__xapp.{self.tmp}"

    def insert(self, index: int, text: str) -> None:
        self.inserts.setdefault(index, []).append("  " + text)

    # -- per instruction --------------------------------------------------------------
    def operand_slots(self, fn_slots: dict[str, int], ins_body: str, kind: Kind, opcode: str,
                      refs: list[str]) -> list[int]:
        if kind.callee is not None and kind.callee in self.fids and opcode == "call":
            _, args = call_target(ins_body)
            out = []
            for arg in split_top(args):
                last = arg.split()[-1] if arg.split() else ""
                out.append(fn_slots.get(last, -1) if _VALUE_FULL.match(last) else -1)
            return out
        if opcode == "alloca":
            return []
        slots = [fn_slots[r] for r in refs if r in fn_slots]
        return slots[:1] if kind.cls == "copy" else slots

    def add_instr(self, kind: Kind, size: int, memop: int, result: int, ops: list[int], callee: int) -> int:
        self.instrs.append((CLASS_CODE[kind.cls], SUB_CODE[kind.sub], MEM_CODE[kind.mem], size,
                            memop, result, len(self.operands), len(ops), callee))
        self.operands.extend(ops)
        return len(self.instrs) - 1


def _line_set(module: Module, block_instrs: list) -> frozenset[int]:
    return frozenset(ln for ins in block_instrs if (ln := module.line_of(ins.dbg)) is not None)


def instrument_ir(ir: str, band_line: int, source: str = "<source>") -> Instrumented:
    """Instrument ``ir`` (clang's text) for the region of the loop starting on ``band_line``.

    Raises
    ------
    InputError
        No loop of the optimised IR starts on ``band_line`` (names the lines that do).
    """
    module = parse_module(ir)
    bands = loops_at_line(module, band_line)
    if not bands:
        lines = sorted(source_loop_lines(module))
        any_loop = any(natural_loops(fn) for fn in module.functions)
        raise InputError(f"no loop starting on line {band_line} is left in the optimised IR"
                         + (f" (loops start on lines {', '.join(map(str, lines))})" if lines else
                            " (its loops have no line information: was it compiled with -g?)" if any_loop
                            else " (no loop is left at all)"),
                         where=f"{source}, line {band_line}",
                         hint="the optimiser removes loops whose results are unused or that it can "
                              "compute in closed form; make the band's results observable (print them)")
    band_end = None
    for fn, lp in bands:
        for latch in lp.latches:
            md = fn.block(latch).terminator.loop_md
            if md in module.loop_starts and module.loop_starts[md][1] is not None:
                band_end = module.line_of(module.loop_starts[md][1])
    b = _Builder(module)
    for fid, fn in enumerate(module.functions):
        _instrument_function(b, fid, fn, [(i, lp) for i, (f, lp) in enumerate(bands) if f is fn])
    text = _rewrite(module, b)
    _verify(text, source)
    counts = {"functions": len(b.funcs), "blocks": len(b.blocks), "segments": len(b.segs),
              "instructions": len(b.instrs), "memops": b.n_memops, "branches": len(b.branch_info),
              "band_copies": len(bands)}
    headers: dict[int, list[int]] = {}
    for fn in module.functions:
        for lp in natural_loops(fn):
            ln = loop_line(module, fn, lp)
            if ln is not None:
                headers.setdefault(ln, []).append(b.block_ids[(fn.name, lp.header)])
    return Instrumented(text, _tables_c(b), band_line, band_end, b.block_info, b.branch_info, headers, counts)


def _instrument_function(b: _Builder, fid: int, fn: Function, copies: list) -> None:
    m = b.m
    slots: dict[str, int] = {p: i for i, p in enumerate(fn.params)}
    for blk in fn.blocks:
        for ins in blk.phis + blk.instrs:
            if ins.result is not None:
                slots[ins.result] = len(slots)
    b.funcs.append((len(slots), len(fn.params)))
    headers = {lp.header for _, lp in copies}
    exits = {e for _, lp in copies for e in lp.exits}
    copy_of = {name: i for i, lp in copies for name in lp.blocks}
    for blk in fn.blocks:
        bid = b.block_ids[(fn.name, blk.name)]
        # phi nodes: value copies along the edge the runtime sees taken
        b.blocks.append((len(b.phis), len(blk.phis)))
        for phi in blk.phis:
            incoming = []
            for group in bracket_groups(phi.body[phi.body.index("["):]):
                parts = split_top(group)
                if len(parts) != 2:
                    continue
                value, label = parts
                pred = b.block_ids.get((fn.name, label.lstrip("%")), -1)
                incoming += [pred, slots.get(value, -1) if _VALUE_FULL.match(value) else -1]
            b.phis.append((slots[phi.result], len(b.phi_inc), len(incoming) // 2))  # type: ignore[index]
            b.phi_inc.extend(incoming)
        b.block_info.append(BlockInfo(fn.name, blk.name, _line_set(m, blk.phis + blk.instrs),
                                      copy_of.get(blk.name, -1)))
        top = blk.instrs[0].index
        if blk is fn.blocks[0]:
            b.insert(top, f"call void @__xapp_enter(i32 {fid})")
        if blk.name in headers:
            b.insert(top, f"call void @__xapp_region_enter(i32 {fid})")
        if blk.name in exits:
            b.insert(top, "call void @__xapp_region_exit()")
        seg_first, n_mem, after_call = len(b.instrs), 0, -1
        for ins in blk.instrs:
            kind = classify(ins.opcode, ins.body)
            if kind.cls == "skip":
                continue
            size, memop = 0, -1
            if kind.mem is not None:
                ty, ptr = _mem_operands(ins.opcode, ins.body)
                size = type_size(ty, m.types)
                memop = b.n_memops
                b.n_memops += 1
                n_mem += 1
                tmp = b.fresh()
                b.insert(ins.index, f"{tmp} = ptrtoint {ptr} to i64")
                b.insert(ins.index, f"call void @__xapp_addr(i64 {tmp})")
            ops = b.operand_slots(slots, ins.body, kind, ins.opcode, ins.refs())
            callee = b.fids.get(kind.callee, -1) if kind.callee is not None else -1
            result = slots.get(ins.result, -1) if ins.result is not None else -1
            b.add_instr(kind, size, memop, result, ops, callee)
            terminator = ins.opcode in TERMINATORS
            if not (kind.segment_end or terminator):
                continue
            value = "0"
            succ = ins.labels()
            cases: list[int] = []
            branch = -1
            if not terminator:
                end = END_CALL
            elif ins.opcode == "br":
                end = END_CONDBR if len(succ) == 2 else END_BR
                if end == END_CONDBR:
                    cond = split_top(ins.body)[0].split(None, 2)[2]          # "br i1 <cond>"
                    value = b.fresh()
                    b.insert(ins.index, f"{value} = zext i1 {cond} to i64")
            elif ins.opcode == "switch":
                end = END_SWITCH
                head = split_top(ins.body[:ins.body.index("[")])[0].split(None, 2)   # switch iN <v>
                width = int(head[1][1:])
                value = head[2]
                if width < 64:
                    value = b.fresh()
                    b.insert(ins.index, f"{value} = zext {head[1]} {head[2]} to i64")
                elif not _VALUE_FULL.match(value):
                    value = b.fresh()                                        # a constant expression
                    b.insert(ins.index, f"{value} = add i64 {head[2]}, 0")
                mask = (1 << width) - 1 if width < 64 else None
                for cv in re.findall(r"i\d+\s+(-?\d+|true|false)\s*,\s*label", bracket_groups(ins.body)[0]):
                    v = {"true": 1, "false": 0}.get(cv, None)
                    v = int(cv) if v is None else v
                    cases.append(v & mask if mask is not None else v)
            elif ins.opcode == "ret":
                end = END_RET
            else:
                end, succ = END_OTHER, []
            if end in (END_CONDBR, END_SWITCH):
                branch = len(b.branch_info)
                b.branch_info.append(BranchInfo(fn.name, blk.name, m.line_of(ins.dbg), succ, len(b.succ),
                                                blk.name in copy_of))
            b.insert(ins.index, f"call void @__xapp_seg(i32 {len(b.segs)}, i64 {value})")
            b.segs.append((fid, bid, seg_first, len(b.instrs) - seg_first, n_mem, end, after_call, branch,
                           len(b.succ), len(succ), len(b.cases)))
            b.succ.extend(b.block_ids[(fn.name, s.lstrip("%"))] for s in succ)
            b.cases.extend(cases)
            b.max_seg_mem = max(b.max_seg_mem, n_mem)
            seg_first, n_mem = len(b.instrs), 0
            after_call = result if (end == END_CALL and callee >= 0) else -1


def _rewrite(module: Module, b: _Builder) -> str:
    out: list[str] = []
    for i, line in enumerate(module.lines):
        if i in b.inserts:
            out.extend(b.inserts[i])
        if line.startswith("attributes #"):
            line = _PURE_ATTRS.sub("", line)
            if re.search(r"\{\s*\}", line):             # an empty group does not parse
                line = re.sub(r"\{\s*\}", '{ "xapp-instrumented" }', line)
        out.append(line)
    out.append("")
    out.extend(HOOK_DECLS)
    out.append("")
    return "\n".join(out)


def _verify(text: str, source: str) -> None:
    import llvmlite.binding as llvm

    try:
        llvm.parse_assembly(text).verify()
    except RuntimeError as err:
        raise StarchartError(f"the instrumented IR does not verify: {str(err).strip()[:400]}",
                             where=source, hint="this is a bug in starchart.xapp.dynamic; please report "
                                                "it with the C file") from None


def _c_array(ctype: str, name: str, rows: list, width: int) -> str:
    if not rows:
        rows = [tuple([0] * width)] if width > 1 else [0]
    if width == 1:
        body = ", ".join(str(v) for v in rows)
    else:
        body = ",\n  ".join("{" + ", ".join(str(v) for v in r) + "}" for r in rows)
    return f"const {ctype} {name}[] = {{\n  {body}\n}};\n"


def _tables_c(b: _Builder) -> str:
    consts = {"n_funcs": len(b.funcs), "n_blocks": len(b.blocks), "n_segs": len(b.segs),
              "n_memops": b.n_memops, "n_branches": len(b.branch_info), "n_succ": len(b.succ),
              "max_seg_mem": b.max_seg_mem}
    parts = ['/* generated by starchart.xapp.dynamic.instrument */\n#include "xapp_rt.h"\n']
    parts += [f"const int32_t __xapp_{k} = {v};\n" for k, v in consts.items()]
    parts.append(_c_array("xapp_func_t", "__xapp_funcs", b.funcs, 2))
    parts.append(_c_array("xapp_block_t", "__xapp_blocks", b.blocks, 2))
    parts.append(_c_array("xapp_phi_t", "__xapp_phis", b.phis, 3))
    parts.append(_c_array("int32_t", "__xapp_phi_inc", b.phi_inc, 1))
    parts.append(_c_array("xapp_seg_t", "__xapp_segs", b.segs, 11))
    instr_rows = [(c, s, mk, 0, size, memop, res, ops, nops, callee)
                  for c, s, mk, size, memop, res, ops, nops, callee in b.instrs]
    parts.append(_c_array("xapp_instr_t", "__xapp_instrs", instr_rows, 10))
    parts.append(_c_array("int32_t", "__xapp_operands", b.operands, 1))
    parts.append(_c_array("int32_t", "__xapp_succ", b.succ, 1))
    parts.append(_c_array("int64_t", "__xapp_cases", [f"{v}LL" if v >= 0 else f"({v + 1}LL - 1)" for v in b.cases]
                          , 1))
    return "".join(parts)
