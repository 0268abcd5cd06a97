"""Kernel parameter names come from the function op (issue 33, point 5): each block
argument's location, not the first regular-expression match over the raw source. A lit
``// CHECK-LABEL: func.func @k(`` line above a kernel used to rename its parameters to
arg0.., so a grid or TMA kernel failed with a message about names it does not use. The
Python builder's text keeps the names it was given (``%A``), so the launch manifest and
a check file use them."""

from pathlib import Path

import pytest

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import parse_module
from tcgen05_lower.builder import KernelBuilder
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


def test_an_argument_located_elsewhere_falls_back_to_arg_numbers():
    # %A's location points into another file, where this text holds no parameter: no
    # name is guessed for it, and the names stay positional for every parameter.
    with d.make_context():
        module = parse_module(EXPLICIT_LOCATIONS, "k.mlir")
        kernel = module.regions[0].blocks[0].operations[0]
        assert source_parameter_names(kernel, EXPLICIT_LOCATIONS) == ["arg0", "arg1"]


def gemm_builder() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_128x256", params={"A": "!llvm.ptr<1>",
                                                   "B": "!llvm.ptr<1>",
                                                   "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16", swizzle="128B")
    b = k.smem([256, 64], "bf16", swizzle="128B")
    acc = k.tmem([128, 256], "f32", name="acc")
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=256)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)
    with k.loop(0, 256, 32) as column:
        k.store_fragment(k.ld(acc, column, 32), "C", column, ld=256)
    return k


def test_builder_text_keeps_parameter_names():
    k = gemm_builder()
    text = k.text()
    assert "func.func @gemm_bf16_128x256(%A: !llvm.ptr<1>" in text
    assert "%arg0" not in text
    result = k.compile(arch="sm_100a")
    assert names_of(result) == ["A", "B", "C"]  # was arg0, arg1, arg2


def test_builder_kernel_runs_with_a_check_file_that_names_its_parameters(tmp_path):
    """The simulator's check-file interface with the builder's names: BUFFERS says A, B,
    C (it had to say arg0, arg1, arg2)."""
    from tcgen05_lower.cli.sim import file_problem, make_inputs, output_names
    from tcgen05_lower.sim.api import simulate
    from sim_checks import assert_matches

    check = tmp_path / "check.py"
    # C = A @ B in float64 NumPy; bound: K exact bf16 products summed in f32 (the gamma_K
    # bound, K = 64, as examples/gemm_bf16_grid.check.py).
    check.write_text(
        "import numpy as np\n"
        "BUFFERS = {'A': ('bfloat16', (128, 64)), 'B': ('bfloat16', (64, 256)),\n"
        "           'C': ('float32', (128, 256))}\n"
        "def reference(inputs):\n"
        "    return {'C': inputs['A'].astype(np.float64) @ inputs['B'].astype(np.float64)}\n"
        "def bound(name, inputs):\n"
        "    a, b = (np.abs(inputs[x].astype(np.float64)) for x in 'AB')\n"
        "    return 64 * 2.0 ** -24 * (a @ b) + 1e-30, 'K 2^-24 |A||B|'\n")
    result = gemm_builder().compile(arch="sm_100a")
    problem = file_problem(str(check), result.manifest)
    inputs = make_inputs(problem, result.manifest,
                         output_names(problem, result.manifest, 0), 0)
    originals = {k: v.copy() for k, v in inputs.items()}
    assert_matches(problem, originals, simulate(result.ptx, result.manifest, inputs))
