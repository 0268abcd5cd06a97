"""The driver's guards before LLVM translation: target names normalised once, and tcgen05
ops or types that no kernel lowers refused with located errors (they used to crash the C++
translation with SIGSEGV)."""

from pathlib import Path

import pytest

from tcgen05_lower.driver import CompileFailed, compile_source

ROOT = Path(__file__).resolve().parents[1]
PAIR_FORM = (ROOT / "lit_tests" / "forms" / "cta-group-2.mlir").read_text()


def test_kernel_target_spelled_in_upper_case_reaches_llvm_normalised():
    text = PAIR_FORM.replace('"sm_100a"', '"SM_100A"')
    assert '"SM_100A"' in text
    result = compile_source(text, "pair.mlir")
    assert ".target sm_100a" in result.ptx.splitlines()


@pytest.mark.parametrize("attribute", ["tcgen45.kernel", "tcgen05.kxrnel", None])
def test_tcgen05_op_outside_a_kernel_is_a_located_error(attribute):
    attrs = "" if attribute is None else (
        f' attributes {{{attribute} = {{target = "sm_100a", threads = 128 : i64}}}}')
    text = (f"func.func @f(){attrs} {{\n"
            '  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>\n'
            "  return\n}\n")
    for emit in ("mlir", "ptx"):
        with pytest.raises(CompileFailed) as failure:
            compile_source(text, "f.mlir", emit=emit)
        (diagnostic,) = failure.value.diagnostics
        assert (diagnostic.filename, diagnostic.line) == ("f.mlir", 2)
        assert "outside a kernel" in diagnostic.message
        assert "tcgen05.kernel = {target" in diagnostic.message


GEMM = (ROOT / "examples" / "gemm_bf16_128x256.mlir").read_text()
KERNEL_DICT = '{target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}'


@pytest.mark.parametrize("replacement, line, message", [
    # The kernel dictionary is read by the driver (its target) before any pass runs.
    ('"sm_100a"', 9, 'tcgen05.kernel = "sm_100a" must be a dictionary such as {target = '),
    ('{target = 16 : index, threads = 128 : i64}', 9,
     "attribute tcgen05.kernel.target = 16 : index must be a string"),
    ('{target = "sm_100a", threads = "K "}', 9,
     'attribute tcgen05.kernel.threads = "K " must be an integer'),
    ('{target = "sm_100a", cta_group = "16"}', 9,
     'attribute tcgen05.kernel.cta_group = "16" must be an integer'),
])
def test_a_kernel_dictionary_of_the_wrong_form_is_located_at_the_kernel(replacement, line,
                                                                        message):
    """Issue 25: these were 'internal error: TypeError / AttributeError' (exit 2) or a
    bindings message without a location ('Cannot cast attribute to DictAttr')."""
    text = GEMM.replace(KERNEL_DICT, replacement)
    assert text != GEMM
    with pytest.raises(CompileFailed) as failure:
        compile_source(text, "gemm.mlir")
    (diagnostic,) = failure.value.diagnostics
    assert (diagnostic.filename, diagnostic.line) == ("gemm.mlir", line)
    assert diagnostic.message.startswith(message)


@pytest.mark.parametrize("old, new, line, message", [
    ('{name = "acc"}', "{name = 3 : si8}", 19, "attribute name = 3 : si8 must be a string"),
    ('{name = "acc"}', '{layout = false}', 19, "attribute layout = false must be a string"),
    ('{kind = "f16", k_offset = 0 : i64}', '{kind = "f16", colector_a = "use"}', 27,
     "tcgen05.mma has no attribute 'colector_a'; its attributes: ashift, collector_a, "),
])
def test_attributes_the_dialect_does_not_list_are_located_errors(old, new, line, message):
    """Issue 25 / issue 15: a misspelled attribute compiled silently (its default used);
    one of the wrong kind was an internal error in the pass that read it."""
    text = GEMM.replace(old, new, 1)
    assert text != GEMM
    with pytest.raises(CompileFailed) as failure:
        compile_source(text, "gemm.mlir")
    (diagnostic,) = failure.value.diagnostics
    assert (diagnostic.line, diagnostic.message[:len(message)]) == (line, message)


def test_a_pass_without_the_verifier_reports_a_wrong_kind_at_the_op():
    """Without tcgen05-verify in the pipeline, the accessor that meets the attribute
    reports it at its op (pass_infra), not as an internal error."""
    text = GEMM.replace('{name = "acc"}', "{name = 3 : si8}")
    with pytest.raises(CompileFailed) as failure:
        compile_source(text, "gemm.mlir", emit="mlir", pipeline="tcgen05-select-layouts")
    messages = [(x.line, x.message) for x in failure.value.diagnostics]
    assert messages == [(19, "attribute name = 3 : si8 must be a string")]


def test_reading_an_attribute_the_table_does_not_list_is_a_bug_in_the_reader():
    from tcgen05_lower import dialect as d
    from tcgen05_lower.dialect.ops import MmaOp
    from tcgen05_lower.parsing import parse_module

    with d.make_context():
        module = parse_module(GEMM, "gemm.mlir")
        mma = next(op for op in d.walk_ops(module.operation) if d.op_name(op) == "mma")
        assert MmaOp(mma).get("kind") == "f16"
        with pytest.raises(LookupError, match="tcgen05.mma has no attribute 'colector_a'"):
            MmaOp(mma).get("colector_a")
        assert not MmaOp.declares("reason")   # not an MMA attribute
