// An op's own `num` (and `shape`) wins over the ld/st strategy: under a register budget
// smaller than one message of that .num, a load -> store pair is still split, but only into
// chunks of whole messages of the op's .num; a pass option that cannot honour it is a
// located error naming the option.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{report=true}' 2>%t.report | FileCheck %s
// RUN: FileCheck %s --check-prefix=REPORT < %t.report
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{strategy=max-width}' | FileCheck %s --check-prefix=WIDE
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts{shape=16x256b}' --split-input-file --verify-diagnostics

// Expected by hand from Table 47 and 9.7.16.2.3: .32x32b.x64 holds 64 registers per thread
// and moves 64 columns of its warp's 32 lanes; in Layout D (row r on lane r) each warp moves
// all columns of the slice. So a 64-column ld with num = 64 stays one pair (64 registers,
// over the default budget of 32) and a 256-column one becomes 256 / 64 = 4 pairs, each one
// .32x32b.x64 message; under max-width neither is split.
// CHECK-LABEL: func.func @own_num
// CHECK: "tcgen05.ld"({{.*}}) {num = 64 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 64], f32>
// CHECK-NEXT: "tcgen05.store_fragment"
// CHECK-COUNT-4: "tcgen05.ld"({{.*}}) {num = 64 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 64], f32>
// CHECK-NOT: "tcgen05.ld"
// REPORT: tcgen05.ld at line {{[0-9]+}}: 64 columns, .32x32b.x64, 1 message x 4 warps, 64 registers per thread; kept whole: 64 registers per thread (the op's own num = 64 wins over register-budget=32: a chunk of whole .32x32b.x64 messages holds 64 registers per thread)
// REPORT: split tcgen05.ld at line {{[0-9]+}}: 256 columns -> 4 ld/store_fragment pairs of 64 columns, .32x32b.x64, 1 message x 4 warps, 64 registers per thread (the op's own num = 64 wins over register-budget=32
// WIDE-LABEL: func.func @own_num
// WIDE: "tcgen05.ld"({{.*}}) {num = 64 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 64], f32>
// WIDE: "tcgen05.ld"({{.*}}) {num = 64 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 256], f32>
// WIDE-NOT: "tcgen05.ld"

// The same kernel under shape=16x256b: the option's shape cannot have .x64 (Table 47 marks
// .16x256b.x64 NA), so the op without a shape of its own is refused, naming the option;
// the op that gives its own shape keeps it.
func.func @own_num(%dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{.16x256b.x64 is NA (Table 47) (the shape comes from the pass option shape=16x256b, which conflicts with this op's own num = 64)}}
  %f = "tcgen05.ld"(%acc, %c0) {num = 64 : i64} : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  %g = "tcgen05.ld"(%acc, %c0) {shape = "32x32b", num = 64 : i64} : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 256], f32>
  "tcgen05.store_fragment"(%g, %dst, %c0) {ld = 256 : i64} : (!tcgen05.frag<[128, 256], f32>, !llvm.ptr<1>, index) -> ()
  return
}
