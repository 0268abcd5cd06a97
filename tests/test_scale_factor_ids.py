"""Issue 24, defect 4: block-scaled MMAs at k_offset > 0 must select their K block's
scale factors. The input is the issue's: two kind::mxf8f6f4 MMAs (scale_vec::1X) at
k_offset 0 and 32 over one [128, 4] scale buffer each for A and B.

Expected values are derived by hand from the ISA: with 1X each MMA uses one scale factor
per row (Table 54), the scale-factor ID is the byte offset of that factor in the 32-bit
cell (9.7.16.10.7.2.1, 9.7.16.10.7.3.1), so K block j = k_offset / 32 uses ID j; Table 43
puts scale-factor B ID at bits 4-5 and scale-factor A ID at bits 29-30 of the instruction
descriptor. The rest of the descriptor (M = 128: 1 << 27, N = 64: 8 << 17, UE8M0: 1 << 23,
E4M3 A and B: code 0) is the same for both MMAs: 0x08900000."""

from __future__ import annotations

import re

from tcgen05_lower.driver import compile_source

KERNEL = """
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!tb = !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
func.func @two_k_blocks() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc = "tcgen05.tmem_buffer"() : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() : () -> !sf
  %sfb = "tcgen05.tmem_buffer"() : () -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 32 : i64} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  return
}
"""

COMMON = (1 << 27) | (8 << 17) | (1 << 23)


def _mma_descriptors(ptx: str) -> list[int]:
    """The instruction descriptor of each tcgen05.mma line, in order: the register the
    line names fourth, and the constant moved into it."""
    constants = {m.group(1): int(m.group(2)) & 0xFFFFFFFF
                 for m in re.finditer(r"mov\.b32\s+(%r\d+), (-?\d+);", ptx)}
    found = []
    for line in ptx.splitlines():
        # The instruction, inside its guard's scope (emit.guarded) when it has one.
        instruction = re.search(r"tcgen05\.mma\S*\s+([^;]*);", line)
        if instruction:
            operands = instruction.group(1).split(", ")
            found.append(constants[operands[3]])
    return found


def test_scale_factor_ids_follow_k_offset():
    ptx = compile_source(KERNEL, "two_k_blocks.mlir").ptx
    first, second = _mma_descriptors(ptx)
    assert first == COMMON
    assert second == COMMON | (1 << 29) | (1 << 4)
