"""The kernel builder (tcgen05_lower.builder): docs/python-api.md's example runs as written, gives
the PTX of the same kernel written as MLIR text, and a builder's diagnostics point at the
Python line that built the op."""

import contextlib
import inspect
import io
import re
import runpy
from pathlib import Path

import pytest

from tcgen05_lower.builder import BuilderError, KernelBuilder
from tcgen05_lower.driver import CompileFailed, compile_source

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "gemm_from_python.py"


PAGE = ROOT / "docs" / "python-api.md"


def page_block() -> str:
    section = PAGE.read_text().split("# Building kernels from Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_page_shows_the_example_file_as_it_is():
    assert page_block() == EXAMPLE.read_text()


def test_the_example_runs_and_gives_the_ptx_of_the_mlir_example():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace = runpy.run_path(str(EXAMPLE))
    printed = out.getvalue()
    assert "kernel @gemm_bf16_128x256 strategy=first-fit peak=256 columns" in printed
    assert "%acc    128x256xf32  D       0-127  [0, 256)  [8, 18]  12-18" in printed
    text = (ROOT / "examples" / "gemm_bf16_128x256.mlir").read_text()
    expected = compile_source(text, "gemm.mlir", arch="sm_100a").ptx   # the .mlir kernel's
    assert namespace["result"].ptx == expected
    assert printed.endswith(f"4 MMAs in {len(expected.splitlines())} lines of PTX\n")
    # the page's printed output is this run's
    assert printed.strip() in PAGE.read_text()


def test_a_diagnostic_points_at_the_python_line_that_built_the_op():
    k = KernelBuilder("bad", params={"C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([250, 64], "bf16")
    acc = k.tmem([128, 250], "f32")
    k.mma(acc, a, b, False, kind="f16"); line = __import__("inspect").currentframe().f_lineno
    with pytest.raises(CompileFailed) as failure:
        k.compile()
    (diagnostic,) = failure.value.diagnostics
    assert (diagnostic.filename, diagnostic.line) == (__file__, line)
    assert "N = 250 is not a multiple of 8 for kind::f16" in diagnostic.message


def test_building_after_finish_is_an_error():
    k = KernelBuilder("k")
    k.finish()
    with pytest.raises(RuntimeError, match="the kernel is finished"):
        k.tmem([128, 32], "f32")


def here() -> int:
    """The line of the caller (the builder call on the same line)."""
    return inspect.currentframe().f_back.f_lineno


PTRS = {"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"}


def test_parameters_keep_their_names_in_the_text_and_the_manifest():
    k = KernelBuilder("named", params=PTRS)
    acc = k.tmem([128, 32], "f32")
    k.store_fragment(k.ld(acc, 0, 32), "C", 0, ld=32)
    text = k.text()
    assert re.search(r"func\.func @named\(%A: !llvm\.ptr<1>[^,]*, %B: [^,]*, %C: ", text)
    assert "%arg0" not in text
    # the names given to KernelBuilder(params=...)
    names = [p["name"] for p in k.compile(arch="sm_100a").manifest["params"]]
    assert names == ["A", "B", "C"]


# The worked example's tile with a store loop that carries its column (iter_args) and two scf.if
# (one with results); the expected PTX is that of the same kernel written by hand.
CARRIED_MLIR = """
func.func @carried(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c224 = arith.constant 224 : index
  %c256 = arith.constant 256 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %end = scf.for %i = %c0 to %c8 step %c1 iter_args(%col = %c0) -> (index) {
    %inside = arith.cmpi ult, %col, %c256 : index
    scf.if %inside {
      %frag = "tcgen05.ld"(%acc, %col)
          : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
          : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
    }
    %last = arith.cmpi eq, %col, %c224 : index
    %next = scf.if %last -> (index) {
      scf.yield %c0 : index
    } else {
      %n = arith.addi %col, %c32 : index
      scf.yield %n : index
    }
    scf.yield %next : index
  }
  return
}
"""


def test_iter_args_if_and_the_generic_op_give_the_ptx_of_the_hand_written_kernel():
    k = KernelBuilder("carried", params=PTRS)
    for value in (0, 1, 8, 32, 224, 256):
        k.constant(value)
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    # the fills through the escape hatch, the attributes as Python values
    k.op("tcgen05.smem_fill", [k.arg("A"), a, 0], {"src_layout": "mn_k", "src_ld": 64})
    k.op("tcgen05.smem_fill", [k.arg("B"), b, 0], {"src_layout": "k_mn", "src_ld": 256})
    k.mma(acc, a, b, False, kind="f16", k_offset=0)
    with k.loop(0, 8, 1, iter_args=[0]) as loop:
        (col,) = loop.args
        with k.if_(k.cmp("ult", col, 256)):
            k.store_fragment(k.ld(acc, col, 32), "C", col, ld=256)
        with k.if_(k.cmp("eq", col, 224), result_types=["index"]) as last:
            k.yield_(0)
            with last.else_():
                k.yield_(k.add(col, 32))
        k.yield_(*last.results)
    assert len(loop.results) == 1
    expected = compile_source(CARRIED_MLIR, "carried.mlir", arch="sm_100a").ptx
    assert k.compile(arch="sm_100a").ptx == expected


def test_the_insertion_point_is_public():
    # an op built with the upstream bindings at the builder's insertion point goes into
    # the loop body, at this line
    from tcgen05_lower.bindings import arith

    k = KernelBuilder("k", params=PTRS)
    with k.loop(0, 64, 32) as i:
        assert k.block.arguments[0] == i
        line = here() + 1  # k.location(): the line that asks for it
        with k.context, k.location(), k.insertion_point():
            arith.MaxUIOp(i, k.constant(16))
    assert k.block == k.entry
    text = k.text()
    body = text[text.index("scf.for"):text.index("return")]
    number = re.search(r"arith\.maxui %arg3, %c16 : index loc\(#loc(\d+)\)", body).group(1)
    assert f'#loc{number} = loc("{__file__}":{line}:1)' in text


def test_a_role_outside_the_cta_is_an_error_at_the_builder_line():
    k = KernelBuilder("roles", params=PTRS, threads=128)
    line = here() + 2  # the role's line
    with pytest.raises(BuilderError) as failure:
        with k.role("epilogue", first_warp=4, warps=4):
            pass
    assert str(failure.value).startswith(f"{__file__}:{line}: role 'epilogue' has warps 4..7,"
                                         " outside the CTA's warps 0..3")


def test_wrong_operand_types_are_an_error_at_the_builder_line():
    k = KernelBuilder("types", params=PTRS)
    a = k.smem([128, 64], "bf16")
    acc = k.tmem([128, 64], "f32")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.mma(a, a, a, False, kind="f16")
    assert str(failure.value) == (
        f"{__file__}:{line}: operand D must be a !tcgen05.tmem value, not "
        "!tcgen05.smem<[128, 64], bf16, \"K\", \"128B\">")
    with pytest.raises(BuilderError, match=rf"^{re.escape(__file__)}:\d+: operand B must be"):
        k.mma(acc, a, acc, False, kind="f16")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.add(k.constant(1), k.constant(True, "i1"))
    assert str(failure.value).startswith(f"{__file__}:{line}: arith.addi of index and i1")


def test_an_op_built_through_the_escape_hatch_gets_the_diagnostic_at_its_line():
    # the compiler's own check (tcgen05-verify: the fence kind), located at the Python line
    k = KernelBuilder("fence", params=PTRS)
    k.op("tcgen05.fence", attributes={"kind": "sideways"}); line = here()  # noqa: E702
    with pytest.raises(CompileFailed) as failure:
        k.compile()
    (diagnostic,) = failure.value.diagnostics
    assert (diagnostic.filename, diagnostic.line) == (__file__, line)
    assert "sideways" in diagnostic.message


def test_the_plan_report_names_the_python_lines_of_a_live_range_that_ends_in_a_loop():
    # The accumulator lives from its tmem_buffer to the end of the store loop, whose
    # terminator the parser places at the loop's closing brace in the printed text; the
    # report names the loop body's last op (the store), in this file, not that text's line.
    from tcgen05_lower.planning.report import format_table

    k = KernelBuilder("report", params=PTRS)
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc"); first = here()  # noqa: E702
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=256)
    k.mma(acc, a, b, False, kind="f16")
    with k.loop(0, 256, 32) as column:
        fragment = k.ld(acc, column, 32)


        k.store_fragment(fragment, "C", column, ld=256); last = here()  # noqa: E702
    result = k.compile(arch="sm_100a")
    plan = next(r for r in result.pass_results if r.name == "tcgen05-plan-tmem").plans[0]
    (row,) = [line for line in format_table(plan).splitlines() if "%acc" in line]
    assert row.endswith(f"  {first}-{last}")


def test_report_lines_of_two_files_are_never_one_range():
    from tcgen05_lower.planning.report import _lines

    assert _lines("gemm.py:29:1", "<builder gemm>:28:5") == "gemm.py:29-<builder gemm>:28"
    assert _lines("gemm.mlir:12:3", "gemm.mlir:30:5") == "12-30"


def test_index_arithmetic_builds_the_arith_ops():
    # the expected lines are MLIR's arith syntax (ArithOps.td): op, operands, type
    k = KernelBuilder("arith", params=PTRS)
    with k.loop(0, 8, 1) as i:
        k.div(k.mul(k.add(k.sub(i, 1), 2), 32), 4)
        k.rem(i, 3)
    text = k.text()
    for line in ("arith.subi %arg3, %c1 : index", "arith.addi %0, %c2 : index",
                 "arith.muli %1, %c32 : index", "arith.divui %2, %c4 : index",
                 "arith.remui %arg3, %c3 : index"):
        assert line in text


def test_consecutive_roles_share_one_partitions_op_and_an_op_between_starts_another():
    k = KernelBuilder("roles", params=PTRS, threads=256)
    for name, first in (("a", 0), ("b", 1)):
        with k.role(name, first_warp=first, warps=1):
            pass
    k.constant(0)  # constants go to the kernel's start: the roles stay consecutive
    with k.role("c", first_warp=4, warps=4):
        pass
    k.op("tcgen05.fence", attributes={"kind": "before_thread_sync"})
    with k.role("d", first_warp=4, warps=4):
        pass
    text = k.text()
    assert text.count('"tcgen05.partitions"') == 2
    assert text.count('"tcgen05.role"') == 4
    assert text.index('name = "c"') < text.index('"tcgen05.fence"') < text.index('name = "d"')
