// tcgen05.commit (9.7.16.12.1): .mbarrier::arrive::one.shared::cluster, and with
// .multicast::cluster and its 16-bit ctaMask operand; tcgen05.fence::before_thread_sync
// and ::after_thread_sync (9.7.16.11.1) as written by the user.
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

// CHECK-LABEL: .entry commit_cta1(
// CHECK: setp.ne.b32 tcgen05_guard, [[LEADER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [{{%r[0-9]+}}];
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK: tcgen05.fence::after_thread_sync;
func.func @commit_cta1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}

// An explicit mask: the odd CTA's mbarrier only (%cluster_ctarank 1 -> bit 1).
// CHECK-LABEL: .entry commit_multicast(
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 2;
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{{%r[0-9]+}}], [[MASK]];
func.func @commit_multicast() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.commit"(%bar) {multicast_mask = 2 : i64} : (!tcgen05.mbarrier) -> ()
  return
}

// A pair kernel's commit without a mask is the plain form: it signals the issuing CTA's
// mbarrier only (9.7.16.12.1), and a wait on that mbarrier runs in the even CTA alone.
// CHECK-LABEL: .entry commit_pair_plain(
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [{{%r[0-9]+}}];
// CHECK-NOT: multicast
// CHECK: @{{%p[0-9]+}} bra
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
func.func @commit_pair_plain() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %p0 = arith.constant 0 : i32
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  return
}
