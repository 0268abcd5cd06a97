"""Bad input to the kernel builder (issue 40, acceptance bullet 3): a call the kernel
cannot take is a BuilderError whose message starts with the ``file:line`` of the builder
call (this file's line, computed with inspect), and what only the compiler can judge is
the located diagnostic the same kernel written as MLIR text gets, at the Python line that
built the op. The expected messages are the builder's rules as docs/python-api.md states
them and, for the compiler's, the diagnostic of the hand-written .mlir text."""

import inspect

import pytest

from tcgen05_lower.builder import BuilderError, KernelBuilder, tensor_map
from tcgen05_lower.driver import CompileFailed, compile_source

PTRS = {"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"}
SMEM = '!tcgen05.smem<[128, 64], bf16, "K", "128B">'


def here() -> int:
    return inspect.currentframe().f_back.f_lineno


def raised_at(failure, line: int) -> str:
    """The message of a BuilderError after its ``file:line: `` prefix, which must name
    `line` of this file."""
    message = str(failure.value)
    prefix = f"{__file__}:{line}: "
    assert message.startswith(prefix), message
    return message[len(prefix):]


def test_a_tma_load_into_tmem_is_an_error_at_the_call():
    k = KernelBuilder("tma", params={**PTRS, "tmA": tensor_map("A", box=[64, 128])})
    acc = k.tmem([128, 64], "f32")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.tma_load("tmA", acc, [0, 0])
    assert raised_at(failure, line) == ("operand tile must be a !tcgen05.smem value, not "
                                        "!tcgen05.tmem<[128, 64], f32>")


def test_waiting_on_a_tile_instead_of_an_mbarrier_is_an_error_at_the_call():
    k = KernelBuilder("wait", params=PTRS)
    a = k.smem([128, 64], "bf16")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.mbarrier_wait(a, 0)
    assert raised_at(failure, line) == (f"operand barrier must be a !tcgen05.mbarrier value,"
                                        f" not {SMEM}")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.commit("C")
    assert raised_at(failure, line).startswith("operand barrier must be a !tcgen05.mbarrier "
                                               "value, not str")


def test_a_stage_of_a_tile_that_is_not_a_ring_is_an_error_at_the_call():
    k = KernelBuilder("stage", params=PTRS)
    a = k.smem([128, 64], "bf16")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.stage(a, 1)
    assert raised_at(failure, line) == f"smem_stage of {SMEM}: not a [stages, rows, K] tile"


def test_an_i32_size_where_an_index_is_needed_is_an_error_at_the_call():
    # A run-time extent must be an index: the i32 parameter needs k.size("M") first.
    k = KernelBuilder("dims", params={**PTRS, "M": "i32"})
    a = k.smem([128, 64], "bf16")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.fill("A", a, src_layout="mn_k", src_ld=64, rows=k.arg("M"))
    assert raised_at(failure, line) == ("rows must be an int or an index value, not a value "
                                        "of type i32 (k.size() makes an i32 size an index)")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.fill("A", a, src_layout="mn_k")
    assert raised_at(failure, line) == "smem_fill needs src_ld (an int or an index value)"


def test_a_frag_map_body_of_the_wrong_type_is_an_error_at_the_frag_map_call():
    k = KernelBuilder("map", params=PTRS)
    acc = k.tmem([128, 64], "f32")
    frag = k.ld(acc, 0, 32)
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.frag_map(lambda x, row, c: k.mul(x, 2.0), frag, element="bf16")
    assert raised_at(failure, line).startswith("the frag_map body returned")
    assert raised_at(failure, line).endswith("it must return a bf16 value (the element type "
                                             "of the result)")


def test_arithmetic_of_an_index_and_a_float_is_an_error_at_the_line_in_the_body():
    k = KernelBuilder("mix", params=PTRS)
    frag = k.ld(k.tmem([128, 64], "f32"), 0, 32)

    def body(x, row, c):
        return k.add(x, c)  # f32 + index

    line = body.__code__.co_firstlineno + 1
    with pytest.raises(BuilderError) as failure:
        k.frag_map(body, frag)
    assert raised_at(failure, line) == ("arith.addi of f32 and index: the operands must "
                                        "have one type")


def test_a_role_outside_a_256_thread_cta_is_an_error_at_the_with_line():
    k = KernelBuilder("roles", params=PTRS, threads=256)
    with k.role("load", first_warp=0, warps=1):
        pass
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        with k.role("epilogue", first_warp=6, warps=4):
            pass
    assert raised_at(failure, line) == ("role 'epilogue' has warps 6..9, outside the CTA's "
                                        "warps 0..7 (threads = 256)")


def test_a_wrong_tensor_map_box_gets_the_diagnostic_of_the_mlir_text_at_the_python_line():
    # The box [64, 64] does not cover the [128, 64] tile: tcgen05-verify's rule, which the
    # same kernel written as MLIR text gets at its tma_load line.
    k = KernelBuilder("tma_box", params={"A": "!llvm.ptr<1>",
                                         "tmA": tensor_map("A", box=[64, 64])})
    a = k.smem([128, 64], "bf16")
    full = k.mbarrier()
    k.mbarrier_expect_tx(full)
    line = here() + 1
    k.tma_load("tmA", a, [0, 0], barrier=full)
    k.mbarrier_wait(full)
    with pytest.raises(CompileFailed) as built:
        k.compile()
    text = """
func.func @tma_box(%A: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0)
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier,
         index, index) -> ()
  "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
  return
}
"""
    with pytest.raises(CompileFailed) as written:
        compile_source(text, "tma_box.mlir")
    (from_python,), (from_text,) = built.value.diagnostics, written.value.diagnostics
    assert (from_python.filename, from_python.line) == (__file__, line)
    assert (from_text.filename, from_text.line) == ("tma_box.mlir", 10)
    assert from_python.message == from_text.message
    assert "box [64, 64]" in from_python.message


def test_a_python_number_where_a_value_is_needed_is_an_error_at_the_call():
    k = KernelBuilder("numbers", params=PTRS)
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.convert(1.5, "bf16")
    assert raised_at(failure, line) == ("convert of 1.5: an MLIR value (a builder call's "
                                        "result or a parameter) is needed")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.index_cast(k.constant(4), "index")
    assert raised_at(failure, line) == "index_cast of index to index: one side must be index"


# -- an op with the wrong operand types -----------------------------------------------------
def test_an_mma_whose_d_is_a_shared_memory_tile_is_an_error_at_the_call():
    # D must be in TMEM (9.7.16.10: the accumulator is a tensor-memory address).
    k = KernelBuilder("mma_d", params=PTRS)
    a = k.smem([128, 64], "bf16")
    b = k.smem([64, 64], "bf16")
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.mma(a, a, b, False, kind="f16")
    assert raised_at(failure, line) == f"operand D must be a !tcgen05.tmem value, not {SMEM}"


@pytest.mark.parametrize("enable, shown", [
    (1.0, "float 1.0"),
    ("index", "a value of type index")])
def test_an_mma_enable_input_d_that_is_not_a_predicate_is_an_error_at_the_call(enable,
                                                                              shown):
    # enable_input_d is the MMA's predicate operand (i1 in the IRDL file): a float used to
    # escape as a TypeError of the bindings, an index value as a compile error.
    k = KernelBuilder("mma_enable", params=PTRS)
    a = k.smem([128, 64], "bf16")
    b = k.smem([64, 64], "bf16")
    acc = k.tmem([128, 64], "f32")
    enable = k.constant(0) if enable == "index" else enable
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        k.mma(acc, a, b, enable, kind="f16")
    assert raised_at(failure, line) == (f"operand enable_input_d must be a bool or an i1 "
                                        f"value, not {shown}")


def test_a_generic_op_with_the_wrong_operand_types_gets_the_diagnostic_of_the_mlir_text():
    # k.op builds whatever it is given; the IRDL verifier judges it at compile time, at the
    # Python line, with the message the same op written as MLIR text gets at its line.
    k = KernelBuilder("generic", params=PTRS)
    a = k.smem([128, 64], "bf16")
    b = k.smem([64, 64], "bf16")
    enable = k.cmp("ne", k.constant(0), 0)
    line = here() + 1
    k.op("tcgen05.mma", [a, a, b, enable], {"kind": "f16"})
    with pytest.raises(CompileFailed) as built:
        k.compile()
    text = f"""
func.func @generic(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}}}} {{
  %a = "tcgen05.smem_buffer"() : () -> {SMEM}
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %true = arith.constant true
  "tcgen05.mma"(%a, %a, %b, %true) {{kind = "f16"}}
      : ({SMEM}, {SMEM}, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}}
"""
    with pytest.raises(CompileFailed) as written:
        compile_source(text, "generic.mlir")
    (from_python,), (from_text,) = built.value.diagnostics[:1], written.value.diagnostics[:1]
    assert (from_python.filename, from_python.line) == (__file__, line)
    assert (from_text.filename, from_text.line) == ("generic.mlir", 7)
    assert from_python.message == from_text.message
    assert "tcgen05.tmem" in from_python.message


# -- a role outside the CTA -----------------------------------------------------------------
@pytest.mark.parametrize("first_warp, warps, message", [
    # warps 0..7 of 256 threads (32 threads a warp)
    (-1, 1, "role 'r' has warps -1..-1, outside the CTA's warps 0..7 (threads = 256)"),
    (8, 1, "role 'r' has warps 8..8, outside the CTA's warps 0..7 (threads = 256)"),
    (0, 0, "role 'r' has warps = 0: a role runs on at least one warp")])
def test_a_role_before_after_or_without_the_ctas_warps_is_an_error_at_the_with_line(
        first_warp, warps, message):
    k = KernelBuilder("roles", params=PTRS, threads=256)
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        with k.role("r", first_warp=first_warp, warps=warps):
            pass
    assert raised_at(failure, line) == message


def test_a_role_counts_the_warps_of_one_cta_of_a_pair():
    # In a cta_group::2 kernel each CTA of the pair runs `threads` threads (128: warps
    # 0..3); a role is the program of warps of each CTA, not of the pair's 8 warps.
    k = KernelBuilder("pair_roles", params=PTRS, threads=128, cta_group=2)
    with pytest.raises(BuilderError) as failure:
        line = here() + 1
        with k.role("epilogue", first_warp=2, warps=4):
            pass
    assert raised_at(failure, line) == ("role 'epilogue' has warps 2..5, outside the CTA's "
                                        "warps 0..3 (threads = 128)")
