"""From clang's LLVM IR to a small plain-Python model of the function holding the band.

Pipeline (and why):

* clang runs with :data:`STATIC_IR_FLAGS`: ``-O0 -Xclang -disable-O0-optnone`` gives the
  front end's IR with no LLVM optimisation and without ``optnone``. clang's -O1 pipeline
  would blur what the thesis counts: SimplifyCFG turns small ``if``s into ``select``s
  (control statements vanish), LICM hoists invariant loads such as Fig. 4.2's ``tree[0]``
  out of the band, loop-idiom turns loops into ``memset``, GVN merges repeated loads. Even
  -O1's front-end IR alone (``-disable-llvm-passes``) is worse: its lifetime-marker cleanups
  route ``continue``/``break`` through ``cleanup.dest.slot`` switches that look like control
  statements. ``-ffp-contract=off`` keeps ``a*b+c`` an fmul and an fadd on every clang
  version; ``-fno-sanitize=all`` stops ``zig cc`` adding UBSan checks (branches) at -O0;
  ``-gline-tables-only`` gives the source lines that pragmas are matched through.
* llvmlite then runs only what the analysis needs: the always-inliner on the functions the
  band function calls (their ``noinline``, which -O0 puts on every function, is dropped and
  ``alwaysinline`` added), SROA (mem2reg: loop counters and pointers become SSA values, so
  induction variables and address arithmetic can be read) and SCCP (folds constants such
  as ``const int n = 16; ... n - 1``).

Debug locations are read from the module text: the ``!dbg !N`` of each instruction and the
``!N = !DILocation(line: .., scope: ..)`` nodes (metadata numbers are only consistent in the
printed *module*, so instructions are matched to their line of module text by position).

Examples
--------
>>> fn = band_function(compile_to_ir("k.c", flags=STATIC_IR_FLAGS), 5, "k.c")  # doctest: +SKIP
>>> fn.name, len(fn.blocks)                                                      # doctest: +SKIP
('saxpy', 6)
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
from dataclasses import dataclass, field

from ..errors import InputError, arg

#: clang flags for static XAPP (see the module docstring for why each).
STATIC_IR_FLAGS = (
    "-S", "-emit-llvm", "-gline-tables-only", "-O0", "-Xclang", "-disable-O0-optnone",
    "-fno-discard-value-names", "-ffp-contract=off", "-fno-sanitize=all", "-Wno-unknown-pragmas",
)

# ----------------------------------------------------------------------------- debug metadata

_MD_LINE = re.compile(r"^!(\d+) = (?:distinct )?(.*)$", re.M)
_FIELD_INT = {k: re.compile(rf"\b{k}: (-?\d+)") for k in ("line", "column")}
_FIELD_REF = {k: re.compile(rf"\b{k}: !(\d+)") for k in ("scope", "inlinedAt", "file")}
_STR_FIELD = {k: re.compile(rf'\b{k}: "((?:\\.|[^"\\])*)"') for k in ("filename", "directory")}


@dataclass(frozen=True)
class Loc:
    """A source position: ``line``/``column`` in the file being analysed (``main``) or another
    file (a header), and whether the code was inlined from a callee."""

    line: int
    column: int
    main: bool
    inlined: bool


class DebugInfo:
    """The debug-location metadata of one printed module.

    >>> text = ('!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1)\\n'
    ...         '!1 = !DIFile(filename: "k.c", directory: "/w")\\n'
    ...         '!2 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1)\\n'
    ...         '!3 = !DILocation(line: 7, column: 5, scope: !2)\\n')
    >>> DebugInfo(text).loc(3)
    Loc(line=7, column=5, main=True, inlined=False)
    """

    def __init__(self, module_text: str):
        self.nodes: dict[int, str] = {int(m.group(1)): m.group(2) for m in _MD_LINE.finditer(module_text)}
        cu = next((body for body in self.nodes.values() if body.startswith("!DICompileUnit(")), None)
        cu_file = _ref(cu, "file") if cu else None
        self.main_path = self._path(cu_file) if cu_file is not None else None
        self._locs: dict[int, Loc | None] = {}
        self._main_scopes: dict[int, bool] = {}

    def _path(self, file_id: int | None) -> str | None:
        body = self.nodes.get(file_id) if file_id is not None else None
        if body is None or not body.startswith("!DIFile("):
            return None
        name = _STR_FIELD["filename"].search(body)
        folder = _STR_FIELD["directory"].search(body)
        return os.path.normpath(os.path.join(folder.group(1) if folder else "", name.group(1) if name else ""))

    def _scope_is_main(self, scope: int) -> bool:
        if scope not in self._main_scopes:
            body = self.nodes.get(scope, "")
            file_id = _ref(body, "file")
            if file_id is None and body.startswith("!DIFile("):
                file_id = scope
            self._main_scopes[scope] = self.main_path is not None and self._path(file_id) == self.main_path
        return self._main_scopes[scope]

    def loc(self, md: int) -> Loc | None:
        """The location of ``!md`` (a DILocation), or None."""
        if md not in self._locs:
            body = self.nodes.get(md, "")
            if not body.startswith("!DILocation("):
                self._locs[md] = None
            else:
                scope = _ref(body, "scope")
                self._locs[md] = Loc(line=_int(body, "line"), column=_int(body, "column"),
                                     main=scope is not None and self._scope_is_main(scope),
                                     inlined=_ref(body, "inlinedAt") is not None)
        return self._locs[md]

    def loop_start(self, md: int) -> Loc | None:
        """The start location of an ``!llvm.loop`` node (clang puts the loop statement's
        position first), or None."""
        body = self.nodes.get(md, "")
        for ref in re.findall(r"!(\d+)", body):
            loc = self.loc(int(ref))
            if loc is not None:
                return loc
        return None


def _int(body: str, key: str) -> int:
    m = _FIELD_INT[key].search(body)
    return int(m.group(1)) if m else 0


def _ref(body: str | None, key: str) -> int | None:
    m = _FIELD_REF[key].search(body or "")
    return int(m.group(1)) if m else None


# ----------------------------------------------------------------------------- types

_SCALARS = {"half": 2, "bfloat": 2, "float": 4, "double": 8, "x86_fp80": 16, "fp128": 16,
            "ppc_fp128": 16, "ptr": 8, "x86_mmx": 8}
_STRUCT_DEF = re.compile(r"^(%[\w.$\"-]+) = type (.*)$", re.M)


class Types:
    """Sizes of the IR types written in a module's text (x86-64/AArch64 natural alignment).

    >>> t = Types("%struct.P = type { float, double }")
    >>> t.size("%struct.P"), t.size("[4 x i32]"), t.size("ptr")
    (16, 16, 8)
    """

    def __init__(self, module_text: str = ""):
        self.structs = {m.group(1): m.group(2) for m in _STRUCT_DEF.finditer(module_text)}
        self._cache: dict[str, tuple[int, int]] = {}

    def parse(self, text: str, pos: int = 0) -> tuple[object, int]:
        """Parse one type at ``text[pos:]``: returns (type, end position)."""
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if text.startswith("<{", pos) or text[pos] == "{":
            packed = text[pos] == "<"
            pos += 2 if packed else 1
            fields = []
            while True:
                while text[pos] == " ":
                    pos += 1
                if text[pos] == "}":
                    pos += 1
                    break
                ftype, pos = self.parse(text, pos)
                fields.append(ftype)
                while text[pos] == " ":
                    pos += 1
                if text[pos] == ",":
                    pos += 1
            if packed:
                pos += 1  # the closing '>'
            return ("struct", packed, tuple(fields)), pos
        if text[pos] in "[<":
            m = re.compile(r"[\[<]\s*(?:vscale x )?(\d+) x ").match(text, pos)
            if not m:
                raise ValueError(f"cannot read type at {text[pos:pos + 30]!r}")
            elem, end = self.parse(text, m.end())
            kind = "array" if text[pos] == "[" else "vector"
            return (kind, int(m.group(1)), elem), end + 1
        m = re.compile(r'%(?:"[^"]*"|[\w.$-]+)|i\d+|ptr(?: addrspace\(\d+\))?|[a-z_0-9]+').match(text, pos)
        if not m:
            raise ValueError(f"cannot read type at {text[pos:pos + 30]!r}")
        return m.group(0), m.end()

    def size(self, t: object) -> int:
        """Allocation size in bytes of a type (text or parsed)."""
        return self._size_align(t)[0]

    def _size_align(self, t: object) -> tuple[int, int]:
        if isinstance(t, str):
            if t in self._cache:
                return self._cache[t]
            if t.startswith("%"):
                body = self.structs.get(t, "opaque")
                result = (0, 1) if body.startswith("opaque") else self._size_align(self.parse(body)[0])
            elif t.startswith("ptr"):
                result = (8, 8)
            elif re.fullmatch(r"i\d+", t):
                size = 1
                while size * 8 < int(t[1:]):
                    size *= 2
                result = (size, min(size, 16))
            elif t in _SCALARS:
                result = (_SCALARS[t], _SCALARS[t])
            elif any(c in t for c in "[<{"):
                result = self._size_align(self.parse(t)[0])
            else:
                raise ValueError(f"unknown type {t!r}")
            self._cache[t] = result
            return result
        kind = t[0]  # type: ignore[index]
        if kind == "array":
            size, align = self._size_align(t[2])  # type: ignore[index]
            return size * t[1], align  # type: ignore[index]
        if kind == "vector":
            size = self.size(t[2]) * t[1]  # type: ignore[index]
            full = 1
            while full < size:
                full *= 2
            return full, full
        packed, fields = t[1], t[2]  # type: ignore[index]
        offset, align = 0, 1
        for f in fields:
            fsize, falign = self._size_align(f)
            if not packed:
                offset = -(-offset // falign) * falign
                align = max(align, falign)
            offset += fsize
        return -(-offset // align) * align, align

    def field_type(self, t: object, index: int) -> object:
        """The type of field/element ``index`` of a struct, array or vector type."""
        if isinstance(t, str):
            t = self.parse(self.structs.get(t, t) if t.startswith("%") else t)[0]
        if t[0] == "struct":  # type: ignore[index]
            return t[2][index]  # type: ignore[index]
        return t[2]  # type: ignore[index]


# ----------------------------------------------------------------------------- function model


@dataclass(frozen=True)
class Val:
    """An operand: ``kind`` is inst/arg/const/global/func/block/other; ``ref`` is the
    instruction or block index, the constant integer (None for other constants), or the name."""

    kind: str
    ref: int | str | None = None


@dataclass(eq=False)
class Inst:
    """One instruction of the model."""

    index: int
    block: int
    opcode: str
    name: str
    text: str
    ops: tuple[Val, ...]
    loc: Loc | None
    callee: str | None = None
    loop_start: Loc | None = None  # from `!llvm.loop` on a latch branch
    incoming: tuple[int, ...] = ()  # a phi's incoming blocks, in operand order
    users: list[int] = field(default_factory=list)

    @property
    def line(self) -> int | None:
        """The source line in the analysed file (None for code from other files)."""
        return self.loc.line if self.loc is not None and self.loc.main and self.loc.line > 0 else None


@dataclass(eq=False)
class Block:
    """A basic block: its instructions (indices), successors and predecessors (block indices)."""

    index: int
    name: str
    insts: list[int]
    succs: list[int] = field(default_factory=list)  # for `br i1 c, T, F`: [T, F]
    preds: list[int] = field(default_factory=list)


@dataclass(eq=False)
class Function:
    """One function after inlining and SROA, with its debug locations and type sizes."""

    name: str
    blocks: list[Block]
    insts: list[Inst]
    types: Types
    defined: frozenset[str] = frozenset()  # functions with a body in the module

    def terminator(self, block: int) -> Inst:
        """The last instruction of ``block``."""
        return self.insts[self.blocks[block].insts[-1]]


def _address(value) -> int:
    return ctypes.cast(value._ptr, ctypes.c_void_p).value or 0


def _instruction_lines(module_text: str, name: str) -> list[str]:
    m = re.search(rf'^define [^\n]*@"?{re.escape(name)}"?\(.*?^\}}', module_text, re.M | re.S)
    if not m:
        raise ValueError(f"function {name} not found in module text")
    out: list[str] = []
    pending = ""
    for line in m.group(0).split("\n")[1:-1]:
        s = line.strip()
        if pending:  # a switch's case list continues over several lines
            pending += " " + s
            if pending.count("[") <= pending.count("]"):
                out.append(pending)
                pending = ""
        elif line.startswith("  ") and s and not s.startswith(("#dbg_", ";")):
            if s.count("[") > s.count("]"):
                pending = s
            else:
                out.append(s)
    return out


def build_function(fn, module_text: str) -> Function:
    """The model of llvmlite function ``fn`` (``module_text``: the printed module)."""
    debug = DebugInfo(module_text)
    types = Types(module_text)
    lines = _instruction_lines(module_text, fn.name)
    block_of: dict[int, int] = {}
    inst_of: dict[int, int] = {}
    arg_of = {_address(a): k for k, a in enumerate(fn.arguments)}
    raw = []
    for b_index, b in enumerate(fn.blocks):
        block_of[_address(b)] = b_index
        for inst in b.instructions:
            inst_of[_address(inst)] = len(raw)
            raw.append((b_index, inst))
    if len(raw) != len(lines):
        raise ValueError(f"{fn.name}: {len(raw)} instructions but {len(lines)} lines of text")
    blocks = [Block(k, b.name, []) for k, b in enumerate(fn.blocks)]
    insts: list[Inst] = []
    for k, ((b_index, inst), text) in enumerate(zip(raw, lines)):
        ops = []
        for op in inst.operands:
            kind = op.value_kind.name
            addr = _address(op)
            if kind == "instruction":
                ops.append(Val("inst", inst_of[addr]))
            elif kind == "argument":
                ops.append(Val("arg", arg_of.get(addr)))
            elif kind == "basic_block":
                ops.append(Val("block", block_of[addr]))
            elif kind == "constant_int":
                ops.append(Val("const", op.get_constant_value(signed_int=True)))
            elif kind == "function":
                ops.append(Val("func", op.name))
            elif kind == "global_variable":
                ops.append(Val("global", op.name))
            else:
                ops.append(Val("other", kind))
        dbg = re.search(r"!dbg !(\d+)", text)
        loop = re.search(r"!llvm\.loop !(\d+)", text)
        callee, incoming = None, ()
        if inst.opcode == "phi":
            incoming = tuple(block_of[_address(b)] for b in inst.incoming_blocks)
        if inst.opcode == "call":
            callee = ops[-1].ref if ops and ops[-1].kind == "func" else None  # type: ignore[assignment]
        insts.append(Inst(index=k, block=b_index, opcode=inst.opcode, name=inst.name, text=text,
                          ops=tuple(ops), loc=debug.loc(int(dbg.group(1))) if dbg else None, callee=callee,
                          loop_start=debug.loop_start(int(loop.group(1))) if loop else None,
                          incoming=incoming))
        blocks[b_index].insts.append(k)
    for inst in insts:
        for op in inst.ops:
            if op.kind == "inst":
                insts[op.ref].users.append(inst.index)  # type: ignore[index]
    for b in blocks:
        term = insts[b.insts[-1]]
        targets = [op.ref for op in term.ops if op.kind == "block"]
        if term.opcode == "br" and len(targets) == 2:
            targets = [targets[1], targets[0]]  # llvm stores [cond, false, true]
        for t in targets:
            if t not in b.succs:
                b.succs.append(t)  # type: ignore[arg-type]
                blocks[t].preds.append(b.index)  # type: ignore[index]
    return Function(name=fn.name, blocks=blocks, insts=insts, types=types)


# ----------------------------------------------------------------------------- preparing the module

_DEFINE = re.compile(r'^define [^\n]*?@"?([\w.$]+)"?\(.*?^\}', re.M | re.S)
_CPU_ATTRS = re.compile(r'\bnoinline\b ?|"(?:target-cpu|target-features|tune-cpu)"="[^"]*" ?')
_CALL = re.compile(r'\bcall [^@\n]*@"?([\w.$]+)"?\(')


def band_function_name(module_text: str, line: int, where: str) -> str:
    """The function whose loop starts at ``line`` of the analysed file (before any inlining).

    Raises
    ------
    InputError
        When no loop of the analysed file starts at ``line``.
    """
    debug = DebugInfo(module_text)
    for m in _DEFINE.finditer(module_text):
        for md in re.findall(r"!llvm\.loop !(\d+)", m.group(0)):
            loc = debug.loop_start(int(md))
            if loc is not None and loc.main and loc.line == line:
                return m.group(1)
    for m in _DEFINE.finditer(module_text):  # loops without loop metadata (goto loops)
        for md in re.findall(r"!dbg !(\d+)", m.group(0)):
            loc = debug.loc(int(md))
            if loc is not None and loc.main and loc.line == line:
                return m.group(1)
    # clang emits no code for a `static` function that nothing calls: its loops are then not
    # found although the pragma is right, so the hint names that case too
    raise InputError(f"line {line} is not the first line of a loop in any function", where=where,
                     hint=f"give the line of the band's `for` ({arg('band_line', '')}) or mark it with #pragma xapp parallel; "
                          "a `static` function that nothing in the file calls is dropped by clang (remove `static`)")


def _inline_candidates(module_text: str, root: str) -> set[str]:
    """Functions defined in the module that ``root`` calls, directly or not, and that are
    not recursive (those cannot be inlined and are reported later)."""
    calls = {m.group(1): set(_CALL.findall(m.group(0))) for m in _DEFINE.finditer(module_text)}

    def reach(start: str) -> set[str]:
        seen, todo = set(), list(calls.get(start, ()))
        while todo:
            f = todo.pop()
            if f in seen or f not in calls:
                continue
            seen.add(f)
            todo.extend(calls[f])
        return seen
    return {f for f in reach(root) if f != root and f not in reach(f)}


@functools.cache
def _init_llvm():
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    tm = llvm.Target.from_default_triple().create_target_machine()
    return llvm, tm


def band_function(ir_text: str, line: int, where: str = "<source>") -> Function:
    """Parse ``ir_text`` with llvmlite, inline what the band function calls, run SROA and
    SCCP, and return the model of the function whose loop starts at ``line``."""
    name = band_function_name(ir_text, line, where)
    llvm, tm = _init_llvm()
    # -O0 marks every function noinline (only the always-inliner runs, on the callees chosen
    # below); the CPU name and features of another clang may be unknown to llvmlite's LLVM,
    # which then warns on stderr, and they do not matter here
    ir_text = re.sub(r"^attributes #\d+ = \{[^\n]*\}$", lambda m: _CPU_ATTRS.sub("", m.group(0)), ir_text, flags=re.M)
    module = llvm.parse_assembly(ir_text)
    inline = _inline_candidates(ir_text, name)
    for fn in module.functions:
        if fn.name in inline and not fn.is_declaration:
            fn.add_function_attribute("alwaysinline")
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_always_inliner_pass()
    mpm.add_sroa_pass()
    mpm.add_sccp_pass()
    mpm.run(module, pb)
    model = build_function(module.get_function(name), str(module))
    model.defined = frozenset(fn.name for fn in module.functions if not fn.is_declaration)
    return model
