"""tcgen05.cp footprints (issues 20 and 24): the lanes and columns each copy shape and
multicast writes, and what the planner does with them.

Expected lanes and columns are written by hand from the ISA text:
- 9.7.16.2.3: a data-movement shape is "lane x size", size in bits across the columns
  (32-bit cells): .128x256b and .4x256b write 8 columns per lane, .128x128b, .64x128b and
  .32x128b write 4.
- 9.7.16.9.2: ".32x128b requires .warpx4" and with .warpx4 "the data being copied is
  multicasted into all 4 warps" (each warp's 32-lane quarter gets the 32 rows);
  ".64x128b requires .warpx2::02_13 or .warpx2::01_23" and then "the data being copied is
  multicasted into warp pairs and each warp in the warp pair receive half of the data"
  (32 of the 64 rows to each warp of each pair: every quarter gets 32 rows); .128x*
  moves 128 rows to the 128 lanes; .4x256b moves 4 rows to 4 lanes from taddr's lane.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tcgen05_lower.driver import compile_source
from tcgen05_lower.isa import layouts
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.sim import tensor_core

ALL_LANES = set(range(128))

# (shape, multicast, lane offset, column): (lanes written, columns written)
CASES = [
    ("128x256b", None, 0, 0, ALL_LANES, set(range(0, 8))),
    ("128x256b", None, 0, 24, ALL_LANES, set(range(24, 32))),
    ("128x128b", None, 0, 0, ALL_LANES, set(range(0, 4))),
    ("128x128b", None, 0, 6, ALL_LANES, set(range(6, 10))),
    ("64x128b", "warpx2::02_13", 0, 0, ALL_LANES, set(range(0, 4))),
    ("64x128b", "warpx2::01_23", 0, 12, ALL_LANES, set(range(12, 16))),
    ("32x128b", "warpx4", 0, 0, ALL_LANES, set(range(0, 4))),
    ("4x256b", None, 0, 0, {0, 1, 2, 3}, set(range(0, 8))),
    ("4x256b", None, 16, 2, {16, 17, 18, 19}, set(range(2, 10))),
]


@pytest.mark.parametrize("shape, multicast, lane, column, lanes, columns", CASES,
                         ids=[f"{c[0]}.{c[1]}@{c[2]},{c[3]}" for c in CASES])
def test_lanes_and_columns_each_copy_writes(shape, multicast, lane, column, lanes, columns):
    copy = layouts.cp_footprint(shape, multicast, lane_offset=lane, column=column)
    assert set(copy.lane_indices()) == lanes
    assert set(range(copy.first_column, copy.end_column)) == columns


@pytest.mark.parametrize("shape, multicast", [("128x128b", None), ("64x128b", "warpx2::02_13"),
                                              ("32x128b", "warpx4"), ("128x256b", None)])
def test_whole_quarter_shapes_need_lane_0(shape, multicast):
    # A copy that writes 32 lanes of every quarter cannot start at lane 16.
    with pytest.raises(IsaRuleError, match="needs lane 0"):
        layouts.cp_footprint(shape, multicast, lane_offset=16)


@pytest.mark.parametrize("shape, multicast", [("128x256b", None), ("128x128b", None),
                                              ("64x128b", "warpx2::02_13"),
                                              ("64x128b", "warpx2::01_23"),
                                              ("32x128b", "warpx4")])
def test_the_simulator_writes_the_same_lanes(shape, multicast):
    # The simulator's tensor-core model reads 9.7.16.9.2 on its own (tcgen05_lower.sim
    # imports nothing of the compiler): the set of lanes it writes must be the same.
    written = set(np.asarray(tensor_core._cp_lanes(shape, multicast)).ravel().tolist())
    assert written == set(layouts.cp_footprint(shape, multicast).lane_indices())


# ------------------------------------------------------------------ the planner (issue 24)

SCALE_B_KERNEL = """
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!tb = !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @two_scale_b(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb0 = "tcgen05.tmem_buffer"() {name = "sfb0"} : () -> !sf
  %sfb1 = "tcgen05.tmem_buffer"() {name = "sfb1"} : () -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb0, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb1, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f, %sfa, %sfb0) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f, %sfa, %sfb1) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !tb, i1, !sf, !sf) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
"""

METADATA_KERNEL = """
!acc = !tcgen05.tmem<[128, 32], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "64B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[128, 2], i32>
!smeta = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @two_metadata(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %sm = "tcgen05.smem_buffer"() : () -> !smeta
  %acc0 = "tcgen05.tmem_buffer"() {name = "acc0"} : () -> !acc
  %acc1 = "tcgen05.tmem_buffer"() {name = "acc1"} : () -> !acc
  %meta0 = "tcgen05.tmem_buffer"() {name = "meta0"} : () -> !meta
  %meta1 = "tcgen05.tmem_buffer"() {name = "meta1"} : () -> !meta
  "tcgen05.cp"(%meta0, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.cp"(%meta1, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc0, %a, %b, %f, %meta0) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  "tcgen05.mma"(%acc1, %a, %b, %f, %meta1) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %x = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %y = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
"""


def _placed(mlir: str) -> dict[str, tuple[int, int]]:
    """name -> (first column, columns) of every planned buffer."""
    found = {}
    for line in mlir.splitlines():
        if '"tcgen05.tmem_buffer"' in line and "column_offset" in line:
            name = re.search(r'name = "(\w+)"', line).group(1)
            first = int(re.search(r"column_offset = (\d+)", line).group(1))
            columns = int(re.search(r"columns = (\d+)", line).group(1))
            found[name] = (first, columns)
    return found


@pytest.mark.parametrize("kernel, copied", [(SCALE_B_KERNEL, ("sfa", "sfb0", "sfb1")),
                                            (METADATA_KERNEL, ("meta0", "meta1"))],
                         ids=["scale_b", "metadata"])
def test_copied_buffers_own_the_copy_cells(kernel, copied):
    # Every buffer here is live at once and filled by one .128x128b copy at its column 0,
    # which writes 4 columns on all lanes (9.7.16.2.3): each must own 4 columns, and no
    # two buffers may share a column.
    placed = _placed(compile_source(kernel, "k.mlir", emit="mlir").mlir)
    for name in copied:
        assert placed[name][1] >= 4, (name, placed[name])
    spans = sorted(placed.values())
    for (first, width), (next_first, _) in zip(spans, spans[1:]):
        assert first + width <= next_first, spans
