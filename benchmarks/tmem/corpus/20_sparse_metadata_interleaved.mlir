// Sparse with metadata, many small buffers: four sparse MMAs into one 128 x 64
// accumulator, each with its own metadata granule. An MMA that reads a granule is known
// complete only when the accumulator is loaded (MMAs on one accumulator are pipelined,
// 9.7.16.6.2), so all four granules stay live until that load. Then a 128 x 192
// accumulator of a second GEMM reuses everything. Each granule is filled by a .128x128b
// copy, which writes 4 columns (9.7.16.2.3), so each metadata buffer owns 4. Hand bound:
// max(64 + 4 x 4, 192) = 192 columns, allocation 256.
// EXPECT: lower bound 192, optimal 192 (derived above by hand)
!acc = !tcgen05.tmem<[128, 64], f32>
!acc2 = !tcgen05.tmem<[128, 192], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "64B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!ta2 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb2 = !tcgen05.smem<[192, 64], bf16, "K", "128B">
!meta = !tcgen05.tmem<[128, 2], i32>
!smeta = !tcgen05.smem<[128, 16], i8, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @sparse_metadata_interleaved(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a2 = "tcgen05.smem_buffer"() : () -> !ta2
  %b2 = "tcgen05.smem_buffer"() : () -> !tb2
  %sm = "tcgen05.smem_buffer"() : () -> !smeta
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %m0 = "tcgen05.tmem_buffer"() {name = "meta0"} : () -> !meta
  "tcgen05.cp"(%m0, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f, %m0) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %m1 = "tcgen05.tmem_buffer"() {name = "meta1"} : () -> !meta
  "tcgen05.cp"(%m1, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t, %m1) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %m2 = "tcgen05.tmem_buffer"() {name = "meta2"} : () -> !meta
  "tcgen05.cp"(%m2, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t, %m2) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %m3 = "tcgen05.tmem_buffer"() {name = "meta3"} : () -> !meta
  "tcgen05.cp"(%m3, %sm) {shape = "128x128b"} : (!meta, !smeta) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t, %m3) {kind = "f16", sparse = true} : (!acc, !ta, !tb, i1, !meta) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %acc2 = "tcgen05.tmem_buffer"() {name = "acc2"} : () -> !acc2
  "tcgen05.mma"(%acc2, %a2, %b2, %f) {kind = "f16"} : (!acc2, !ta2, !tb2, i1) -> ()
  %y = "tcgen05.ld"(%acc2, %c0) : (!acc2, index) -> !frag
  "tcgen05.store_fragment"(%y, %C, %c0) {ld = 192 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}
