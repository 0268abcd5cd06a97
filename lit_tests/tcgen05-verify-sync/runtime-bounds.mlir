// tcgen05-verify-sync on roles whose loop bounds are different expressions of one
// run-time value (tcgen05_lower/sync_check/runtime_bounds.py): the checker binds the
// kernel argument %n the bounds are computed from, so that a loop to n - 1 runs one trip
// fewer than a loop to n in every run, whichever of the two loops is traced first. The
// kernels are planned by hand; the verdicts are derived by hand from the mbarrier phases
// (9.7.13.15.16): a phase completes after `count` arrivals, a wait for parity p returns
// once the phase it waits for (the k-th wait on the mbarrier in its role waits for phase
// k) has completed.
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

// The consumer (traced first) waits for phase 0 of %full, then for phases 1 .. n - 1 in a
// loop to n - 1: n waits. The producer arrives n times (32 threads each), each phase after
// it knows the previous one consumed through %free. n waits for n phases: no problem for
// any n >= 1. (Binding each bound expression to the run's count instead ran both loops t
// times: t + 1 waits for t phases, a false deadlock.)
!mb = !tcgen05.mbarrier
func.func @minus_one_first(%n: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 64 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %nn = arith.index_cast %n : i32 to index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      %p0 = arith.constant 0 : i32
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      %last = arith.subi %nn, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %j1 = arith.addi %j, %c1 : index
        %par = arith.remui %j1, %c2 : index
        %p = arith.index_cast %par : index to i32
        "tcgen05.mbarrier_wait"(%full, %p) : (!mb, i32) -> ()
        "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "consumer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nn step %c1 {
        %later = arith.cmpi ugt, %j, %c0 : index
        scf.if %later {
          %j0 = arith.subi %j, %c1 : index
          %par = arith.remui %j0, %c2 : index
          %p = arith.index_cast %par : index to i32
          "tcgen05.mbarrier_wait"(%free, %p) : (!mb, i32) -> ()
        }
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The same two roles, the producer (the loop to n) traced first: the same verdict.
!mb = !tcgen05.mbarrier
func.func @n_first(%n: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 64 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %nn = arith.index_cast %n : i32 to index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nn step %c1 {
        %later = arith.cmpi ugt, %j, %c0 : index
        scf.if %later {
          %j0 = arith.subi %j, %c1 : index
          %par = arith.remui %j0, %c2 : index
          %p = arith.index_cast %par : index to i32
          "tcgen05.mbarrier_wait"(%free, %p) : (!mb, i32) -> ()
        }
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %p0 = arith.constant 0 : i32
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
      "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      %last = arith.subi %nn, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %j1 = arith.addi %j, %c1 : index
        %par = arith.remui %j1, %c2 : index
        %p = arith.index_cast %par : index to i32
        "tcgen05.mbarrier_wait"(%full, %p) : (!mb, i32) -> ()
        "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "consumer", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The consumer (traced first) waits in a loop to n + 1 for phases 0 .. n, the producer
// arrives for n phases only: the consumer's last wait (phase n) never returns, for every
// n >= 0. The runs give the first loop 1 .. 4 trips (two mbarriers of one stage: a phase
// period of 2, plus two), the smallest n that does: n = 0 .. 3, so the waits for phases
// 0 .. 3 are reported, each with the n arrivals of its run. (Binding each bound
// expression to the run's count instead ran both loops t times and accepted the kernel.)
!mb = !tcgen05.mbarrier
func.func @plus_one_first(%n: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 64 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %free = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %nn = arith.index_cast %n : i32 to index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      %more = arith.addi %nn, %c1 : index
      scf.for %j = %c0 to %more step %c1 {
        %par = arith.remui %j, %c2 : index
        %p = arith.index_cast %par : index to i32
        // expected-error @+4 {{this wait in role 'consumer' for parity 0 of the mbarrier needs phase 0 to complete, but only 0 arrivals reach it in the whole kernel (it needs 32): it never returns}}
        // expected-error @+3 {{this wait in role 'consumer' for parity 1 of the mbarrier needs phase 1 to complete, but only 32 arrivals reach it in the whole kernel (it needs 64): it never returns}}
        // expected-error @+2 {{this wait in role 'consumer' for parity 0 of the mbarrier needs phase 2 to complete, but only 64 arrivals reach it in the whole kernel (it needs 96): it never returns}}
        // expected-error @+1 {{this wait in role 'consumer' for parity 1 of the mbarrier needs phase 3 to complete, but only 96 arrivals reach it in the whole kernel (it needs 128): it never returns}}
        "tcgen05.mbarrier_wait"(%full, %p) : (!mb, i32) -> ()
        "tcgen05.mbarrier_arrive"(%free) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "consumer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nn step %c1 {
        %later = arith.cmpi ugt, %j, %c0 : index
        scf.if %later {
          %j0 = arith.subi %j, %c1 : index
          %par = arith.remui %j0, %c2 : index
          %p = arith.index_cast %par : index to i32
          "tcgen05.mbarrier_wait"(%free, %p) : (!mb, i32) -> ()
        }
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A bound that no n >= 0 makes positive (0 - n): no run has a loop of 1 .. 4 trips, and
// the check is refused rather than passed on no run.
!mb = !tcgen05.mbarrier
func.func @no_count(%n: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 64 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %full = "tcgen05.alloc_mbarrier"() {count = 32 : i64} : () -> !mb
  %nn = arith.index_cast %n : i32 to index
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      %none = arith.subi %c0, %nn : index
      // expected-error @+1 {{tcgen05-verify-sync found no values of the run-time values this loop's upper bound is computed from that give it a trip count from 1 to 4}}
      scf.for %j = %c0 to %none step %c1 {
        "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "producer", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "idle", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
