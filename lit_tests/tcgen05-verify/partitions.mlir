// Warp roles (docs/partitions.md): tcgen05-verify's rules for tcgen05.partitions and
// tcgen05.role, each at the op that breaks it.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @roles_verified
// CHECK: "tcgen05.partitions"
// CHECK: name = "mma"
// CHECK: name = "epilogue"
// A load/MMA/epilogue split passes; the epilogue is one aligned warpgroup.
func.func @roles_verified() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @warps_outside_the_cta() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    // expected-error @+1 {{role 'epilogue' (warps 6-9) is outside the CTA: threads = 256 has warps 0-7}}
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 6 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @overlapping_roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 2 : i64} : () -> ()
    // expected-error @+1 {{role 'mma' (warp 1) overlaps role 'load' (warps 0-1) (line}}
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// The body holds roles only: one region per role, so the roles and the regions agree.
func.func @op_in_the_partitions_body() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    // expected-error @+1 {{arith.constant in the body of tcgen05.partitions: the body holds one tcgen05.role per role (then gpu.yield)}}
    %c1 = arith.constant 1 : index
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @no_roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.partitions has no tcgen05.role}}
  "tcgen05.partitions"() ({
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @ld_in_a_single_warp_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.ld in role 'epilogue' (warp 4): it is executed by every warp of a warpgroup}}
      %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @ld_in_an_unaligned_warpgroup() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.ld in role 'epilogue' (warps 2-5): it is executed by every warp of a warpgroup, warp w accessing TMEM lanes 32 * (w % 4)}}
      %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 2 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @ld_outside_the_roles_of_a_larger_cta() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{tcgen05.ld outside the roles of a kernel of 256 threads: a warpgroup op runs on every warp of a warpgroup (Table 46)}}
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 128], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @nested_partitions() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.partitions inside role 'outer' (warps 0-3): partitions do not nest}}
      "tcgen05.partitions"() ({
        "tcgen05.role"() ({
          "gpu.yield"() : () -> ()
        }) {name = "inner", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
        "gpu.yield"() : () -> ()
      }) : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "outer", first_warp = 0 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A CTA-wide barrier in a role: the other warps never reach it. (tcgen05.barrier in a
// role is the role's own named barrier.)
func.func @cta_barrier_in_a_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{gpu.barrier in role 'mma' (warp 0): a CTA-wide barrier waits for every thread of the CTA, and the warps of the other roles never reach it (deadlock); use tcgen05.barrier}}
      gpu.barrier
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @alloc_in_a_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.alloc in role 'mma' (warp 0): TMEM allocation is planned for the whole CTA}}
      %t = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @buffer_in_a_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.alloc_mbarrier in role 'mma' (warp 0): buffers and mbarriers are declared before the tcgen05.partitions}}
      %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @wait_without_phase_in_a_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.mbarrier_wait without a phase in role 'mma' (warp 0): the run-time phase count follows the commits of the waiting thread's own program}}
      "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @role_attributes_missing() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    // expected-error @+1 {{tcgen05.role needs name (a string), first_warp and warps (integers); missing: first_warp, warps}}
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x"} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @role_attribute_of_another_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    // expected-error @+1 {{attribute first_warp = "0" must be an integer}}
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x", first_warp = "0", warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @role_of_no_warps() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    // expected-error @+1 {{role 'x': first_warp = 0 and warps = 0: first_warp >= 0 and warps >= 1}}
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x", first_warp = 0 : i64, warps = 0 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @two_roles_of_one_name() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    // expected-error @+1 {{two roles are named 'x' (the other at line}}
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @role_outside_partitions() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.role outside the body of a tcgen05.partitions}}
  "tcgen05.role"() ({
    "gpu.yield"() : () -> ()
  }) {name = "x", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
  return
}

// -----

// expected-error @+1 {{threads = 200: a kernel with tcgen05.partitions has whole warps, 128 to 1024 threads}}
func.func @threads_not_whole_warps() attributes {tcgen05.kernel = {target = "sm_100a", threads = 200 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// expected-error @+1 {{threads = 256: this version lowers kernels without tcgen05.partitions of exactly one warpgroup (128 threads)}}
func.func @more_than_a_warpgroup_without_roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// Warp roles in a CTA pair (docs/cta-pairs.md): each CTA runs the roles; an arrival with
// cta = "even" goes to the even CTA's mbarrier, so both CTAs' 128 epilogue threads make
// its 256 arrivals per phase.
// CHECK-LABEL: func.func @partitions_in_a_pair_kernel
// CHECK: "tcgen05.mbarrier_arrive"(%{{.*}}) {cta = "even"}
func.func @partitions_in_a_pair_kernel() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 256 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_arrive"(%m) {cta = "even"} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Count 128 is one CTA's arrivals: the even CTA's mbarrier receives both CTAs'.
func.func @pair_arrive_count_of_one_cta() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.mbarrier_arrive by the 256 threads of role 'epilogue' (warps 4-7) in both CTAs of the pair makes 256 arrivals, but the mbarrier (line}}
      "tcgen05.mbarrier_arrive"(%m) {cta = "even"} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @arrive_cta_not_even() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 256 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{cta = "odd" is not "even" (the only CTA of a pair an mbarrier_arrive may arrive at besides its own, docs/cta-pairs.md)}}
      "tcgen05.mbarrier_arrive"(%m) {cta = "odd"} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @arrive_even_without_a_pair() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 128 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{cta = "even" arrives at the even CTA of a CTA pair, but the kernel has cta_group = 1: only a cta_group::2 kernel runs as a pair (9.7.16.5.1)}}
      "tcgen05.mbarrier_arrive"(%m) {cta = "even"} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// One mbarrier's arrivals all reach the same CTAs: an arrival at each CTA's own mbarrier
// and one at the even CTA's would count different phases in the two CTAs.
func.func @pair_arrivals_mixed() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 256 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error-re @+1 {{the mbarrier (line {{[0-9]+}}) is the even CTA's for this cta = "even" arrival, but tcgen05.mbarrier_arrive at line {{[0-9]+}} signals it otherwise: one mbarrier's signals must all reach the same CTAs (docs/cta-pairs.md)}}
      "tcgen05.mbarrier_arrive"(%m) {cta = "even"} : (!tcgen05.mbarrier) -> ()
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// Every thread of the role arrives: a count of 1 would complete the phase at the
// first arrival and count the other 31 towards the next.
func.func @arrive_count_not_whole_arrivals() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{tcgen05.mbarrier_arrive by the 32 threads of role 'load' (warp 0) makes 32 arrivals, but the mbarrier (line}}
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// CHECK-LABEL: func.func @arrive_count_of_the_role
// Two arrivals of a 32-thread role per phase: count 64. A tcgen05.barrier in a role is
// its named barrier, and a wait with an explicit parity is fine.
func.func @arrive_count_of_the_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 64 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "tcgen05.mbarrier_arrive"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.barrier"() : () -> ()
      %p = arith.constant 0 : i32
      "tcgen05.mbarrier_wait"(%m, %p) : (!tcgen05.mbarrier, i32) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @wait_without_phase_after_the_roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.commit"(%m) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  // expected-error @+1 {{tcgen05.mbarrier_wait without a phase on an mbarrier that a tcgen05.role signals}}
  "tcgen05.mbarrier_wait"(%m) : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// Each role's tcgen05.barrier is a named barrier 1..15 (barrier 0 is the CTA's).
func.func @sixteen_roles() attributes {tcgen05.kernel = {target = "sm_100a", threads = 512 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.partitions has 16 roles: each role's tcgen05.barrier is a named barrier 1..15 (barrier 0 is the CTA's), so at most 15}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r0", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r1", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r2", first_warp = 2 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r3", first_warp = 3 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r4", first_warp = 4 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r5", first_warp = 5 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r6", first_warp = 6 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r7", first_warp = 7 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r8", first_warp = 8 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r9", first_warp = 9 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r10", first_warp = 10 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r11", first_warp = 11 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r12", first_warp = 12 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r13", first_warp = 13 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r14", first_warp = 14 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "r15", first_warp = 15 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A role ends in gpu.yield (another terminator would leave the role some other way).
func.func @role_without_yield() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    // expected-error @+1 {{the region of role 'x' ends in gpu.yield}}
    "tcgen05.role"() ({
      llvm.unreachable
    }) {name = "x", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @partitions_without_yield() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{the body of tcgen05.partitions ends in gpu.yield}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "gpu.yield"() : () -> ()
    }) {name = "x", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    // expected-error @+1 {{llvm.unreachable in the body of tcgen05.partitions}}
    llvm.unreachable
  }) : () -> ()
  return
}

// -----

func.func @empty_body() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.partitions has no tcgen05.role (its body is empty)}}
  "tcgen05.partitions"() ({
  }) : () -> ()
  return
}

// -----

func.func @empty_role() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  "tcgen05.partitions"() ({
    // expected-error @+1 {{the region of role 'x' ends in gpu.yield}}
    "tcgen05.role"() ({
    }) {name = "x", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
