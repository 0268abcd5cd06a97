// tcgen05-verify-sync on kernels with warp roles whose orderings are all there
// (passes/verify_sync_roles.py): the protocol of examples/ws_gemm_bf16.mlir in one stage;
// a refill ordered after the MMA through two mbarriers (the epilogue observes the MMA's
// commit, then arrives on the mbarrier the load role waits on); an accumulator handed
// back by the epilogue (wait::ld, fence::before_thread_sync, arrive) and overwritten by
// the next MMA (wait, fence::after_thread_sync); a two-iteration ring with parities from
// the loop counter (and the producer tail after the loop); a load and an MMA in one role, ordered by the role's barrier; and a
// TMA-fed load role (expect_tx + complete_tx as the producer side of the full mbarrier);
// a double-buffered accumulator whose MMAs fill one stage while the epilogue drains the
// other (tcgen05.tmem_stage cells from stage_layout and stage_stride).
// RUN: tcgen05-opt %s -p 'tcgen05-verify-sync{report=true}' --split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK-NOT: error

// CHECK-LABEL: kernel @protocol: roles run concurrently, {{[0-9]+}} events run, {{[0-9]+}} pairs checked: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @protocol(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
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
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: kernel @transitive: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @transitive(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "tcgen05.mbarrier_wait"(%free, %p0) : (!mb, i32) -> ()
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: kernel @handed_back: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @handed_back(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  %false = arith.constant false
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
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "tcgen05.mbarrier_wait"(%free, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      "tcgen05.mbarrier_wait"(%done, %p1) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: kernel @ring: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @ring(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  %ready = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c2 step %c1 {
        %i1 = arith.addi %i, %c1 : index
        %pi = arith.andi %i1, %c1 : index
        %pe = arith.index_cast %pi : index to i32
        "tcgen05.mbarrier_wait"(%done, %pe) : (!mb, i32) -> ()
        "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
        "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
        "tcgen05.fence_proxy_async"() : () -> ()
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      // The producer tail: the last commit to %done (iteration 1, parity 1).
      "tcgen05.mbarrier_wait"(%done, %p1) : (!mb, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c2 step %c1 {
        %pi = arith.andi %i, %c1 : index
        %pf = arith.index_cast %pi : index to i32
        "tcgen05.mbarrier_wait"(%full, %pf) : (!mb, i32) -> ()
        "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
        "tcgen05.commit"(%done) : (!mb) -> ()
      }
      "tcgen05.commit"(%ready) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%ready, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: kernel @same_role: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @same_role(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  %false = arith.constant false
  %free2 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
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
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "tcgen05.barrier"() : () -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%free2) : (!mb) -> ()
      "tcgen05.mbarrier_wait"(%free2, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: kernel @tma_roles: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @tma_roles(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  %tfull = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_expect_tx"(%tfull) : (!mb) -> ()
      "tcgen05.tma_load"(%tma, %a, %tfull, %c0, %c0) : (!llvm.ptr<1>, !ta, !mb, index, index) -> ()
      "tcgen05.tma_load"(%tmb, %b, %tfull, %c0, %c0) : (!llvm.ptr<1>, !tb, !mb, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%tfull, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// CHECK-LABEL: kernel @acc_ring: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @acc_ring(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  %false = arith.constant false
  %rbase = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %ring = "tcgen05.tmem_buffer"(%rbase) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D", stage_layout = "column_blocks", stage_stride = 64 : i64} : (i32) -> !tcgen05.tmem<[2, 128, 64], f32>
  %s0 = "tcgen05.tmem_stage"(%ring, %c0) : (!tcgen05.tmem<[2, 128, 64], f32>, index) -> !acc
  %s1 = "tcgen05.tmem_stage"(%ring, %c1) : (!tcgen05.tmem<[2, 128, 64], f32>, index) -> !acc
  %accf0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %accf1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %acce0 = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  %acce1 = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
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
      scf.for %p = %c0 to %c2 step %c1 {
        %q1 = arith.addi %p, %c1 : index
        %pb = arith.andi %q1, %c1 : index
        %pe = arith.index_cast %pb : index to i32
        "tcgen05.mbarrier_wait"(%acce0, %pe) : (!mb, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        "tcgen05.mma"(%s0, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
        "tcgen05.commit"(%accf0) : (!mb) -> ()
        "tcgen05.mbarrier_wait"(%acce1, %pe) : (!mb, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        "tcgen05.mma"(%s1, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
        "tcgen05.commit"(%accf1) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %p = %c0 to %c2 step %c1 {
        %pa = arith.andi %p, %c1 : index
        %pf = arith.index_cast %pa : index to i32
        "tcgen05.mbarrier_wait"(%accf0, %pf) : (!mb, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %g0 = "tcgen05.ld"(%s0, %c0) : (!acc, index) -> !frag
        "tcgen05.store_fragment"(%g0, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acce0) : (!mb) -> ()
        "tcgen05.mbarrier_wait"(%accf1, %pf) : (!mb, i32) -> ()
        "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
        %g1 = "tcgen05.ld"(%s1, %c0) : (!acc, index) -> !frag
        "tcgen05.store_fragment"(%g1, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
        "tcgen05.mbarrier_arrive"(%acce1) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  "tcgen05.dealloc"(%rbase) {columns = 128 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// Two stages of one shared-memory ring (smem_stage with constant indices) are two tiles:
// the load role's second TMA load (stage 1) needs no ordering after its first (stage 0),
// nor after the MMA that reads stage 0. By hand from the lowering's stage placement
// (stage i at i times the stage stride, lowering/smem.py: disjoint bytes).
// CHECK-LABEL: kernel @ring_stages: {{.*}}: ordered
!acc = !tcgen05.tmem<[128, 64], f32>
!ring = !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
!ra = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @ring_stages(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %ring = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %full1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      %s0 = "tcgen05.smem_stage"(%ring, %c0) : (!ring, index) -> !ra
      %s1 = "tcgen05.smem_stage"(%ring, %c1) : (!ring, index) -> !ra
      "tcgen05.mbarrier_expect_tx"(%full0) : (!mb) -> ()
      "tcgen05.tma_load"(%tma, %s0, %full0, %c0, %c0) : (!llvm.ptr<1>, !ra, !mb, index, index) -> ()
      "tcgen05.mbarrier_expect_tx"(%full1) : (!mb) -> ()
      "tcgen05.tma_load"(%tma, %s1, %full1, %c64, %c0) : (!llvm.ptr<1>, !ra, !mb, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = "tcgen05.smem_stage"(%ring, %c0) : (!ring, index) -> !ra
      %s1 = "tcgen05.smem_stage"(%ring, %c1) : (!ring, index) -> !ra
      "tcgen05.mbarrier_wait"(%full0, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %s0, %s0, %f) {kind = "f16"} : (!acc, !ra, !ra, i1) -> ()
      "tcgen05.mbarrier_wait"(%full1, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %s1, %s1, %t) {kind = "f16"} : (!acc, !ra, !ra, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}
