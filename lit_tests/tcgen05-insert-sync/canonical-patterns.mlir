// The five canonical synchronization patterns of PTX ISA 9.7.16.6.4, each from a planned
// kernel with no sync op of its own: the pass output is checked op by op, and then
// tcgen05-verify-sync (an independent analysis) must accept it.
// The inputs are written at the planned level (buffers already have their columns), so
// that nothing but tcgen05-insert-sync decides what the output contains.
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --split-input-file | FileCheck %s
// RUN: tcgen05-opt %s -p tcgen05-insert-sync,tcgen05-verify-sync --split-input-file | FileCheck %s

// 9.7.16.6.4.1, pipelined instructions, same thread. Every pair below is one of the five
// pipelined pairs of 9.7.16.6.2, all issued by the one issuing thread with the kernel's
// cta_group: nothing is inserted anywhere.
// CHECK-LABEL: func.func @pipelined_same_thread
// mma -> mma, same accumulator and shape:
// CHECK:      "tcgen05.mma"([[ACC:%[^,]+]], {{%[^,]+}}, {{%[^,]+}}, {{%[^,]+}}) {k_offset = 0
// CHECK-NEXT: "tcgen05.mma"([[ACC]], {{.*}} {k_offset = 16
// cp -> mma (the MMA reads A from the copied cells):
// CHECK-NEXT: "tcgen05.cp"([[A1:%[^,]+]],
// CHECK-NEXT: "tcgen05.mma"({{%[^,]+}}, [[A1]],
// mma -> shift -> mma (the shift moves the rows of A between the two MMAs):
// CHECK-NEXT: "tcgen05.mma"([[ACC3:%[^,]+]], [[A2:%[^,]+]],
// CHECK-NEXT: "tcgen05.shift"([[A2]])
// CHECK-NEXT: "tcgen05.mma"([[ACC3]], [[A2]],
// shift -> cp.4x256b:
// CHECK-NEXT: "tcgen05.shift"([[SF:%[^)]+]])
// CHECK-NEXT: "tcgen05.cp"([[SF]], {{.*}} {shape = "4x256b"}
// CHECK-NEXT: return
// CHECK-NOT: tcgen05.alloc_mbarrier
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!sf = !tcgen05.tmem<[128, 8], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @pipelined_same_thread()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc2 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc3 = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %a1 = "tcgen05.tmem_buffer"(%base) {column_offset = 192 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  %a2 = "tcgen05.tmem_buffer"(%base) {column_offset = 200 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  %sf = "tcgen05.tmem_buffer"(%base) {column_offset = 208 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !sf
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16", k_offset = 16 : i64} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.cp"(%a1, %a) {shape = "128x256b"} : (!at, !ta) -> ()
  "tcgen05.mma"(%acc2, %a1, %b, %f) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  "tcgen05.mma"(%acc3, %a2, %b, %f) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  "tcgen05.shift"(%a2) : (!at) -> ()
  "tcgen05.mma"(%acc3, %a2, %b, %t) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  "tcgen05.shift"(%sf) : (!sf) -> ()
  "tcgen05.cp"(%sf, %a) {shape = "4x256b"} : (!sf, !ta) -> ()
  return
}

// -----

// 9.7.16.6.4.2, non-pipelined instructions, same thread.
// Example 1: tcgen05.st, then tcgen05.wait::st, then tcgen05.ld of the same cells.
// CHECK-LABEL: func.func @st_then_ld
// CHECK:      "tcgen05.st"([[BUF:%[^,]+]],
// CHECK-NEXT: "tcgen05.wait"() {kind = "st", reason = "completion of tcgen05.st at line {{[0-9]+}} before tcgen05.ld at line {{[0-9]+}}: RAW on TMEM columns [0, 32)"}
// CHECK-NEXT: "tcgen05.ld"([[BUF]],
!buf = !tcgen05.tmem<[128, 32], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @st_then_ld(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  %in = "tcgen05.load_fragment"(%A, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
  "tcgen05.st"(%buf, %c0, %in) : (!buf, index, !frag) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
  "tcgen05.store_fragment"(%out, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Example 2: tcgen05.mma, then tcgen05.commit to an mbarrier, a wait for its phase, and
// fence::after_thread_sync because tcgen05.ld is asynchronous. The first commit to a
// fresh mbarrier completes phase 0: the wait's parity is the constant 0.
// CHECK-LABEL: func.func @mma_then_ld
// CHECK:      [[MBAR:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK:      "tcgen05.mma"([[ACC:%[^,]+]],
// CHECK-NEXT: "tcgen05.commit"([[MBAR]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.ld at line {{[0-9]+}}: RAW on TMEM columns [0, 32)"}
// CHECK-NEXT: [[P:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[P]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.ld"([[ACC]],
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @mma_then_ld(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Two single-thread ops that are not a pipelined pair: an MMA reads A from TMEM, then a
// tcgen05.cp overwrites it (mma -> cp is not in 9.7.16.6.2's list). Same thread, so the
// pattern of Example 2: commit, wait, fence::after_thread_sync, then the cp.
// CHECK-LABEL: func.func @mma_then_cp
// CHECK:      "tcgen05.mma"({{%[^,]+}}, [[AT:%[^,]+]],
// CHECK-NEXT: "tcgen05.commit"([[MBAR:%[^)]+]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}} before tcgen05.cp at line {{[0-9]+}}: WAR on TMEM columns [128, 136)"}
// CHECK-NEXT: [[P:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MBAR]], [[P]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.cp"([[AT]],
// The second MMA reads what the cp wrote: cp -> mma is pipelined, nothing between.
// CHECK-NEXT: "tcgen05.mma"({{%[^,]+}}, [[AT]],
// CHECK-NEXT: return
!acc = !tcgen05.tmem<[128, 128], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[128, 16], bf16, "K", "none">
func.func @mma_then_cp()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %at = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  "tcgen05.mma"(%acc, %at, %b, %f) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  "tcgen05.cp"(%at, %a) {shape = "128x256b"} : (!at, !ta) -> ()
  "tcgen05.mma"(%acc, %at, %b, %t) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  return
}

// -----

// Also not pipelined: shift -> cp with a shape other than .4x256b (only
// shift -> cp.4x256b is in 9.7.16.6.2's list).
// CHECK-LABEL: func.func @shift_then_cp_128x256b
// CHECK:      "tcgen05.shift"([[SF:%[^)]+]])
// CHECK-NEXT: "tcgen05.commit"
// CHECK-NEXT: arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.cp"([[SF]], {{.*}} {shape = "128x256b"}
!sf = !tcgen05.tmem<[128, 8], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
func.func @shift_then_cp_128x256b()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %sf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !sf
  "tcgen05.shift"(%sf) : (!sf) -> ()
  "tcgen05.cp"(%sf, %a) {shape = "128x256b"} : (!sf, !ta) -> ()
  return
}

// -----

// 9.7.16.6.4.3, pipelined instructions, different threads. In these kernels one thread
// issues every mma, cp and shift (Table 46, as the lowering predicates them), so the two
// ops of a pipelined pair are never issued by different threads: the pattern reduces to
// 9.7.16.6.4.1 and nothing is needed between the cp and the MMA that reads its cells.
// (tcgen05-verify-sync's tests check that the explicit different-thread form,
// cp; fence::before_thread_sync; barrier; fence::after_thread_sync; mma, is accepted.)
// CHECK-LABEL: func.func @pipelined_different_thread
// CHECK:      "tcgen05.cp"([[SF:%[^,]+]],
// CHECK-NEXT: "tcgen05.mma"({{.*}}[[SF]]
// CHECK-NEXT: return
!acc = !tcgen05.tmem<[128, 128], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[128, 16], bf16, "K", "none">
func.func @pipelined_different_thread()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %at = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  "tcgen05.cp"(%at, %a) {shape = "128x256b"} : (!at, !ta) -> ()
  "tcgen05.mma"(%acc, %at, %b, %f) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()
  return
}

// -----

// 9.7.16.6.4.4, non-pipelined instructions, different threads.
// Example 1: the warpgroup's tcgen05.ld of an accumulator, then the issuing thread's MMA
// overwrites it: wait::ld, fence::before_thread_sync, an execution barrier,
// fence::after_thread_sync, then the MMA.
// CHECK-LABEL: func.func @ld_then_mma
// CHECK:      [[X:%.+]] = "tcgen05.ld"([[ACC:%[^,]+]],
// CHECK-NEXT: "tcgen05.store_fragment"([[X]],
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before tcgen05.mma at line {{[0-9]+}}: WAR on TMEM columns [0, 64)"}
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.mma"([[ACC]],
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @ld_then_mma(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}

// -----

// The same pattern for tcgen05.st: the warpgroup writes A into TMEM, the MMA reads it.
// CHECK-LABEL: func.func @st_then_mma
// CHECK:      "tcgen05.st"([[AT:%[^,]+]],
// CHECK-NEXT: "tcgen05.wait"() {kind = "st", reason = "completion of tcgen05.st at line {{[0-9]+}} before tcgen05.mma at line {{[0-9]+}}: RAW on TMEM columns [128, 136)"}
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"()
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.mma"({{%[^,]+}}, [[AT]],
!acc = !tcgen05.tmem<[128, 128], f32>
!at = !tcgen05.tmem<[128, 8], f32>
!tb = !tcgen05.smem<[128, 8], tf32, "K", "none">
!frag = !tcgen05.frag<[128, 8], f32>
func.func @st_then_mma(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 128 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %at = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  %in = "tcgen05.load_fragment"(%A, %c0) {ld = 8 : i64} : (!llvm.ptr<1>, index) -> !frag
  "tcgen05.st"(%at, %c0, %in) : (!at, index, !frag) -> ()
  "tcgen05.mma"(%acc, %at, %b, %f) {kind = "tf32"} : (!acc, !at, !tb, i1) -> ()
  return
}

// -----

// 9.7.16.6.4.5, register dependencies, same thread. Reading the registers a tcgen05.ld
// wrote is ordered by the true dependency: no wait::ld between the load and its use.
// Overwriting the load's source cells is not: wait::ld before the tcgen05.st.
// CHECK-LABEL: func.func @ld_registers
// CHECK:      [[X:%.+]] = "tcgen05.ld"([[BUF:%[^,]+]],
// CHECK-NEXT: "tcgen05.store_fragment"([[X]],
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before tcgen05.st at line {{[0-9]+}}: WAR on TMEM columns [0, 32)"}
// CHECK-NEXT: "tcgen05.st"([[BUF]],
!buf = !tcgen05.tmem<[128, 32], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @ld_registers(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  %in = "tcgen05.load_fragment"(%A, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
  %x = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  "tcgen05.st"(%buf, %c0, %in) : (!buf, index, !frag) -> ()
  return
}

// -----

// A load in a loop whose registers are never read: the next iteration's load writes the
// same registers, so wait::ld first (9.7.16.6.4.5); the first iteration waits for
// nothing. A load whose registers are read needs no wait (second loop).
// CHECK-LABEL: func.func @ld_registers_in_loops
// CHECK:      scf.for
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before tcgen05.ld at line {{[0-9]+}}: its destination registers are written again (next iteration)"}
// CHECK-NEXT: "tcgen05.ld"
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: scf.for
// CHECK-NEXT: [[X:%.+]] = "tcgen05.ld"
// CHECK-NEXT: "tcgen05.store_fragment"([[X]],
// CHECK-NEXT: {{^ *}$}}
!buf = !tcgen05.tmem<[128, 32], f32>
!frag = !tcgen05.frag<[128, 32], f32>
func.func @ld_registers_in_loops(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %buf = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !buf
  scf.for %i = %c0 to %c4 step %c1 {
    %x = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %y = "tcgen05.ld"(%buf, %c0) : (!buf, index) -> !frag
    "tcgen05.store_fragment"(%y, %C, %c0) {ld = 32 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  }
  return
}
