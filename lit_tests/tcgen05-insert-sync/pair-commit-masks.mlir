// The multicast mask of the commits tcgen05-insert-sync adds to a cta_group::2 kernel
// (issue 21): a commit signals the mbarriers of the CTAs its mask names, a plain commit
// the issuing CTA's only (9.7.16.12.1), and a wait runs in the CTAs its commits signal.
// The single-thread ops (mma, cp) are issued in the even CTA, everything else runs in
// both (Table 46). So the commit whose only consumer is the tcgen05.cp (mma -> cp is not a
// pipelined pair, 9.7.16.6.2) is the plain one, and its wait runs in the even CTA alone;
// the commit before the tcgen05.ld, which both CTAs run, signals both (mask 0b11).
// tcgen05-verify-sync (its own model of the pair) accepts the result.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,tcgen05-verify-sync' | FileCheck %s
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// CHECK-LABEL: func.func @pair_plain_commit
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.commit"(%[[BAR0:[0-9a-z_]+]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.cp
// CHECK: "tcgen05.mbarrier_wait"(%[[BAR0]],
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.cp"
// CHECK-NEXT: "tcgen05.mma"
// CHECK: "tcgen05.commit"(%{{[0-9a-z_]+}}) {multicast_mask = 3 : i64, reason = "completion of tcgen05.cp at line {{[0-9]+}}, tcgen05.mma at line {{[0-9]+}} before tcgen05.ld

// The plain form of 9.7.16.12.1 in a pair kernel; its wait is skipped by the odd CTA
// (%cluster_ctarank & 1 != 0); the second commit multicasts to both and both wait.
// PTX-LABEL: .entry pair_plain_commit(
// PTX: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// PTX: setp.ne.b32 tcgen05_guard, [[ISSUER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [[[BAR:%r[0-9]+]]];
// PTX-NEXT: // end inline asm
// PTX-NEXT: @[[ODD:%p[0-9]+]] bra [[SKIP:\$L__BB0_[0-9]+]];
// PTX: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[BAR]]]
// PTX: [[SKIP]]:
// PTX: tcgen05.cp.cta_group::2.128x256b
// PTX: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{{%r[0-9]+}}], {{%rs[0-9]+}};
// PTX-NEXT: // end inline asm
// PTX-NOT: bra
// PTX: mbarrier.try_wait.parity

// The same mma -> cp dependence, but the tile the first MMA read is filled again (by both
// CTAs) right after the cp, relying on the wait before the cp: that wait must run in both
// CTAs, so its commit signals both.
// CHECK-LABEL: func.func @pair_refill
// CHECK: "tcgen05.commit"({{.*}}) {multicast_mask = 3 : i64, reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.cp
// CHECK: "tcgen05.cp"
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK: "tcgen05.commit"({{.*}}) {multicast_mask = 3 : i64
!acc = !tcgen05.tmem<[256, 32], f32>
!a = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!b = !tcgen05.smem<[16, 64], bf16, "K", "128B">
!src = !tcgen05.smem<[128, 32], i8, "K", "none">
!fr = !tcgen05.frag<[256, 32], f32>
func.func @pair_plain_commit(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %src = "tcgen05.smem_buffer"() : () -> !src
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !a, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !b, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  "tcgen05.cp"(%d, %src) {shape = "128x256b"} : (!acc, !src) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  %f = "tcgen05.ld"(%d, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%f, %C, %c0) {ld = 32 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}

func.func @pair_refill(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %src = "tcgen05.smem_buffer"() : () -> !src
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !a, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !b, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  "tcgen05.cp"(%d, %src) {shape = "128x256b"} : (!acc, !src) -> ()
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !a, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  %f = "tcgen05.ld"(%d, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%f, %C, %c0) {ld = 32 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
