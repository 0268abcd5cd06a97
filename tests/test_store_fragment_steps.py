"""store_fragment computes one address per fragment and reaches the other elements by
constant byte steps when those are the same in every thread (ldst._byte_steps).

Expected values are derived by hand from the ISA: with the 32x32b shape (tmem-facts
section 2; 9.7.16.8.3), thread t of warp w holds lane 32w + t and register r holds column
r of its slice, so the 32 f32 elements of a .x32 fragment lie at byte steps 4r from the
first, in one row of C."""

from __future__ import annotations

import re

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.pipeline import build_pass_manager, parse_pipeline

KERNEL = """
func.func @k(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a",
    threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!tcgen05.tmem<[128, 128], f32>,
      !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
      i1) -> ()
  %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index)
      -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%f, %C, %c0) {ld = {LD}} : (!tcgen05.frag<[128, 32], f32>,
      !llvm.ptr<1>, index) -> ()
  return
}
"""


def lowered(ld: str) -> str:
    with d.make_context() as context, capture_diagnostics(context):
        module = parse_module(KERNEL.replace("{LD}", ld), "k.mlir")
        build_pass_manager(parse_pipeline(
            "tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,"
            "tcgen05-lower-to-llvm")).run(module)
        return str(module)


def constant_steps(text: str) -> list[int]:
    """Constant byte offsets of the i8 GEPs on global pointers, in order."""
    return [int(x) for x in re.findall(
        r"llvm\.getelementptr %\w+\[(\d+)\] : \(!llvm\.ptr<1>\) -> !llvm\.ptr<1>, i8", text)]


def test_one_address_then_constant_steps():
    text = lowered("128 : i64")
    assert constant_steps(text) == [4 * r for r in range(1, 32)]
    stores = re.findall(r"llvm\.store %\S+, (%\S+) \{alignment = 4 : i64\}", text)
    assert len(stores) == 32


def test_run_time_ld_keeps_the_steps_within_a_row():
    """With ld an index argument the elements still share the row: the same steps."""
    text = KERNEL.replace("(%C: !llvm.ptr<1>)", "(%C: !llvm.ptr<1>, %ld: index)")
    text = text.replace('"tcgen05.store_fragment"(%f, %C, %c0) {ld = {LD}} : '
                        '(!tcgen05.frag<[128, 32], f32>,\n      !llvm.ptr<1>, index) -> ()',
                        '"tcgen05.store_fragment"(%f, %C, %c0, %ld) {dims = ["ld"]} : '
                        '(!tcgen05.frag<[128, 32], f32>,\n      !llvm.ptr<1>, index, index) -> ()')
    with d.make_context() as context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, "k.mlir")
        build_pass_manager(parse_pipeline(
            "tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,"
            "tcgen05-lower-to-llvm")).run(module)
        assert not [x.format() for x in diagnostics if x.severity == "error"]
        assert constant_steps(str(module)) == [4 * r for r in range(1, 32)]
