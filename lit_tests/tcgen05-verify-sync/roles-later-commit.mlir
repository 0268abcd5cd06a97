// tcgen05-verify-sync: a tcgen05.commit tracks every prior asynchronous tcgen05 op of its
// thread (9.7.16.12.1), so the wait on a later commit and the fence::after_thread_sync
// after it order the loads of a role after every earlier MMA of the committing thread
// (9.7.16.6.3), and a later wait on the earlier commit's mbarrier needs no fence of its
// own (tests/kernels/ws_attention_gen.py's hand-written ping-pong form of
// examples/ws_attention_fwd_bf16.mlir: the softmax's wait on o_done_t).
// When the commit waited on with the fence comes before the MMA, it orders nothing of that
// MMA: the load of O needs the fence after the wait on o_done (9.7.16.6.4.4). Verdicts
// derived by hand from those sections; the kernels are planned by hand.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// O's MMA, its commit, S's MMA, its commit: ordered.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @later_commit(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %o = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %s = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %o_done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %s_full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%o, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%o_done) : (!mb) -> ()
      "tcgen05.mma"(%s, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%s_full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%s_full, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %fs = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%fs, %C, %c32) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.mbarrier_wait"(%o_done, %p0) : (!mb, i32) -> ()
      %fo = "tcgen05.ld"(%o, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%fo, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// S's MMA and commit first, then O's: the load of O is not ordered after O's MMA.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @earlier_commit(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %o = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %s = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %o_done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %s_full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%s, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%s_full) : (!mb) -> ()
      "tcgen05.mma"(%o, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%o_done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%s_full, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %fs = "tcgen05.ld"(%s, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%fs, %C, %c32) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.mbarrier_wait"(%o_done, %p0) : (!mb, i32) -> ()
      // expected-error-re @+1 {{tcgen05.ld in role 'softmax' reads TMEM columns [0, 32) that tcgen05.mma at line {{[0-9]+}}:7 in role 'mma' writes, without ordering between role 'softmax' and role 'mma': missing tcgen05.fence::after_thread_sync after the mbarrier wait (9.7.16.6.4.4)}}
      %fo = "tcgen05.ld"(%o, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%fo, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
