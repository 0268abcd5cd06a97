// TMA loads in a CTA pair (docs/cta-pairs.md, "Warp roles and TMA in a CTA pair"), in
// the PTX: each CTA's role leader issues its own loads (guard: the role's first thread,
// in both CTAs), with the row coordinate moved by rank * rows (rank = %cluster_ctarank &
// 1: 128 rows of A's K-major tile, so c1 + (rank << 7)) and the even CTA's mbarrier
// (mapa to rank & ~1); the expect_tx is the even CTA's alone (guard: the leader and an
// even rank) with both CTAs' bytes, 2 x 16384; the wait on that mbarrier runs in the even
// CTA only and acquires at cluster scope. Expected by hand from those rules.
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a --pass-option 'tcgen05-insert-sync{strategy=none}' --pass-option 'tcgen05-verify-sync{partitions=skip}' -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry pair_tma(
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.eq.b32 [[IS0:%p[0-9]+]], [[TID]], 0;
// CHECK: selp.b32 [[LEADER:%r[0-9]+]], 1, 0, [[IS0]];
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: and.b32 [[ODD:%r[0-9]+]], [[RANK]], 1;
// CHECK: and.b32 [[EVEN:%r[0-9]+]], [[RANK]], -2;
// CHECK: or.b32 [[BOTH:%r[0-9]+]], [[TID]], [[ODD]];
// CHECK: setp.eq.b32 [[EVENLEAD:%p[0-9]+]], [[BOTH]], 0;
// CHECK: setp.ne.b32 [[SKIP:%p[0-9]+]], [[ODD]], 0;
// CHECK: selp.b32 [[EVENLEADER:%r[0-9]+]], 1, 0, [[EVENLEAD]];
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 32768;
// CHECK: setp.ne.b32 tcgen05_guard, [[EVENLEADER]], 0; @tcgen05_guard mbarrier.arrive.expect_tx.shared::cta.b64 _, [[[FULL:%r[0-9]+]]], [[BYTES]];
// CHECK: shl.b32 [[SHIFT:%r[0-9]+]], [[ODD]], 7;
// CHECK: mapa.shared::cluster.u32 [[EVENFULL:%r[0-9]+]], [[FULL]], [[EVEN]];
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{[{]%r[0-9]+}}, [[SHIFT]]}], [[[EVENFULL]]];
// The wait: skipped by the odd CTA, at cluster scope in the even one.
// CHECK: @[[SKIP]] bra
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 tcgen05_done, [[[FULL]]],
func.func @pair_tma(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
      "tcgen05.tma_load"(%tm, %a, %full, %c64, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
      "tcgen05.mbarrier_wait"(%full, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.mma"(%d, %a, %b, %false) {kind = "f16"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
