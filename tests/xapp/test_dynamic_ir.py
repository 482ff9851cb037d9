"""Dynamic XAPP, static side: IR text parsing, loops, classes, band lines, the rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest
from clang_available import needs_clang

from starchart.errors import InputError
from starchart.xapp.dynamic import measure
from starchart.xapp.dynamic.build import program_ir
from starchart.xapp.dynamic.classify import classify, libm_kind
from starchart.xapp.dynamic.instrument import instrument_ir, type_prefix, type_size
from starchart.xapp.dynamic.irloops import loops_at_line, natural_loops
from starchart.xapp.dynamic.irtext import parse_module
from starchart.xapp.dynamic.region import band_line_of

CASES = Path(__file__).parent / "dyn_cases"


SWITCH_IR = """define i32 @f(i32 %0, i32 %n) {
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %loop, label %out

loop:                                             ; preds = %1, %latch
  %i = phi i32 [ 0, %1 ], [ %j, %latch ]
  switch i32 %i, label %latch [
    i32 1, label %one
    i32 -1, label %one
  ]

one:
  br label %latch

latch:
  %j = add i32 %i, 1
  %d = icmp slt i32 %j, %n
  br i1 %d, label %loop, label %out

out:
  ret i32 0
}
"""


def test_parse_blocks_switch_and_unnamed_entry():
    fn = parse_module(SWITCH_IR).functions[0]
    assert fn.params == ["%0", "%n"]
    assert [b.name for b in fn.blocks] == ["1", "loop", "one", "latch", "out"]
    loop = fn.block("loop")
    assert [p.result for p in loop.phis] == ["%i"]
    assert loop.terminator.opcode == "switch"
    assert loop.succs == ["latch", "one", "one"]           # default first, then the cases
    assert fn.block("latch").instrs[1].refs() == ["%j", "%n"]


def test_natural_loop_of_a_switch_loop():
    fn = parse_module(SWITCH_IR).functions[0]
    (lp,) = natural_loops(fn)
    assert lp.header == "loop" and lp.blocks == {"loop", "one", "latch"}
    assert lp.latches == ["latch"] and lp.exits == ["out"]


@pytest.mark.parametrize("opcode, body, cls, sub", [
    ("fadd", "fadd fast float %a, %b", "fp", None),
    ("fdiv", "fdiv double %a, %b", "dp", "div"),
    ("fcmp", "fcmp olt float %a, 0.0", "fp", None),
    ("sitofp", "sitofp i32 %i to double", "dp", None),
    ("fptosi", "fptosi float %x to i32", "fp", None),
    ("select", "select i1 %c, float %a, float %b", "fp", None),
    ("select", "select i1 %c, i32 %a, i32 %b", "int", None),
    ("getelementptr", "getelementptr inbounds float, float* %a, i64 %i", "int", None),
    ("load", "load float, float* %p, align 4", "mem", None),
    ("br", "br label %x", "ctrl", None),
    ("call", "call float @llvm.sqrt.f32(float %x)", "fp", "sqrt"),
    ("call", "call float @llvm.fmuladd.f32(float %a, float %b, float %c)", "fp", "mul"),
    ("call", "call double @pow(double %a, double %b)", "dp", "exp"),
    ("call", "call float @cosf(float %a)", "fp", "sin"),
    ("call", "call i32 @llvm.smax.i32(i32 %a, i32 %b)", "int", None),
    ("call", "call void @llvm.memcpy.p0i8.p0i8.i64(i8* %d, i8* %s, i64 64, i1 false)", "mem", None),
    ("call", "call void @llvm.lifetime.start.p0i8(i64 4, i8* %p)", "skip", None),
    ("bitcast", "bitcast float* %p to i8*", "copy", None),
])
def test_classes(opcode, body, cls, sub):
    kind = classify(opcode, body)
    assert (kind.cls, kind.sub) == (cls, sub)


def test_calls_that_may_run_instrumented_code_end_segments():
    assert classify("call", "call i32 (i8*, ...) @printf(i8* %f)").segment_end
    assert classify("call", "call void %fp(i32 1)").segment_end          # indirect
    assert not classify("call", "call float @expf(float %x)").segment_end
    assert libm_kind("__expf_finite") == ("fp", "exp")


def test_type_sizes():
    assert type_prefix("{ i32, float } %v") == ("{ i32, float }", "%v")
    assert type_size("i1") == 1 and type_size("x86_fp80") == 16
    assert type_size("[3 x double]") == 24
    assert type_size("%struct.p", {"%struct.p": "{ float, float, i64 }"}) == 16


def test_band_line_from_pragma_and_checks(tmp_path):
    src = "int main(void) {\n  int s = 0;\n  #pragma xapp parallel(2)\n  // comment\n  for (int i = 0; i < 4; i++)\n    s++;\n  return s;\n}\n"
    assert band_line_of(src, "k.c") == 5
    assert band_line_of(src, "k.c", band_line=5) == 5
    with pytest.raises(InputError, match="line 2 does not start a loop"):
        band_line_of(src, "k.c", band_line=2)
    with pytest.raises(InputError, match="not a line of the file"):
        band_line_of(src, "k.c", band_line=99)
    with pytest.raises(InputError, match="no `#pragma xapp parallel`"):
        band_line_of("int main(void) { return 0; }\n", "k.c")
    two = src.replace("  return s;", "#pragma xapp parallel\n  for (;;) break;\n  return s;")
    with pytest.raises(InputError, match=r"several .*lines 3, 7"):
        band_line_of(two, "k.c")


@needs_clang
def test_instrument_stream_copy():
    ir = program_ir(CASES / "stream.c")
    module = parse_module(ir)
    ((_, band),) = loops_at_line(module, 15)
    out = instrument_ir(ir, 15, "stream.c")               # parses and verifies with llvmlite
    assert out.band_end_line == 16
    text = out.ir.split("\n")
    header = next(i for i, ln in enumerate(text) if ln.startswith(band.header + ":"))
    assert "@__xapp_region_enter" in "\n".join(text[header:header + 4])
    for exit_block in band.exits:
        at = next(i for i, ln in enumerate(text) if ln.startswith(exit_block + ":"))
        assert "@__xapp_region_exit()" in "\n".join(text[at:at + 6])
    # one address hook per load/store, one segment hook per terminator or code-running call
    assert out.ir.count("call void @__xapp_addr(") == out.counts["memops"]
    assert out.ir.count("call void @__xapp_seg(") == out.counts["segments"]
    assert out.counts["band_copies"] == 1
    assert [b.in_band for b in out.blocks].count(True) == len(band.blocks)
    assert f"const int32_t __xapp_n_memops = {out.counts['memops']};" in out.tables


@needs_clang
def test_pure_function_attributes_are_dropped(tmp_path):
    src = tmp_path / "pure.c"
    src.write_text("__attribute__((noinline)) static int sq(int x) { return x * x; }\n"
                   "int main(int argc, char **argv) {\n  int s = 0;\n#pragma xapp parallel\n"
                   "  for (int i = 0; i < argc * 100; i++)\n    s += sq(i);\n  return s & 1;\n}\n")
    ir = program_ir(src)
    assert "readnone" in ir or "memory(none)" in ir      # clang marks sq pure ...
    out = instrument_ir(ir, 5, str(src))
    attrs = [ln for ln in out.ir.split("\n") if ln.startswith("attributes #")]
    assert not any("readnone" in ln or "memory(" in ln for ln in attrs)   # ... so the hooks in it stay


@needs_clang
def test_no_loop_on_the_line(tmp_path):
    src = tmp_path / "dead.c"
    src.write_text("int main(void) {\n  int s = 0;\n#pragma xapp parallel\n  for (int i = 0; i < 10; i++)\n"
                   "    s += i;\n  return 0;\n}\n")
    with pytest.raises(InputError, match="no loop starting on line 4"):
        instrument_ir(program_ir(src), 4, str(src))


def _for_line(path: Path) -> int:
    return next(i + 1 for i, ln in enumerate(path.read_text().split("\n")) if "for (" in ln)


@needs_clang
def test_header_loop_on_the_band_line_is_not_the_band():
    # hdrloop.h's fill loop and hdrloop.c's band share a line number; only the DIFile of
    # the loop's location separates them (before the fix: 2 band copies, 2 region entries)
    src, header = CASES / "hdrloop.c", CASES / "hdrloop.h"
    band = band_line_of(src.read_text(), str(src))
    assert _for_line(header) == band == _for_line(src)     # the premise of this test
    module = parse_module(program_ir(src))
    assert len(loops_at_line(module, band)) == 1
    assert len([lp for fn in module.functions for lp in natural_loops(fn)]) >= 2  # fill's loop is in the IR
    out = instrument_ir(program_ir(src), band, str(src))
    assert out.counts["band_copies"] == 1 and list(out.loop_headers) == [band]
    run = measure(src, ["4096"])
    assert run.region_entries == 1
    # the stream copy alone: a load and a store per iteration, 7 instructions each
    assert run.counts["mem"] == 2 * 4096 and run.features["ninst"] == 7 * 4096


def test_header_locations_have_no_source_line():
    ir = ('define void @f() {\n  ret void, !dbg !5\n}\n'
          '!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1)\n'
          '!1 = !DIFile(filename: "k.c", directory: "/w")\n'
          '!2 = !DIFile(filename: "k.h", directory: "/w")\n'
          '!3 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1)\n'
          '!4 = distinct !DISubprogram(name: "g", scope: !2, file: !2, line: 1)\n'
          '!5 = !DILocation(line: 8, column: 3, scope: !3)\n'
          '!6 = !DILocation(line: 8, column: 3, scope: !4)\n'
          '!7 = !DILocation(line: 8, column: 3, scope: !4, inlinedAt: !5)\n')
    m = parse_module(ir)
    assert m.line_of(5) == 8
    assert m.line_of(6) is None and m.line_of(7) is None   # k.h's line 8 is not k.c's
    assert m.locations[6].line == 8 and not m.locations[6].main
