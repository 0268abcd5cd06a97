// tcgen05-verify-sync on kernels with warp roles (passes/verify_sync_roles.py): each role is
// a sequential program, the roles run concurrently, and only mbarrier phases (an arrival
// or commit in one role, a wait for that phase's parity in another), the joining barrier
// of the partitions and a role's own barrier order them. Each case leaves one ordering of
// the protocol of examples/ws_gemm_bf16.mlir out (or is one the pass refuses); the
// expected texts follow from the rules of the pass's docstring (9.7.16.6.4.4, 9.7.16.6.5,
// 9.7.13.15.16), derived by hand. The kernels are planned by hand.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// The epilogue waits for the MMA's commit but has no tcgen05.fence::after_thread_sync:
// its load is not ordered after the MMA (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @no_acquire(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05.ld in role 'epilogue' reads TMEM columns [0, 32) that tcgen05.mma at line 42:7 in role 'mma' writes, without ordering between role 'epilogue' and role 'mma': missing tcgen05.fence::after_thread_sync after the mbarrier wait (9.7.16.6.4.4)}}
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

// The epilogue waits for parity 1 of a fresh mbarrier: the phase before the first, complete
// at once; nothing orders its load (nor the dealloc) after the MMA, and the commit's phase 0
// may complete before that wait runs (it then waits for phase 1, which never comes).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @wrong_parity(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      "tcgen05.commit"(%done) : (!mb) -> ()  // expected-error {{the arrival of tcgen05.commit in role 'mma' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 0 (parity 0) of the mbarrier (allocated at line 85:11)}}
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{phase 0 of this wait's mbarrier may complete before the wait (for parity 1) in role 'epilogue' runs: its arrival tcgen05.commit at line 98:7 in role 'mma' is not ordered after the wait, which then waits for phase 1 (9.7.13.15.16)}}
      "tcgen05.mbarrier_wait"(%done, %p1) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      // expected-error @+1 {{tcgen05.ld in role 'epilogue' reads TMEM columns [0, 32) that tcgen05.mma at line 97:7 in role 'mma' writes, without ordering between role 'epilogue' and role 'mma': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @+1 {{tcgen05.dealloc frees TMEM columns [0, 64) that tcgen05.mma at line 97:7 in role 'mma' accesses, without ordering: missing tcgen05.commit after it -> an mbarrier wait for its phase before the joining barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// The load role arrives without fence.proxy.async: the MMA's async-proxy reads of both
// tiles are not ordered after the generic-proxy fills (9.7.16.6.5).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @no_proxy_fence(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      // expected-error @+2 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.smem_fill at line 146:7 in role 'load' writes through the generic proxy, without ordering between role 'mma' and role 'load': missing fence.proxy.async -> mbarrier_arrive (role 'load') -> mbarrier wait (9.7.16.6.5)}}
      // expected-error @+1 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.smem_fill at line 147:7 in role 'load' writes through the generic proxy, without ordering between role 'mma' and role 'load': missing fence.proxy.async -> mbarrier_arrive (role 'load') -> mbarrier wait (9.7.16.6.5)}}
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

// The load role refills tile %a after a wait that the epilogue's arrival completes, but the
// epilogue arrives before it knows the MMA complete: the refill may overwrite the tile
// while the MMA reads it (completion first, 9.7.16.6.5).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @refill_early(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05.smem_fill in role 'load' overwrites a shared-memory tile that tcgen05.mma at line 213:7 in role 'mma' reads through the async proxy, without ordering between role 'load' and role 'mma': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase (9.7.16.6.5)}}
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
      "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
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

// The epilogue hands the accumulator back (arrive on %free) without tcgen05.wait::ld: the
// MMA role's next MMA, which overwrites it, is not ordered after the load (9.7.16.6.4.4),
// and neither is the dealloc.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @ld_then_mma(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05.mma in role 'mma' writes TMEM columns [0, 64) that tcgen05.ld at line 282:12 in role 'epilogue' reads, without ordering between role 'mma' and role 'epilogue': missing tcgen05.wait::ld -> tcgen05.fence::before_thread_sync -> mbarrier_arrive (role 'epilogue') -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
      "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      "tcgen05.mbarrier_wait"(%done, %p1) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @+1 {{tcgen05.dealloc frees TMEM columns [0, 32) that tcgen05.ld at line 282:12 in role 'epilogue' accesses, without ordering: missing tcgen05.wait::ld -> tcgen05.fence::before_thread_sync in role 'epilogue' -> the joining barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// Nobody arrives on %full: the MMA role's wait never returns, and the epilogue's wait for
// the commit behind it never does either.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @too_few_arrivals(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{this wait in role 'mma' for parity 0 of the mbarrier needs phase 0 to complete, but only 0 arrivals reach it in the whole kernel (it needs 32): it never returns}}
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{this wait in role 'epilogue' for parity 0 of the mbarrier needs phase 0 to complete, but the arrivals that complete it (role 'mma') come only after waits that never return: the roles deadlock: it never returns}}
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

// The load role arrives on %full (count 32, one arrival per thread) twice with no wait
// between: a thread running ahead counts towards phase 0, and phase 1 may complete before
// the MMA role's wait for phase 0 runs.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @arrive_ahead(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05.mbarrier_arrive by the 32 threads of role 'load' starts phase 1 of the mbarrier before the role knows phase 0 complete: a thread that runs ahead arrives in phase 0 instead (missing an mbarrier wait between the two arrivals, 9.7.13.15.16)}}
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{phase 1 of this wait's mbarrier may complete before the wait (for parity 0) in role 'mma' runs: its arrival tcgen05.mbarrier_arrive at line 385:7 in role 'load' is not ordered after the wait, which then waits for phase 2 (9.7.13.15.16)}}
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

// No tcgen05.fence::after_thread_sync after the partitions: the dealloc is not ordered
// after the MMA and the load the joining barrier synchronizes (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @no_fence_after_join(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
  // expected-error @+2 {{tcgen05.dealloc frees TMEM columns [0, 64) that tcgen05.mma at line 445:7 in role 'mma' accesses, without ordering: missing tcgen05.fence::after_thread_sync after the joining barrier (9.7.16.6.4.4)}}
  // expected-error @+1 {{tcgen05.dealloc frees TMEM columns [0, 32) that tcgen05.ld at line 452:12 in role 'epilogue' accesses, without ordering: missing tcgen05.fence::after_thread_sync after the joining barrier (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// In one role, an MMA that overwrites what the role's own load read needs the role's
// barrier between fence::before_thread_sync and fence::after_thread_sync (9.7.16.6.4.4);
// that MMA's completion is not observed before the dealloc either.
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
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      // expected-error @+1 {{tcgen05.mma in role 'epilogue' writes TMEM columns [0, 64) that tcgen05.ld at line 509:12 in role 'epilogue' reads, without ordering between role 'epilogue': missing the role's barrier (tcgen05.barrier) -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
      "tcgen05.mma"(%acc, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @+1 {{tcgen05.dealloc frees TMEM columns [0, 64) that tcgen05.mma at line 515:7 in role 'epilogue' accesses, without ordering: missing tcgen05.commit after it -> an mbarrier wait for its phase before the joining barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// A two-iteration ring whose MMA role waits for parity 0 in both iterations: in iteration
// 1 that names phase 0 again, already complete, so the MMA role runs ahead: its second MMA
// reads the tiles while the load role refills them for iteration 1 (the race is reported at
// whichever of the two executes later, here the refills), and the load role's arrival of
// iteration 1 and the MMA role's second commit may complete phases that the other role's
// wait of iteration 1 must still see incomplete.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @loop_parity(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
        // expected-error @+1 {{phase 1 of this wait's mbarrier may complete before the wait (for parity 0) in role 'load' runs: its arrival tcgen05.commit at line 577:9 in role 'mma' is not ordered after the wait, which then waits for phase 2 (9.7.13.15.16)}}
        "tcgen05.mbarrier_wait"(%done, %pe) : (!mb, i32) -> ()
        // expected-error @+1 {{tcgen05.smem_fill in role 'load' overwrites a shared-memory tile that tcgen05.mma at line 576:9 in role 'mma' reads through the async proxy, without ordering between role 'load' and role 'mma': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase (9.7.16.6.5)}}
        "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
        // expected-error @+1 {{tcgen05.smem_fill in role 'load' overwrites a shared-memory tile that tcgen05.mma at line 576:9 in role 'mma' reads through the async proxy, without ordering between role 'load' and role 'mma': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase (9.7.16.6.5)}}
        "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
        "tcgen05.fence_proxy_async"() : () -> ()
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %i = %c0 to %c2 step %c1 {
        // expected-error @+1 {{phase 1 of this wait's mbarrier may complete before the wait (for parity 0) in role 'mma' runs: its arrival tcgen05.mbarrier_arrive at line 568:9 in role 'load' is not ordered after the wait, which then waits for phase 2 (9.7.13.15.16)}}
        "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
        "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
        "tcgen05.commit"(%done) : (!mb) -> ()  // expected-error {{the arrival of tcgen05.commit in role 'mma' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 1 (parity 1) of the mbarrier (allocated at line 552:11)}}
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

// Refused: arrivals on one mbarrier from two roles (the phase each falls in depends on the
// interleaving).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @two_roles_arrive(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05-verify-sync checks mbarriers whose arrivals come from one role: this one has arrivals from role 'load' and 'epilogue' (which phase each falls in depends on the interleaving)}}
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
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

// Refused: a parity that does not evaluate.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @parity_unknown(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05-verify-sync cannot evaluate the phase parity of this wait}}
      "tcgen05.mbarrier_wait"(%done, %n) : (!mb, i32) -> ()
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

// Refused: a condition that does not evaluate, around a commit (sync_check/branches.py).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @condition_unknown(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{tcgen05-verify-sync follows the roles of a kernel with partitions only through conditions it can evaluate, or branches it can trace as taken: this condition does not evaluate and its branch holds tcgen05.commit}}
      scf.if %x {
        "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
        "tcgen05.commit"(%done) : (!mb) -> ()
      }
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

// Refused: a TMEM access outside the roles.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @outside_roles(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
  // expected-error @+1 {{tcgen05-verify-sync does not model tcgen05.mma outside the roles of a kernel with partitions}}
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
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

// Refused: a wait without a phase operand.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @wait_without_phase(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
      // expected-error @+1 {{a wait without a phase operand in a kernel with partitions (docs/partitions.md)}}
      "tcgen05.mbarrier_wait"(%done) : (!mb) -> ()
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

// Refused: the 32 arrivals of one mbarrier_arrive fall into two phases of a count-48
// mbarrier.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @arrivals_straddle(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
  %odd = "tcgen05.alloc_mbarrier"() {count = 48 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "tcgen05.mbarrier_arrive"(%odd) : (!mb) -> ()
      // expected-error @+1 {{the arrivals of this tcgen05.mbarrier_arrive fall into two phases of its mbarrier}}
      "tcgen05.mbarrier_arrive"(%odd) : (!mb) -> ()
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

// A TMA-fed load role without its mbarrier_expect_tx: the loads' complete_tx has no phase to
// join (PTX ISA 9.7.13.15), and nothing arrives on the mbarrier the MMA role waits on.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @tma_no_expect(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1,
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
      // expected-error @+1 {{tcgen05.tma_load signals complete_tx on an mbarrier with no tcgen05.mbarrier_expect_tx of its role in the current phase}}
      "tcgen05.tma_load"(%tma, %a, %tfull, %c0, %c0) : (!llvm.ptr<1>, !ta, !mb, index, index) -> ()
      // expected-error @+1 {{tcgen05.tma_load signals complete_tx on an mbarrier with no tcgen05.mbarrier_expect_tx of its role in the current phase}}
      "tcgen05.tma_load"(%tmb, %b, %tfull, %c0, %c0) : (!llvm.ptr<1>, !tb, !mb, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{this wait in role 'mma' for parity 0 of the mbarrier needs phase 0 to complete, but only 0 arrivals reach it in the whole kernel (it needs 1): it never returns}}
      "tcgen05.mbarrier_wait"(%tfull, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{the roles deadlock: it never returns}}
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

// A TMA-fed MMA role that does not wait for the loads' phase: the MMA reads both tiles
// before their complete_tx (9.7.9.25.5.1).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @tma_no_wait(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1,
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
      "tcgen05.tma_load"(%tmb, %b, %tfull, %c0, %c0) : (!llvm.ptr<1>, !tb, !mb, index, index) -> ()  // expected-error {{the complete_tx of tcgen05.tma_load in role 'load' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 0 (parity 0) of the mbarrier (allocated at line 1016:12) (an asynchronous arrival, 9.7.9.25.5.1); missing an mbarrier wait for that phase before the join}}
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+2 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.tma_load at line 1020:7 in role 'load' writes through the async proxy (TMA), without ordering between role 'mma' and role 'load': missing an mbarrier wait for the phase of the tcgen05.mbarrier_expect_tx that the load joined (PTX ISA 9.7.9.25.5.1, complete_tx)}}
      // expected-error @+1 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.tma_load at line 1021:7 in role 'load' writes through the async proxy (TMA), without ordering between role 'mma' and role 'load': missing an mbarrier wait for the phase of the tcgen05.mbarrier_expect_tx that the load joined (PTX ISA 9.7.9.25.5.1, complete_tx)}}
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

// A loop whose trip count does not evaluate (a kernel argument) is checked for each count
// from 1 to the mbarriers' phase period plus two (tcgen05_lower/sync_check/runtime_bounds.py): this
// kernel is right for n = 1 only. From n = 2 on, the load role refills the tiles while
// the MMA may read them and arrives for phase 1 before it knows phase 0 complete.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @unknown_trips(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
  %nn = arith.index_cast %n : i32 to index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %i = %c0 to %nn step %c1 {
        "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
        "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
        "tcgen05.fence_proxy_async"() : () -> ()
        // expected-error @+1 {{tcgen05.mbarrier_arrive by the 32 threads of role 'load' starts phase 1 of the mbarrier before the role knows phase 0 complete}}
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{phase 1 of this wait's mbarrier may complete before the wait (for parity 0) in role 'mma' runs}}
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      // expected-error @+2 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.smem_fill at line 1077:9 in role 'load' writes through the generic proxy, without ordering}}
      // expected-error @+1 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.smem_fill at line 1078:9 in role 'load' writes through the generic proxy, without ordering}}
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

// A double-buffered accumulator (tcgen05.tmem_stage of a planned two-stage ring) whose MMA
// role writes stage 0 where it means stage 1: the epilogue's load of stage 0 in the same
// round is not ordered after that MMA (its commit is the one to %accf1, which the load
// does not wait for). Stage cells come from stage_layout and stage_stride.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @acc_ring_wrong_stage(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %n: i32, %x: i1)
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
        "tcgen05.mma"(%s0, %a, %b, %false) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
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
        // expected-error @+1 {{tcgen05.ld in role 'epilogue' reads TMEM columns [0, 64) that tcgen05.mma at line 1165:9 in role 'mma' writes, without ordering between role 'epilogue' and role 'mma': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
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

// Two loads into the same stage of a shared-memory ring (both smem_stage views have index
// 0): the second overwrites what the first writes before the MMA reading stage 0 waited
// for the first, and that MMA's wait (on the first load's mbarrier) does not order the
// second load, which completes on the other mbarrier. A stage is a tile of its own only
// when its index is different (9.7.9.25.5.1, complete_tx; by hand).
!acc = !tcgen05.tmem<[128, 64], f32>
!ring = !tcgen05.smem<[2, 128, 64], bf16, "K", "128B">
!ra = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @same_stage_twice(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>,
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
      %s1 = "tcgen05.smem_stage"(%ring, %c0) : (!ring, index) -> !ra
      "tcgen05.mbarrier_expect_tx"(%full0) : (!mb) -> ()
      "tcgen05.tma_load"(%tma, %s0, %full0, %c0, %c0) : (!llvm.ptr<1>, !ra, !mb, index, index) -> ()
      "tcgen05.mbarrier_expect_tx"(%full1) : (!mb) -> ()
      // expected-error @+1 {{tcgen05.tma_load in role 'load' overwrites a shared-memory tile that tcgen05.tma_load at line 1232:7 in role 'load' writes through the async proxy (TMA), without ordering between role 'load': missing an mbarrier wait for the phase of the tcgen05.mbarrier_expect_tx that the load joined (PTX ISA 9.7.9.25.5.1, complete_tx)}}
      "tcgen05.tma_load"(%tma, %s1, %full1, %c64, %c0) : (!llvm.ptr<1>, !ra, !mb, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = "tcgen05.smem_stage"(%ring, %c0) : (!ring, index) -> !ra
      %s1 = "tcgen05.smem_stage"(%ring, %c1) : (!ring, index) -> !ra
      "tcgen05.mbarrier_wait"(%full0, %p0) : (!mb, i32) -> ()
      // expected-error @+1 {{tcgen05.mma in role 'mma' reads a shared-memory tile that tcgen05.tma_load at line 1235:7 in role 'load' writes through the async proxy (TMA), without ordering between role 'mma' and role 'load': missing an mbarrier wait for the phase of the tcgen05.mbarrier_expect_tx that the load joined (PTX ISA 9.7.9.25.5.1, complete_tx)}}
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
