// tcgen05-verify-sync on warp roles in a CTA pair (cta_group::2; passes/verify_sync_pairs.py,
// docs/cta-pairs.md): every program runs once per CTA (rank 0, the even CTA, issues the
// single-thread ops; rank 1 runs the rest), each CTA has its own copy of every mbarrier,
// TMEM cell and shared-memory tile, and a pair MMA reads both CTAs' tiles and writes both
// CTAs' accumulator lanes. The expected texts follow by hand from the rules of the module
// docstring (9.7.16.6.4.4, 9.7.16.6.5, 9.7.13.15, 9.7.16.12.1). Kernels are planned by hand.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// The one-CTA protocol of roles.mlir on a pair, unchanged: each CTA's load role fills its
// own tiles and arrives on its own CTA's %full; the MMA (even CTA) waits on the even
// copy only, so the odd CTA's fills, which the pair MMA reads, are unordered with it
// (9.7.16.6.5; reported at the fill, the later of the two in the run). The plain commit
// arrives at the even CTA's %done only (9.7.16.12.1), so the wait on it runs in the even
// CTA only and the odd CTA's load of its accumulator lanes is unordered (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @pair_roles(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.smem_fill in role 'load (rank 1)' overwrites a shared-memory tile that tcgen05.mma at line 43:7 in role 'mma (rank 0)' reads through the async proxy, without ordering between role 'load (rank 1)' and role 'mma (rank 0)': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase (9.7.16.6.5)}}
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      // expected-error @+1 {{tcgen05.smem_fill in role 'load (rank 1)' overwrites a shared-memory tile that tcgen05.mma at line 43:7}}
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
      // expected-error @+1 {{tcgen05.ld in role 'epilogue (rank 1)' reads TMEM columns [0, 32) that tcgen05.mma at line 43:7 in role 'mma (rank 0)' writes, without ordering between role 'epilogue (rank 1)' and role 'mma (rank 0)': missing tcgen05.commit after it -> an mbarrier wait for that commit's phase -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// The same kernel ordered for a pair: the loads arrive at the even CTA's %full (count
// 2 x 32: both CTAs' load warps), and the commit signals both CTAs' %done (multicast
// 0b11), so the wait on it runs in both and orders each CTA's load.
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @pair_roles_ordered(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 64 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) {cta = "even"} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()
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
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// Both CTAs' epilogues arrive at the even CTA's %free ({cta = "even"}), 128 threads each,
// but its count is 128 (one CTA's threads): neither arrival is ordered after the other,
// so both fall into phase 0, 256 arrivals for a count of 128 (9.7.13.15.16).
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @overfull(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      // expected-error @+1 {{tcgen05.mbarrier_arrive in role 'epilogue (rank 1)' may fall into phase 0 of the mbarrier (allocated at line 135:11, its copy in the CTA of rank 0, count 128) together with tcgen05.mbarrier_arrive at line 150:7 in role 'epilogue (rank 0)': 256 arrivals that no wait orders into different phases, so some count towards phase 1 (9.7.13.15.16)}}
      "tcgen05.mbarrier_arrive"(%free) {cta = "even"} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// The load warp issues two rounds on %full without waiting in between. The odd CTA's
// loads of the second round have no expect_tx of their own: their bytes fall in the first
// phase of the even CTA's %full that their role does not know complete, phase 0, which
// the first round's bytes complete (PTX ISA 9.7.13.15). And the second expect_tx (phase
// 1's arrival) is not ordered after the MMA's wait for phase 0 (9.7.13.15.16).
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @odd_load_late(%C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 32>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a2 = "tcgen05.smem_buffer"() : () -> !ta
  %b2 = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_expect_tx"(%full) : (!mb) -> ()
      "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) : (!llvm.ptr<1>, !ta, !mb, index, index) -> ()
      "tcgen05.tma_load"(%tmB, %b, %full, %c0, %c0) : (!llvm.ptr<1>, !tb, !mb, index, index) -> ()
      "tcgen05.mbarrier_expect_tx"(%full) : (!mb) -> ()
      // expected-error @+1 {{tcgen05.tma_load in role 'load (rank 1)' completes on the even CTA's mbarrier, whose phase 0 (the first its role does not know complete) may complete without its bytes: they then count towards a later phase (missing an mbarrier wait before the load that orders it after the phase's other loads, PTX ISA 9.7.13.15)}}
      "tcgen05.tma_load"(%tmA, %a2, %full, %c64, %c0) : (!llvm.ptr<1>, !ta, !mb, index, index) -> ()
      // expected-error @+1 {{tcgen05.tma_load in role 'load (rank 1)' completes on the even CTA's mbarrier, whose phase 0}}
      "tcgen05.tma_load"(%tmB, %b2, %full, %c64, %c0) : (!llvm.ptr<1>, !tb, !mb, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{phase 1 of this wait's mbarrier (allocated at line 187:11, its copy in the CTA of rank 0) may complete before the wait (for parity 0) in role 'mma (rank 0)' runs: its arrival tcgen05.mbarrier_expect_tx at line 194:7 in role 'load (rank 0)' is not ordered after the wait, which then waits for phase 2 (9.7.13.15.16)}}
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.mbarrier_wait"(%full, %p1) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a2, %b2, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()
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
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// The expect_tx announces the bytes of both loads after it (no wait or commit on %full
// between: 2 x (16384 + 4096)), but the second load follows a wait on %empty, whose
// commit comes after the MMA's wait for %full: the MMA's wait never returns, nor do the
// waits behind it.
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @bytes_after_wait(%C: !llvm.ptr<1>,
    %tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmB: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 32>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a2 = "tcgen05.smem_buffer"() : () -> !ta
  %b2 = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_expect_tx"(%full) : (!mb) -> ()
      "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) : (!llvm.ptr<1>, !ta, !mb, index, index) -> ()
      // expected-error @+1 {{this wait in role 'load (rank 0)' for parity 0 of the mbarrier (allocated at line 254:12, its copy in the CTA of rank 0) needs phase 0 to complete, but the arrivals that complete it (tcgen05.commit at line 268:7 in role 'mma (rank 0)') come only after waits that never return: the roles deadlock: it never returns}}
      "tcgen05.mbarrier_wait"(%empty, %p0) : (!mb, i32) -> ()
      "tcgen05.tma_load"(%tmB, %b, %full, %c0, %c0) : (!llvm.ptr<1>, !tb, !mb, index, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{this wait in role 'mma (rank 0)' for parity 0 of the mbarrier (allocated at line 252:11, its copy in the CTA of rank 0) needs phase 0 to complete, but its arrivals are in and only 32768 of the 40960 bytes its tcgen05.mbarrier_expect_tx announced (tcgen05.mbarrier_expect_tx at line 257:7 in role 'load (rank 0)') have landed: the TMA loads of the rest come only after waits that never return (PTX ISA 9.7.13.15): it never returns}}
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%empty) {multicast_mask = 3 : i64} : (!mb) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{this wait in role 'epilogue (rank 0)' for parity 0 of the mbarrier (allocated at line 253:11, its copy in the CTA of rank 0) needs phase 0 to complete, but the arrivals that complete it (tcgen05.commit at line 269:7 in role 'mma (rank 0)') come only after waits that never return}}
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
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// Two multicast commits to %done with no wait between: phase 1 may complete before the
// epilogue's wait for phase 0 runs in either CTA (9.7.13.15.16).
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @overrun(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()  // expected-error {{the arrival of tcgen05.commit in role 'mma (rank 0)' may still be in flight when the CTA holding its mbarrier exits: no wait observes phase 1 (parity 1) of the mbarrier (allocated at line 307:11, its copy in the CTA of rank 0); phase 1 (parity 1) of the mbarrier (allocated at line 307:11, its copy in the CTA of rank 1)}}
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{phase 1 of this wait's mbarrier (allocated at line 307:11, its copy in the CTA of rank 0) may complete before the wait (for parity 0) in role 'epilogue (rank 0)' runs: its arrival tcgen05.commit at line 313:7 in role 'mma (rank 0)' is not ordered after the wait, which then waits for phase 2 (9.7.13.15.16)}}
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
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// Refused: %done is signalled by a commit to both CTAs and by arrivals at the even CTA's
// copy: the CTAs the wait runs in are ambiguous (the lowering refuses it too).
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @ambiguous(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "tcgen05.commit"(%done) {multicast_mask = 3 : i64} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{the ops that signal this wait's mbarrier signal different CTAs of the pair, so which CTAs wait is ambiguous (9.7.16.12.1)}}
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "tcgen05.mbarrier_arrive"(%done) {cta = "even"} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}

// -----

// The ordered pair protocol without the MMA's commit: no arrival ever reaches %done, so
// the epilogue's wait never returns in either CTA, and nothing orders the MMA before
// the dealloc (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @pair_no_commit(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {count = 64 : i64} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !mb
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) {cta = "even"} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{this wait in role 'epilogue (rank 0)' for parity 0 of the mbarrier (allocated at line 397:11, its copy in the CTA of rank 0) needs phase 0 to complete, but only 0 arrivals reach it in the whole kernel (it needs 1; from: none): it never returns}}
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
  // expected-error @+1 {{tcgen05.dealloc frees TMEM columns [0, 64) that tcgen05.mma at line 408:7 in role 'mma (rank 0)' accesses, without ordering: missing tcgen05.commit after it -> an mbarrier wait for its phase before the joining barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}
