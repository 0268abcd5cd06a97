// tcgen05-verify-sync on TMA loads (module docstring of the pass): a tma_load is complete
// once a wait observes the phase its mbarrier_expect_tx arrives in; an mma reading the
// tile before that, a tma_load refilling a tile an mma still reads (no commit -> wait),
// a tma_load with no expect_tx in its mbarrier's current phase, and an expect_tx after a
// wait on its mbarrier without a barrier between are errors naming both ops. The loop
// runs twice, so what one iteration leaves unordered meets the next. Expected texts
// derived by hand from those rules; the kernels are planned by hand.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics
// The full/empty protocol of examples/gemm_bf16_tma.mlir. No error.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @ordered(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%empty) : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// No wait on %full: the MMA reads both tiles before the loads are known complete, and the next iteration's loads overwrite tiles still being written.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @no_full_wait(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    // expected-error @+1 {{tcgen05.tma_load overwrites a shared-memory tile that tcgen05.tma_load at line 68:5 writes through the async proxy (TMA), without ordering: missing an mbarrier wait for the phase that the tcgen05.mbarrier_expect_tx at line 66:5 arrives in (PTX ISA 9.7.9.25.5.1, complete_tx)}}
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    // expected-error @+1 {{tcgen05.tma_load overwrites a shared-memory tile that tcgen05.tma_load at line 70:5 writes through the async proxy (TMA), without ordering: missing an mbarrier wait for the phase that the tcgen05.mbarrier_expect_tx at line 66:5 arrives in (PTX ISA 9.7.9.25.5.1, complete_tx)}}
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    // expected-error @+2 {{tcgen05.mma reads a shared-memory tile that tcgen05.tma_load at line 68:5 writes through the async proxy (TMA), without ordering: missing an mbarrier wait for the phase that the tcgen05.mbarrier_expect_tx at line 66:5 arrives in (PTX ISA 9.7.9.25.5.1, complete_tx)}}
    // expected-error @+1 {{tcgen05.mma reads a shared-memory tile that tcgen05.tma_load at line 70:5 writes through the async proxy (TMA), without ordering: missing an mbarrier wait for the phase that the tcgen05.mbarrier_expect_tx at line 66:5 arrives in (PTX ISA 9.7.9.25.5.1, complete_tx)}}
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%empty) : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// No wait on %empty: the next iteration's loads overwrite tiles the MMA may still read; the two commits with no wait between also leave the final wait completing nothing.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @no_empty_wait(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    // expected-error @+1 {{tcgen05.tma_load overwrites a shared-memory tile that tcgen05.mma at line 110:5 reads through the async proxy, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 111:5 completes (9.7.16.6.5)}}
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    // expected-error @+1 {{tcgen05.tma_load overwrites a shared-memory tile that tcgen05.mma at line 110:5 reads through the async proxy, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 111:5 completes (9.7.16.6.5)}}
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%empty) : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @+1 {{tcgen05.dealloc frees TMEM columns [0, 64) that tcgen05.mma at line 110:5 accesses, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 111:5 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// B's load comes after the wait that ends the phase A's expect_tx opened.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @load_after_wait(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
    "tcgen05.barrier"() : () -> ()
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    // expected-error @+1 {{tcgen05.tma_load signals complete_tx on an mbarrier with no tcgen05.mbarrier_expect_tx in its current phase (none since the last wait or commit on it): the phase completes without its bytes, or its bytes land in a later phase (PTX ISA 9.7.13.15)}}
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%empty) : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// No barrier between the wait on %full and the next iteration's expect_tx on it (nor between the wait on %empty and the commit to it).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
func.func @no_barrier(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>,
    %tma: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}},
    %tmb: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "B", box = array<i64: 64, 64>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %empty = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %k = %c0 to %c2 step %c1 {
    "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
    // expected-error @+1 {{tcgen05.mbarrier_expect_tx to the mbarrier that the wait at line 184:5 waits on, with no barrier between them: a thread still in that wait could see this arrival complete the next phase too and then wait for a phase that never completes}}
    "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.tma_load"(%tma, %a, %full, %k, %c0) : (!llvm.ptr<1>, !ta, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.tma_load"(%tmb, %b, %full, %k, %c0) : (!llvm.ptr<1>, !tb, !tcgen05.mbarrier, index, index) -> ()
    "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    // expected-error @+1 {{tcgen05.commit to the mbarrier that the wait at line 179:5 waits on, with no barrier between them: a thread still in that wait could see this commit complete the next phase too and then wait for a phase that never completes}}
    "tcgen05.commit"(%empty) : (!tcgen05.mbarrier) -> ()
  }
  "tcgen05.mbarrier_wait"(%empty) : (!tcgen05.mbarrier) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  "tcgen05.dealloc"(%base) {columns = 64 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// Refused: a TMA load in a cta_group::2 kernel. Each CTA loads its slice and both loads
// complete on the even CTA's mbarrier, which the odd CTA does not wait on; the
// one-program model (every CTA sees each wait) would not be sound (docs/cta-pairs.md).
!pa = !tcgen05.smem<[128, 64], bf16, "K", "128B">
func.func @pair_tma_load(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !pa
  %full = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{tcgen05-verify-sync does not check TMA loads in a cta_group::2 kernel (each CTA's load completes on the even CTA's mbarrier, which the odd CTA does not wait on; docs/cta-pairs.md)}}
  "tcgen05.tma_load"(%tm, %a, %full, %c0, %c0) : (!llvm.ptr<1>, !pa, !tcgen05.mbarrier, index, index) -> ()
  "tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()
  return
}
