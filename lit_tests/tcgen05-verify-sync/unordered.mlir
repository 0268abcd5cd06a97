// tcgen05-verify-sync reports every unordered dependence at the later op, with the earlier
// op's location and the mechanism that is missing. Expected messages are derived from the
// rules of PTX ISA 9.7.16.6.4 / 9.7.16.6.5 (see the pass docstring); the programs are
// planned by hand.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// An MMA's accumulator loaded with no commit at all (9.7.16.6.4.4).
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @no_commit(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 20:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Committed and waited for, but no fence::after_thread_sync before the asynchronous load.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @no_fence_after(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %p0 = arith.constant 0 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [32, 64) that tcgen05.mma at line 45:3 writes, without ordering: missing tcgen05.fence::after_thread_sync after the mbarrier wait (9.7.16.6.4.4)}}
  %x = "tcgen05.ld"(%acc, %c32) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// The wait names parity 1: on a fresh mbarrier that is the phase before the first, which
// mbarrier.try_wait.parity reports complete at once, so the wait completes nothing.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @wrong_parity(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %p1 = arith.constant 1 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p1) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 72:3 writes, without ordering: missing an mbarrier wait for the phase that the tcgen05.commit at line 73:3 completes -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// A wait for a phase that nothing completes: it would never return.
func.func @never_returns()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p0 = arith.constant 0 : i32
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  // expected-error @below {{this wait for parity 0 of the mbarrier needs phase 0 to complete, but only 0 tcgen05.commit ops were issued to it before: it never returns}}
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  return
}

// -----

// A loop of single-thread work only: wait, then the next iteration's commit to the same
// mbarrier with no barrier in between.
!acc = !tcgen05.tmem<[128, 128], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[128, 16], bf16, "K", "none">
func.func @commit_without_barrier()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = arith.constant true
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %at = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  scf.for %i = %c0 to %c4 step %c1 {
    "tcgen05.mma"(%acc, %at, %b, %t) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
    // expected-error @below {{tcgen05.commit to the mbarrier that the wait at line 121:5 waits on, with no barrier between them: a thread still in that wait could see this commit complete the next phase too and then wait for a phase that never completes}}
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
    %it = arith.index_cast %i : index to i32
    %one = arith.constant 1 : i32
    %parity = arith.andi %it, %one : i32
    "tcgen05.mbarrier_wait"(%bar, %parity) : (!tcgen05.mbarrier, i32) -> ()
    "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
    "tcgen05.cp"(%at, %a) {shape = "128x256b"} : (!at, !ta) -> ()
  }
  return
}

// -----

// A load, then an MMA that overwrites the cells it read: the three ways to leave the
// cross-thread pattern of 9.7.16.6.4.4 incomplete.
!acc = !tcgen05.tmem<[128, 32], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[32, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @ld_then_mma(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 32 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc2 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %x0 = "tcgen05.ld"(%acc0, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x0, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  // expected-error @below {{tcgen05.mma writes TMEM columns [0, 32) that tcgen05.ld at line 146:9 reads, without ordering: missing tcgen05.wait::ld -> tcgen05.fence::before_thread_sync -> barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x1 = "tcgen05.ld"(%acc1, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x1, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  // expected-error @below {{tcgen05.mma writes TMEM columns [32, 64) that tcgen05.ld at line 150:9 reads, without ordering: missing tcgen05.fence::before_thread_sync -> barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.mma"(%acc1, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x2 = "tcgen05.ld"(%acc2, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x2, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @below {{tcgen05.mma writes TMEM columns [64, 96) that tcgen05.ld at line 155:9 reads, without ordering: missing barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.mma"(%acc2, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}

// -----

// tcgen05.st then tcgen05.ld of the same cells, same warp: wait::st (9.7.16.6.4.2).
!buf = !tcgen05.tmem<[128, 32], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @st_then_ld(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  %in = "tcgen05.load_fragment"(%A, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
  "tcgen05.st"(%buf, %c0, %in) : (!buf, index, !frag) -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.st at line 176:3 writes, without ordering: missing tcgen05.wait::st (9.7.16.6.4.2)}}
  %out = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
  "tcgen05.store_fragment"(%out, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Shared memory written through the generic proxy and read by MMAs through the async
// proxy (9.7.16.6.5): no fence, then a fence without a barrier; and a refill of a tile an
// MMA still reads.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @shared_memory(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 32 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 32 : i64} : (!llvm.ptr<1>, !tb, index) -> ()
  "tcgen05.fence_proxy_async"() : () -> ()
  // expected-error @below {{tcgen05.mma reads a shared-memory tile that tcgen05.smem_fill at line 201:3 writes through the generic proxy, without ordering: missing a barrier after fence.proxy.async (9.7.16.6.5)}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  // expected-error @above {{tcgen05.mma reads a shared-memory tile that tcgen05.smem_fill at line 202:3 writes through the generic proxy, without ordering: missing a barrier after fence.proxy.async (9.7.16.6.5)}}
  // expected-error @below {{tcgen05.smem_fill overwrites a shared-memory tile that tcgen05.mma at line 205:3 reads through the async proxy, without ordering: missing tcgen05.commit -> mbarrier wait (9.7.16.6.5)}}
  "tcgen05.smem_fill"(%A, %a, %c16) {src_layout = "mn_k", src_ld = 32 : i64} : (!llvm.ptr<1>, !ta, index) -> ()
  // The earlier fills are still not followed by a barrier either.
  // expected-error @+3 {{tcgen05.mma reads a shared-memory tile that tcgen05.smem_fill at line 201:3 writes through the generic proxy, without ordering: missing a barrier after fence.proxy.async (9.7.16.6.5)}}
  // expected-error @+2 {{tcgen05.mma reads a shared-memory tile that tcgen05.smem_fill at line 202:3 writes through the generic proxy, without ordering: missing a barrier after fence.proxy.async (9.7.16.6.5)}}
  // expected-error @below {{tcgen05.mma reads a shared-memory tile that tcgen05.smem_fill at line 208:3 writes through the generic proxy, without ordering: missing fence.proxy.async -> barrier (9.7.16.6.5)}}
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}

// -----

// A load in a loop whose registers nobody reads: the next iteration's load writes them
// again while the previous one may still be writing them (9.7.16.6.4.5).
!buf = !tcgen05.tmem<[128, 32], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @registers_overwritten()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @below {{tcgen05.ld writes its destination registers again while its previous execution may still be writing them, without ordering: missing tcgen05.wait::ld (9.7.16.6.4.5)}}
    %x = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
  }
  return
}

// -----

// Freeing columns that a load of another warp may still read (9.7.16.6.4.4).
!buf = !tcgen05.tmem<[128, 32], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @dealloc_while_loading(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  %x = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  // expected-error @below {{tcgen05.dealloc frees TMEM columns [0, 32) that tcgen05.ld at line 247:8 accesses, without ordering: missing tcgen05.fence::before_thread_sync -> barrier -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4)}}
  "tcgen05.dealloc"(%base) {columns = 32 : i64, cta_group = 1 : i64} : (i32) -> ()
  return
}

// -----

// Single-thread pairs that are not pipelined: shift -> cp.128x256b on one buffer, and
// MMAs on two buffers that share cells but differ in shape (not "the same accumulator
// and shape" of 9.7.16.6.2).
!sf = !tcgen05.tmem<[128, 8], f32>
!acc64 = !tcgen05.tmem<[128, 64], f32>
!acc32 = !tcgen05.tmem<[128, 32], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb64 = !tcgen05.smem<[64, 16], bf16, "K", "none">
!tb32 = !tcgen05.smem<[32, 16], bf16, "K", "none">
func.func @not_pipelined()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b64 = "tcgen05.smem_buffer"() : () -> !tb64
  %b32 = "tcgen05.smem_buffer"() : () -> !tb32
  %sf = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !sf
  %big = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc64
  %small = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc32
  "tcgen05.shift"(%sf) : (!sf) -> ()
  // expected-error @below {{tcgen05.cp writes TMEM columns [64, 72) that tcgen05.shift at line 276:3 also writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.2)}}
  "tcgen05.cp"(%sf, %a) {shape = "128x256b"} : (!sf, !ta) -> ()
  "tcgen05.mma"(%big, %a, %b64, %f) {kind = "f16"} : (!acc64, !ta, !tb64, i1) -> ()
  // expected-error @below {{tcgen05.mma reads TMEM columns [0, 32) that tcgen05.mma at line 279:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.2)}}
  "tcgen05.mma"(%small, %a, %b32, %f) {kind = "f16"} : (!acc32, !ta, !tb32, i1) -> ()
  return
}

// -----

// What the pass cannot check is an error too: a parity it cannot evaluate, a region op
// it does not run (scf.for, scf.if, scf.index_switch and scf.while it runs).
func.func @unknown_parity(%p: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  // expected-error @below {{tcgen05-verify-sync cannot evaluate the phase parity of this wait}}
  "tcgen05.mbarrier_wait"(%bar, %p) : (!tcgen05.mbarrier, i32) -> ()
  return
}

// -----

!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @execute_region()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  // expected-error @below {{tcgen05-verify-sync cannot check tcgen05 ops inside 'scf.execute_region' yet}}
  scf.execute_region {
    "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    scf.yield
  }
  return
}

// -----

// A branch on a value the pass cannot evaluate, committing in one branch only: after the
// scf.if the mbarrier's phase depends on the branch taken, so a wait on it cannot be
// checked.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @uneven_branches(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %p = arith.cmpi ne, %n, %c0 : index
  scf.if %p {
    "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  }
  // expected-error @below {{the phase of this op's mbarrier is unknown here: the branches of the scf.if at line 337:3 commit to it a different number of times}}
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  return
}

// -----

// Two MMAs of one shape whose accumulators may differ: the second one's is chosen by an
// scf.if between %a0 and %a1, which share columns [32, 64). Had the branch chosen %a1,
// they are not the same accumulator (9.7.16.6.2), so they need commit -> wait ->
// fence::after (9.7.16.6.4.2); the message names the choice that shares cells without
// being the same buffer.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @overlapping_choice(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %a1 = "tcgen05.tmem_buffer"(%base) {column_offset = 32 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %p = arith.cmpi ne, %n, %c0 : index
  %s = scf.if %p -> (!acc) {
    scf.yield %a0 : !acc
  } else {
    scf.yield %a1 : !acc
  }
  "tcgen05.mma"(%a0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  // expected-error @below {{tcgen05.mma reads TMEM columns [32, 96) that tcgen05.mma at line 370:3 writes, without ordering: missing tcgen05.commit -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.2)}}
  "tcgen05.mma"(%s, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}

// -----

// A CTA pair (issue 21): the MMA is issued in the even CTA, the load runs in both. The
// plain commit signals the issuing CTA's mbarrier only (9.7.16.12.1), so the odd CTA's
// load is not ordered after the MMA (and neither is its dealloc); the commit needs
// multicast_mask = 0b11. The same program with a tcgen05.cp as the only consumer is
// ordered (lit_tests/tcgen05-insert-sync/pair-commit-masks.mlir).
!acc = !tcgen05.tmem<[256, 32], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[16, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[256, 32], f32>
func.func @pair_plain_commit_before_load(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %f = arith.constant false
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 2 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%bar, %p0) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @below {{tcgen05.ld reads TMEM columns [0, 32) that tcgen05.mma at line 397:3 writes, and runs in both CTAs of the pair, but the tcgen05.commit at line 398:3 arrives only at the mbarrier of CTA mask 0b1: the odd CTA never waits for it; missing a tcgen05.commit with multicast_mask = 0b11 -> mbarrier wait -> tcgen05.fence::after_thread_sync (9.7.16.6.4.4, 9.7.16.12.1)}}
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
  "tcgen05.barrier"() : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  // expected-error @below {{tcgen05.dealloc frees TMEM columns [0, 32) that tcgen05.mma at line 397:3 accesses, and runs in both CTAs of the pair, but the tcgen05.commit at line 398:3}}
  "tcgen05.dealloc"(%base) {columns = 32 : i64, cta_group = 2 : i64} : (i32) -> ()
  return
}
