"""Cross-checks of the static analysis against independent tools.

* LLVM's own scalar evolution (``opt -passes='print<scalar-evolution>'``, opt 14 at
  /usr/bin/opt) must agree with our constant trip counts and with the per-iteration
  stride of every address along the innermost band loop.
* The two clang routes (a system clang and ``python -m ziglang cc``) must give the same
  features.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from starchart.xapp import toolchain
from starchart.xapp.affine import Dependences
from starchart.xapp.ir import STATIC_IR_FLAGS, band_function
from starchart.xapp.loops import find_loops, reverse_postorder
from starchart.xapp.pragmas import scan_pragmas
from starchart.xapp.static import _band_loops, _choose_band, static_features

CASES = Path(__file__).parent / "cases"
SCEV_CASES = ["streaming", "strided", "band_step2", "transpose", "matadd2d", "inner_reduction", "pragma_trip",
              "branch_thread", "math_mix", "fig42", "aos_struct", "triangular", "while_and", "trip_forms"]
OPT = "/usr/bin/opt"


def _scev(ir: str, tmp_path: Path) -> str:
    if not os.access(OPT, os.X_OK):
        pytest.skip(f"{OPT} is not installed (apt-get install llvm-14): no scalar-evolution cross-check")
    path = tmp_path / "k.ll"
    path.write_text(ir)
    proc = subprocess.run([OPT, "-passes=sroa,print<scalar-evolution>", "-disable-output", str(path)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.skip(f"{OPT} cannot read this clang's IR ({proc.stderr.strip()[:120]}): "
                    "the cross-check needs a clang no newer than opt")
    return proc.stderr + proc.stdout


def _addrec_step(expr: str, header: str) -> str | None:
    """The step of the add-recurrence over loop ``header`` in a SCEV expression, or None."""
    at = expr.find(f"<%{header}>")
    while at >= 0:
        close = at - 1
        while expr[close] == ">":  # skip flags such as <nuw><nsw>
            close = expr.rindex("<", 0, close)
            close -= 1
        if expr[close] == "}":
            depth, k = 0, close
            while True:
                depth += {"}": 1, "{": -1}.get(expr[k], 0)
                if depth == 0:
                    break
                k -= 1
            body, depth, parts, start = expr[k + 1:close], 0, [], 0
            for j, ch in enumerate(body):
                depth += {"{": 1, "(": 1, "}": -1, ")": -1}.get(ch, 0)
                if depth == 0 and body.startswith(",+,", j):
                    parts.append(body[start:j])
                    start = j + 3
            parts.append(body[start:])
            return parts[-1]
        at = expr.find(f"<%{header}>", at + 1)
    return None


def _parse_scev(text: str) -> tuple[dict[str, tuple[str, str]], dict[str, int | None]]:
    values, counts = {}, {}
    lines = text.splitlines()
    for k, line in enumerate(lines[:-1]):
        m = re.match(r"\s+%([\w.]+) = ", line)
        if m and lines[k + 1].lstrip().startswith("-->"):
            values[m.group(1)] = (lines[k + 1].split("-->", 1)[1].split(" U: ")[0].strip(), lines[k + 1])
    for m in re.finditer(r"^Loop %([\w.]+): backedge-taken count is (.+)$", text, re.M):
        counts[m.group(1)] = int(m.group(2)) if re.fullmatch(r"-?\d+", m.group(2).strip()) else None
    return values, counts


@pytest.mark.parametrize("name", SCEV_CASES)
def test_trip_counts_and_strides_match_scalar_evolution(name: str, tmp_path: Path):
    source = CASES / f"{name}.c"
    ir = toolchain.compile_to_ir(source, flags=STATIC_IR_FLAGS)
    values, counts = _parse_scev(_scev(ir, tmp_path))
    text = source.read_text()
    line, depth = _choose_band(scan_pragmas(text, str(source)), None, str(source))
    fn = band_function(ir, line, str(source))
    forest = find_loops(fn)
    band = _band_loops(fn, forest, line, depth, str(source))
    region = set(forest.loops[band[0]].blocks)
    checked = 0
    for loop in forest.loops:
        header = fn.blocks[loop.header].name
        btc = counts.get(header)
        if loop.const_trip is not None or btc is not None:
            by_header_test = loop.controlling == [loop.header]
            assert btc is not None and loop.const_trip == btc + (0 if by_header_test else 1), (header, btc, loop)
            checked += 1
    deps = Dependences(fn, forest, reverse_postorder(fn))
    signature = re.search(rf"^define [^\n]*@{fn.name}\((.*)\)", ir, re.M).group(1)
    arguments = set(re.findall(r"%([\w.]+)", signature))
    innermost = forest.loops[band[-1]]
    inner_header = fn.blocks[innermost.header].name
    for b in region:
        for k in fn.blocks[b].insts:
            inst = fn.insts[k]
            if inst.opcode not in ("load", "store"):
                continue
            pointer = inst.ops[1] if inst.opcode == "store" else inst.ops[0]
            if pointer.kind != "inst" or fn.insts[pointer.ref].name not in values:
                continue
            expr, full = values[fn.insts[pointer.ref].name]
            ours = deps.affine(pointer, inst.block)
            step = _addrec_step(expr, inner_header)
            if step is not None and re.fullmatch(r"-?\d+", step):
                assert ours.coefficient(innermost.index) == Fraction(int(step)), (inst.text, expr)
            elif step is not None:  # a symbolic stride, e.g. (4 * %n)
                assert ours.terms.get(innermost.index, 0) is None, (inst.text, expr)
            elif f"%{inner_header}: Invariant" in full or set(re.findall(r"(?<!<)%([\w.]+)", expr)) <= arguments:
                # invariant in the loop, or built from arguments and other loops' recurrences only
                assert not ours.depends_on(innermost.index), (inst.text, expr)
            else:  # varies, but not as an add-recurrence: not affine for us either
                assert ours.coefficient(innermost.index) is None, (inst.text, expr)
            checked += 1
    assert checked > 0


def test_addrec_step_parser():
    expr = "{{%a,+,64}<nuw><%for.cond>,+,4}<nw><%for.cond1>"
    assert _addrec_step(expr, "for.cond") == "64"
    assert _addrec_step(expr, "for.cond1") == "4"
    assert _addrec_step("{{%out,+,4}<%i>,+,(4 * %n)}<%j>", "j") == "(4 * %n)"
    assert _addrec_step("(4 + %a)", "for.cond") is None


ROUTE_CASES = ["streaming", "transpose", "fig42", "math_mix", "pragma_prob"]


@pytest.fixture
def zig_clang(tmp_path: Path, monkeypatch):
    """STARCHART_CLANG pointing at a one-line wrapper around ``python -m ziglang cc``."""
    pytest.importorskip("ziglang", reason="the ziglang wheel is not installed: only one clang route to compare")
    if not (shutil.which("clang") or any(Path(d).glob("clang-[0-9]*") for d in os.environ.get("PATH", "").split(os.pathsep)
                                         if os.path.isdir(d))):
        pytest.skip("no system clang: only the ziglang route is available")
    wrapper = tmp_path / "zig-cc"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ziglang cc "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    toolchain.clang_command.cache_clear()
    monkeypatch.delenv("STARCHART_CLANG", raising=False)
    yield wrapper
    toolchain.clang_command.cache_clear()


def test_both_clang_routes_give_the_same_features(zig_clang: Path, monkeypatch):
    system = {name: static_features(CASES / f"{name}.c") for name in ROUTE_CASES}
    assert toolchain.clang_command() != (str(zig_clang),)
    monkeypatch.setenv("STARCHART_CLANG", str(zig_clang))
    toolchain.clang_command.cache_clear()
    assert toolchain.clang_command() == (str(zig_clang),)
    for name in ROUTE_CASES:
        assert static_features(CASES / f"{name}.c") == pytest.approx(system[name], rel=1e-12), name
