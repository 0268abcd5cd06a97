// tcgen05-verify-sync on a role with a branch whose condition it cannot evaluate (a kernel
// argument here; a warp's vote, tcgen05.frag_vote, in FlashAttention-4's conditional
// rescaling): traced as taken when no run can be ordered differently from that trace
// (tcgen05_lower/sync_check/branches.py: no synchronization op in it, a tcgen05.wait in it
// repeated directly after it and in its only alternative, no value yielded), refused
// otherwise; the branch's accesses are checked like any other. Verdicts by hand from
// those rules and 9.7.16.6.4.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// Ordered: the epilogue doubles columns 32-63 of the accumulator in tensor memory when %x
// holds; the branch holds loads, a wait::ld and stores only, and the same waits follow it.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @taken_or_not(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
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
      scf.if %x {
        %g = "tcgen05.ld"(%acc, %c32) : (!acc, index) -> !frag
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        %h = "tcgen05.frag_map"(%g) ({
        ^bb0(%v: f32, %row: index, %c: index):
          %w = arith.addf %v, %v : f32
          gpu.yield %w : f32
        }) : (!frag) -> !frag
        "tcgen05.st"(%acc, %c32, %h) : (!acc, index, !frag) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.wait"() {kind = "st"} : () -> ()
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
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

// Refused: the branch's wait::ld is not repeated after it; a run that skips the branch
// would leave the load of columns 0-31 in flight where the trace has it complete.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @no_wait_after(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
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
      // expected-error @+1 {{tcgen05-verify-sync follows the roles of a kernel with partitions only through conditions it can evaluate, or branches it can trace as taken: this condition does not evaluate and it holds tcgen05.wait::ld without the same wait directly after the branch (a run that skips it would leave the loads or stores before it in flight where the trace has them complete)}}
      scf.if %x {
        %g = "tcgen05.ld"(%acc, %c32) : (!acc, index) -> !frag
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        %h = "tcgen05.frag_map"(%g) ({
        ^bb0(%v: f32, %row: index, %c: index):
          %w = arith.addf %v, %v : f32
          gpu.yield %w : f32
        }) : (!frag) -> !frag
        "tcgen05.st"(%acc, %c32, %h) : (!acc, index, !frag) -> ()
      }
      "tcgen05.wait"() {kind = "st"} : () -> ()
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

// Refused: a wait in one of two alternatives (the trace runs both, one after the other).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @wait_in_two_ways(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
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
      // expected-error @+1 {{tcgen05-verify-sync follows the roles of a kernel with partitions only through conditions it can evaluate, or branches it can trace as taken: this condition does not evaluate and a tcgen05.wait sits in one of several alternatives}}
      scf.if %x {
        %g = "tcgen05.ld"(%acc, %c32) : (!acc, index) -> !frag
        "tcgen05.wait"() {kind = "ld"} : () -> ()
        %h = "tcgen05.frag_map"(%g) ({
        ^bb0(%v: f32, %row: index, %c: index):
          %w = arith.addf %v, %v : f32
          gpu.yield %w : f32
        }) : (!frag) -> !frag
        "tcgen05.st"(%acc, %c32, %h) : (!acc, index, !frag) -> ()
      } else {
        "tcgen05.store_fragment"(%f, %C, %c32) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.wait"() {kind = "st"} : () -> ()
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
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

// Refused: a branch that yields a value.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @yields(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
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
      // expected-error @+1 {{tcgen05-verify-sync follows the roles of a kernel with partitions only through conditions it can evaluate, or branches it can trace as taken: this condition does not evaluate and the branch yields values}}
      %y = scf.if %x -> index {
        scf.yield %c0 : index
      } else {
        scf.yield %c32 : index
      }
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.wait"() {kind = "st"} : () -> ()
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
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

// Traced as taken: the branch's load of the accumulator, after a wait with no
// fence::after_thread_sync, is unordered with the MMA (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @unordered_in_branch(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %x: i1)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
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
      scf.if %x {
        // expected-error-re @+1 {{tcgen05.ld in role 'epilogue' reads TMEM columns [0, 32) that tcgen05.mma at line {{[0-9]+}}:7 in role 'mma' writes, without ordering between role 'epilogue' and role 'mma': missing tcgen05.fence::after_thread_sync after the mbarrier wait (9.7.16.6.4.4)}}
        %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
        "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      }
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
