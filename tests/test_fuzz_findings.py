"""Regression tests for what the mutation fuzzer (tests/fuzz, benchmarks/fuzz) found: each
input, written small, gives a located error that names the rule and the value (or, for a
renamed target, PTX that ptxas accepts), never an internal error or a dead process.

Inputs that used to abort the process run in a child process, so that a regression fails
this test instead of killing the test run."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import requires_ptxas
from tcgen05_lower import backend
from tcgen05_lower.driver import CompileFailed, compile_source

KERNEL = ('func.func @k({args}) attributes {{tcgen05.kernel = {{target = "sm_100a", '
          'threads = 128 : i64, cta_group = 1 : i64}}}} {{\n{body}\n  return\n}}\n')
ACC = "!tcgen05.tmem<[128, 64], f32>"
TA = '!tcgen05.smem<[128, 16], bf16, "K", "none">'
TB = '!tcgen05.smem<[64, 16], bf16, "K", "none">'


def kernel(body: str, args: str = "") -> str:
    return KERNEL.format(args=args, body=body)


def planned(buffer_attrs: str, base: str = "%base") -> str:
    """A hand-written planned kernel: one allocation, one buffer, one MMA."""
    return kernel(
        '  %f = arith.constant false\n'
        '  %zero = arith.constant 0 : i32\n'
        '  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32\n'
        f'  %a = "tcgen05.smem_buffer"() : () -> {TA}\n'
        f'  %b = "tcgen05.smem_buffer"() : () -> {TB}\n'
        f'  %acc = "tcgen05.tmem_buffer"({base}) {{{buffer_attrs}}} : (i32) -> {ACC}\n'
        f'  "tcgen05.mma"(%acc, %a, %b, %f) {{kind = "f16"}} : ({ACC}, {TA}, {TB}, i1) -> ()')


PLACED = 'columns = 64 : i64, half_lanes = false, layout = "D"'

LOCATED = [
    # Planned IR written by hand (issue 25): a missing offset was a TypeError in the
    # lowering, a huge lane offset an i32 constant overflow, a base that is no alloc
    # result a KeyError.
    ("missing lane_offset", planned(f"column_offset = 0 : i64, {PLACED}"), 7,
     "a planned tcgen05.tmem_buffer needs lane_offset (written by tcgen05-plan-tmem)"),
    ("lane_offset 2^61", planned(f"column_offset = 0 : i64, lane_offset = "
                                 f"2305843009213693952 : i64, {PLACED}"), 7,
     "lane_offset = 2305843009213693952 is not a lane offset of tensor memory"),
    ("base not an alloc result", planned(f"column_offset = 0 : i64, lane_offset = 0 : i64, "
                                         f"{PLACED}", base="%zero"), 7,
     "a planned tcgen05.tmem_buffer takes the result of a tcgen05.alloc as its base"),
    # mbarrier.init counts from 1: a count of 0 was a ZeroDivisionError in verify-sync.
    ("mbarrier count 0", kernel(
        '  %bar = "tcgen05.alloc_mbarrier"() {count = 0 : i64} : () -> !tcgen05.mbarrier'), 2,
     "alloc_mbarrier count = 0 is outside [1, 1048575]"),
    # A type parameter with unbalanced brackets was a ValueError in tcgen05-verify.
    ("unbalanced brackets", kernel(
        '  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128(">'),
     2, 'unbalanced brackets'),
    # tcgen05.cp from a 128B-with-32B-atomicity tile was a KeyError in the lowering.
    ("cp from 128B_base32B", kernel(
        '  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], bf16, "K", '
        '"128B_base32B">\n'
        '  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f32>\n'
        '  "tcgen05.cp"(%t, %s) {shape = "128x256b"} : (!tcgen05.tmem<[128, 8], f32>, '
        '!tcgen05.smem<[128, 16], bf16, "K", "128B_base32B">) -> ()'), 4,
     "tcgen05.cp from a tile with 128-byte swizzling of 32-byte atomicity is not supported "
     "yet"),
    # A dealloc of a value that is no alloc result was a KeyError in the lowering.
    ("dealloc of a constant", kernel(
        '  %p1 = arith.constant 1 : i32\n'
        '  "tcgen05.dealloc"(%p1) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()'),
     3, "tcgen05.dealloc frees the address a tcgen05.alloc returned"),
    # A function (not a kernel) whose name PTX cannot spell: ptxas rejected `.func b.ranch`.
    ("function name with a dot", "func.func @b.ranch() {\n  return\n}\n", 1,
     "function name @b.ranch is not a PTX identifier"),
]


@pytest.mark.parametrize("name, text, line, message", LOCATED, ids=[x[0] for x in LOCATED])
def test_located_error(name, text, line, message):
    with pytest.raises(CompileFailed) as failure:
        compile_source(text, "f.mlir")
    diagnostics = failure.value.diagnostics
    assert not [x for x in diagnostics if "internal error" in x.message], diagnostics
    assert any(x.line == line and message in x.message for x in diagnostics), \
        [x.format() for x in diagnostics]


ABORTED = [
    # An integer attribute past 64 bits (i641): IntegerAttr.value is an APInt assertion.
    ("integer of 641 bits", KERNEL.replace("threads = 128 : i64",
                                           "threads = 18446744073709551616 : i641")
     .format(args="", body=""), 1, "threads = 18446744073709551616: this version lowers"),
    # LLVM ERROR: operation destroyed but still has uses (the lowering erased an mbarrier
    # that an scf.if still yielded).
    ("mbarrier through scf.if", kernel(
        '  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier\n'
        '  %bar2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier\n'
        '  %mb = scf.if %flag -> (!tcgen05.mbarrier) {\n'
        '    scf.yield %bar : !tcgen05.mbarrier\n'
        '  } else {\n'
        '    scf.yield %bar2 : !tcgen05.mbarrier\n'
        '  }', args="%flag: i1"), 5,
     "scf.yield takes the !tcgen05.mbarrier made by tcgen05.alloc_mbarrier: only TMEM "
     "buffers may flow through selects, branches and loops"),
    # An assertion in the bindings on a type followed by blanks and a dot.
    ("type, blank, dot", "!a = i32\n!b = !tcgen05.tmem<[128, 16], bf16> .\n", 2,
     "unexpected '.' after a type"),
    # LLVM's DenseMap asserts on its empty and tombstone keys, an scf.index_switch case of
    # 2^63 - 1 or 2^63 - 2.
    *[(f"index_switch case {value}", kernel(
        f'  scf.index_switch %sel\n  case {value} {{\n    scf.yield\n  }}\n'
        '  default {\n    scf.yield\n  }', args="%sel: index"), 3,
       f"scf.index_switch case value {value} is the empty or tombstone key")
      for value in (2 ** 63 - 1, 2 ** 63 - 2)],
]


@pytest.mark.parametrize("name, text, line, message", ABORTED, ids=[x[0] for x in ABORTED])
def test_input_that_aborted_the_process_is_a_located_error(tmp_path, name, text, line,
                                                           message):
    source = tmp_path / "f.mlir"
    source.write_text(text)
    proc = subprocess.run([str(Path(sys.executable).parent / "tcgen05-lower"), str(source)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert f"{source}:{line}:" in proc.stderr and message in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


@requires_ptxas
def test_a_renamed_target_compiles_for_its_new_name():
    """ptxas from CUDA 13 knows no sm_101f ("Value 'sm_101f' is not defined for option
    'gpu-name'"): sm_101a / sm_101f are sm_110a / sm_110f from PTX ISA 9.0 (9.7.16 Target
    ISA Notes), so the driver compiles for the new name and says so."""
    text = ('func.func @k() attributes {tcgen05.kernel = {target = "sm_101f", '
            'threads = 128 : i64, cta_group = 1 : i64}} {\n  return\n}\n')
    result = compile_source(text, "k.mlir")
    assert ".target sm_110f" in result.ptx.splitlines()
    (warning,) = [x for x in result.diagnostics if x.severity == "warning"]
    assert warning.line == 1 and "target sm_101f is called sm_110f from PTX ISA 9.0" in \
        warning.message
    assert backend.run_ptxas(result.ptx, arch=result.target).ok


ABORTED_TOO = [
    # A string left open at the end of its line: unhandled captured errors (an assertion).
    ("unterminated string", kernel('  "tcgen'), 2, "unterminated string"),
    # "tcgen05."(...): "created with unregistered dialect", a fatal LLVM error.
    ("op name without op", kernel('  %x = "tcgen05."() : () -> i32'), 2,
     'op name "tcgen05." names no op after the dialect \'tcgen05\''),
    # An unreachable block: lift-cf-to-scf asserts ("Cannot destroy a value that still
    # has uses").
    ("unreachable block", KERNEL.format(
        args="%flag: i1", body="  cf.br ^bb2\n^bb1:\n  cf.cond_br %flag, ^bb1, ^bb2\n^bb2:")
        .replace("\n  return\n}", "\n  return\n}"), 4,
     "this block of @k is unreachable from its entry"),
]


@pytest.mark.parametrize("name, text, line, message", ABORTED_TOO,
                         ids=[x[0] for x in ABORTED_TOO])
@pytest.mark.parametrize("tool_args", [["tcgen05-lower"], ["tcgen05-opt", "-p", "lift-cf-to-scf"]],
                         ids=["lower", "opt"])
def test_more_input_that_aborted_is_refused_by_both_tools(tmp_path, tool_args, name, text,
                                                           line, message):
    source = tmp_path / "f.mlir"
    source.write_text(text)
    executable = str(Path(sys.executable).parent / tool_args[0])
    proc = subprocess.run([executable, str(source), *tool_args[1:]], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert f"{source}:{line}:" in proc.stderr and message in proc.stderr, proc.stderr
