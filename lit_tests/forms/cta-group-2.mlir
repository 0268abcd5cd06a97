// cta_group::2: a CTA pair (9.7.16.5.1) runs the kernel. Checked here:
// - the kernel is launched as a cluster of two CTAs (.reqnctapercluster 2, 1, 1);
// - tcgen05.alloc / relinquish_alloc_permit / dealloc are issued by warp 0 of each CTA
//   (Table 46: "Issue from two warps, one in each of the current CTA and its Peer CTA");
// - tcgen05.mma / cp / commit are issued by one thread of the pair: thread 0 of the even
//   CTA (%cluster_ctarank ending in 0), and the commit tcgen05-insert-sync adds before the
//   dealloc, which both CTAs run, multicasts its mbarrier arrive to both CTAs (mask 0b11)
//   so that both CTAs' waits complete;
// - the CTA barriers become cluster barriers (the MMA reads the peer's memory), and one
//   follows the dealloc so that neither CTA exits while its peer deallocates;
// - disable-output-lane has 8 words with cta_group::2 (9.7.16.10.9.1).
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_100f -o %t.100f.ptx
// RUN: FileCheck %s --input-file %t.100f.ptx
// RUN: %ptxas -arch=sm_100f %t.100f.ptx -o %t.100f.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!acc = !tcgen05.tmem<[256, 128], f32>
!a = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!b = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc128 = !tcgen05.tmem<[128, 64], f32>
!a128 = !tcgen05.smem<[64, 32], tf32, "K", "128B">
!b128 = !tcgen05.smem<[32, 32], tf32, "K", "128B">
!src = !tcgen05.smem<[128, 32], i8, "K", "none">
!dst = !tcgen05.tmem<[256, 32], f32>

// M = 256 (Layout A): each CTA holds 128 rows of A and N/2 = 64 rows of B.
// CHECK-LABEL: .entry pair_m256(
// CHECK: .explicitcluster
// CHECK-NEXT: .reqnctapercluster 2, 1, 1
// CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0:%r[0-9]+]], 0; @tcgen05_guard tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [{{%r[0-9]+}}], {{%r[0-9]+}};
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: barrier.cluster.arrive; barrier.cluster.wait;
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0]], 0; @tcgen05_guard tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.mma.cta_group::2.kind::f16 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}},
// CHECK-SAME: {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%p[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{{%r[0-9]+}}], {{%rs[0-9]+}};
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: setp.ne.b32 tcgen05_guard, [[WARP0]], 0; @tcgen05_guard tcgen05.dealloc.cta_group::2.sync.aligned.b32 {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: barrier.cluster.arrive; barrier.cluster.wait;
// CHECK: ret;
func.func @pair_m256() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16", disable_output_lane = array<i32: 0, 0, 0, 0, 1, 1, 1, 1>} : (!acc, !a, !b, i1) -> ()
  return
}

// M = 128 (Layout B): each CTA holds 64 rows of A and 32 rows of B; and a tcgen05.cp into
// both CTAs' tensor memory.
// CHECK-LABEL: .entry pair_m128_and_cp(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.cp.cta_group::2.128x256b [{{%r[0-9]+}}], {{%rd[0-9]+}};
// CHECK: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.mma.cta_group::2.kind::tf32 [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
func.func @pair_m128_and_cp() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %src = "tcgen05.smem_buffer"() : () -> !src
  %dst = "tcgen05.tmem_buffer"() {layout = "A"} : () -> !dst
  "tcgen05.cp"(%dst, %src) {shape = "128x256b"} : (!dst, !src) -> ()
  %a = "tcgen05.smem_buffer"() : () -> !a128
  %b = "tcgen05.smem_buffer"() : () -> !b128
  %d = "tcgen05.tmem_buffer"() : () -> !acc128
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "tf32"} : (!acc128, !a128, !b128, i1) -> ()
  return
}
