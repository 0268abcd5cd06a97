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
