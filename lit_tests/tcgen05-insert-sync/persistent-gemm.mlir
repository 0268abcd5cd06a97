// The persistent GEMM with a double-buffered accumulator (examples/persistent_gemm_bf16.mlir):
// the MMAs of one tile are issued while the epilogue of the previous tile still reads the
// other accumulator; between them sits no wait the dependences do not need. Then the
// whole kernel goes through ptxas.
// REQUIRES: ptxas
// RUN: tcgen05-lower %examples/persistent_gemm_bf16.mlir --emit=mlir | FileCheck %s
// RUN: tcgen05-lower %examples/persistent_gemm_bf16.mlir --arch sm_100a -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// The generated code: both mbarriers are initialized by one thread, made visible with
// fence.mbarrier_init and a barrier before any use; each gets its commits from the
// thread that issues the MMAs, and every thread waits on it with try_wait.parity.
// PTX: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0;
// PTX: setp.ne.b32 tcgen05_guard, [[LEADER:%r[0-9]+]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[B0:%r[0-9]+]]], {{%r[0-9]+}};
// PTX: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard mbarrier.init.shared::cta.b64 [[[B1:%r[0-9]+]]], {{%r[0-9]+}};
// PTX: setp.ne.b32 tcgen05_guard, [[LEADER]], 0; @tcgen05_guard fence.mbarrier_init.release.cluster;
// PTX-NEXT: // end inline asm
// PTX: barrier.sync 0;
// PTX: tcgen05.alloc
// PTX: setp.ne.b32 tcgen05_guard, [[ISSUER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.mma.cta_group::1.kind::f16
// PTX: setp.ne.b32 tcgen05_guard, [[ISSUER]], 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[B0]]];
// PTX: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[B0]]],
// PTX: setp.ne.b32 tcgen05_guard, {{%r[0-9]+}}, 0; @tcgen05_guard tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [[[B1]]];
// PTX: mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [[[B1]]],
// PTX: tcgen05.dealloc
//
// Phases, by hand: %[[B0]] gets one commit at the end of each iteration of the first main
// loop (2 per pair of tiles), %[[B1]] one at the end of each iteration of the second.
// Inside a main loop, before K iteration k of pair p, 2p + k commits went to its
// mbarrier: the wait for the most recent uses parity (2p + k - 1) mod 2 = (k + 1) mod 2
// (for k = 0 of pair 0, the phase before the first, which a fresh mbarrier reports
// complete). Before the second main loop, 2p + 2 went to B0; at the end of pair p,
// 2p + 2 went to B1: parity 1 for both.

// CHECK-LABEL: func.func @persistent_gemm_bf16
// CHECK-DAG:  [[B0:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK-DAG:  [[B1:%.+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK:      [[ACC0:%.+]] = "tcgen05.tmem_buffer"({{%.+}}) {column_offset = 0 : i64, columns = 256 : i64, {{.*}} name = "acc0"
// CHECK-NEXT: [[ACC1:%.+]] = "tcgen05.tmem_buffer"({{%.+}}) {column_offset = 256 : i64, columns = 256 : i64, {{.*}} name = "acc1"
// CHECK-NEXT: {{^ *}}scf.for

// The main loop of tile 2p into acc0: refills wait for the previous K iteration's MMAs;
// before the first refill nothing else is needed (see the end of the pair's body).
// CHECK-NOT:  "tcgen05.
// CHECK:      {{^ *}}scf.for
// CHECK:      "tcgen05.mbarrier_wait"([[B0]],
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: "tcgen05.smem_fill"
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: "tcgen05.fence_proxy_async"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.mma"([[ACC0]],
// CHECK-NEXT: "tcgen05.mma"([[ACC0]],
// CHECK-NEXT: "tcgen05.mma"([[ACC0]],
// CHECK-NEXT: "tcgen05.mma"([[ACC0]],
// CHECK-NEXT: "tcgen05.commit"([[B0]])
// CHECK-NEXT: {{^ *}$}}

// The epilogue of tile 2p - 1 reads acc1 while the last MMAs into acc0 run: nothing
// between the MMAs and these loads (acc1's MMAs were waited for at the end of the
// previous pair, with the fence that orders them before these loads).
// CHECK-NEXT: arith.cmpi ugt
// CHECK-NEXT: {{^ *}}scf.if
// CHECK-NEXT: arith.subi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: {{^ *}}scf.for
// CHECK-NEXT: "tcgen05.ld"([[ACC1]],

// Before the main loop of tile 2p + 1 into acc1: the loads of acc1 complete and are
// ordered before the MMAs that overwrite it (9.7.16.6.4.4), and the MMAs of tile 2p,
// which read the shared tiles about to be refilled, complete.
// CHECK:      "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before scf.for at line {{[0-9]+}}: WAR on TMEM columns [256, 512)"}
// CHECK-NEXT: [[P2:%.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[B0]], [[P2]]) {reason = "completion of tcgen05.mma at line {{[0-9]+}}, {{.*}} before scf.for at line {{[0-9]+}}: WAR on a shared-memory tile"}
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: {{^ *}}scf.for
// CHECK:      "tcgen05.mbarrier_wait"([[B1]],
// CHECK:      "tcgen05.mma"([[ACC1]],
// CHECK-NEXT: "tcgen05.mma"([[ACC1]],
// CHECK-NEXT: "tcgen05.mma"([[ACC1]],
// CHECK-NEXT: "tcgen05.mma"([[ACC1]],
// CHECK-NEXT: "tcgen05.commit"([[B1]])
// CHECK-NEXT: {{^ *}$}}

// The epilogue of tile 2p reads acc0 while the MMAs of tile 2p + 1 run: no mbarrier wait,
// no tcgen05.wait and no fence between the last MMA into acc1 and the first load of acc0
// (acc0's MMAs completed at the wait before the second main loop, and the
// fence::after_thread_sync there ordered them before these loads).
// CHECK-NEXT: {{^ *}}scf.for
// CHECK-NEXT: "tcgen05.ld"([[ACC0]],
// CHECK-NEXT: arith.addi
// CHECK-NEXT: "tcgen05.store_fragment"
// CHECK-NEXT: {{^ *}$}}

// The end of the pair: before the next pair's main loop overwrites acc0, the epilogue's
// loads of it complete and are ordered before the MMAs; its refills need the MMAs of
// tile 2p + 1 complete. Waiting here (rather than at the top of the next pair, the same
// moment) also serves the epilogue of the last tile after the loop.
// CHECK-NEXT: "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line {{[0-9]+}} before scf.for at line {{[0-9]+}}: WAR on TMEM columns [0, 256) (next iteration)"}
// CHECK-NEXT: [[P1:%.+]] = arith.constant 1 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[B1]], [[P1]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: {{^ *}$}}

// After the loop over pairs: the epilogue of the last tile, then every load before the
// columns are freed.
// CHECK-NEXT: {{^ *}}scf.for
// CHECK-NEXT: "tcgen05.ld"([[ACC1]],
// CHECK:      "tcgen05.wait"() {kind = "ld"
// CHECK-NEXT: "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT: "tcgen05.barrier"
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.dealloc"
