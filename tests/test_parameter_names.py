"""Kernel parameter names come from the function op (issue 33, point 5): each block
argument's location, not the first regular-expression match over the raw source. A lit
``// CHECK-LABEL: func.func @k(`` line above a kernel used to rename its parameters to
arg0.., so a grid or TMA kernel failed with a message about names it does not use. The
Python builder's text keeps the names it was given (``%A``), so the launch manifest and
a check file use them."""

from pathlib import Path

import pytest

from tcgen05_lower import dialect as d
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.driver import compile_source
from tcgen05_lower.kernel_ir import source_parameter_names

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def names_of(result) -> list[str]:
    return [p["name"] for p in result.manifest["params"]]


@pytest.mark.parametrize("example, expected", [
    ("gemm_bf16_grid", ["A", "B", "C", "M", "N", "K", "lda", "ldb", "ldc"]),
    ("gemm_bf16_tma", None),
])
def test_a_check_label_line_does_not_rename_parameters(example, expected):
    text = (EXAMPLES / f"{example}.mlir").read_text()
    labelled = f"// CHECK-LABEL: func.func @{example}(\n// CHECK: %arg0\n" + text
    plain = compile_source(text, f"{example}.mlir")
    result = compile_source(labelled, f"{example}.mlir")  # failed before: arg0.. names
    assert names_of(result) == names_of(plain)
    if expected is not None:  # the signature's own spelling (read off the example)
        assert names_of(result) == expected
    assert "arg0" not in names_of(result)


SIGNATURE_IN_A_COMMENT = """
// func.func @k(%x: i32, %y: i32) is mentioned here first, and in a string below
func.func @k(%A: !llvm.ptr<1>, %n: i32) attributes {note = "func.func @k(%z: i32)"} {
  return
}
"""


def test_names_follow_argument_locations():
    with d.make_context():
        module = parse_module(SIGNATURE_IN_A_COMMENT, "k.mlir")
        kernel = module.regions[0].blocks[0].operations[0]
        assert source_parameter_names(kernel, SIGNATURE_IN_A_COMMENT) == ["A", "n"]


EXPLICIT_LOCATIONS = """
func.func @k(%A: !llvm.ptr<1> loc("elsewhere.mlir":1:1), %n: i32) {
  return
}
"""


def test_an_argument_located_elsewhere_is_named_by_the_signature_itself():
    # %A's location points into another file (IR printed with an earlier source's
    # locations, edited and parsed again: tests/test_ws_gemm_auto.py's mutants): the
    # names come from the function's own signature on a line of code.
    with d.make_context():
        module = parse_module(EXPLICIT_LOCATIONS, "k.mlir")
        kernel = module.regions[0].blocks[0].operations[0]
        assert source_parameter_names(kernel, EXPLICIT_LOCATIONS) == ["A", "n"]


#: The same kernel in generic form, its only `func.func @k(` line a comment's.
GENERIC_WITH_A_COMMENT = """
// CHECK-LABEL: func.func @k(%X: !llvm.ptr<1>, %Y: i32)
"func.func"() <{function_type = (!llvm.ptr<1>, i32) -> (), sym_name = "k"}> ({
^bb0(%a: !llvm.ptr<1> loc("elsewhere.mlir":1:1), %b: i32 loc("elsewhere.mlir":1:2)):
  "func.return"() : () -> ()
}) : () -> ()
"""


def test_a_signature_only_in_a_comment_names_nothing():
    # Locations elsewhere and no code line with the signature: positional names, never
    # the comment's %X, %Y.
    with d.make_context():
        module = parse_module(GENERIC_WITH_A_COMMENT, "k.mlir")
        kernel = module.regions[0].blocks[0].operations[0]
        assert source_parameter_names(kernel, GENERIC_WITH_A_COMMENT) == ["arg0", "arg1"]
