// tcgen05.ld.red (9.7.16.8.3): a load that also reduces each row's columns with .min or
// .max, .f32 (with .abs and .NaN), .u32 or .s32, .32x32b or .16x32bx2, .num at least .x2.
// Only some targets have it (sm_103a/f, sm_110a/f, ...; tcgen05-verify gates them), so
// these kernels are assembled for sm_103a and sm_110a. Each thread's value covers its
// messages' columns: the messages of a thread are combined with the same min/max, and
// for .16x32bx2 (lane l read by threads l and l + 16) with the partner's value.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts{report=true}' --split-input-file 2>%t.report | FileCheck %s --check-prefix=PLAN
// RUN: FileCheck %s --check-prefix=REPORT --input-file %t.report
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.103.ptx
// RUN: %ptxas -arch=sm_103a %t.103.ptx -o %t.103.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110.ptx
// RUN: %ptxas -arch=sm_110a %t.110.ptx -o %t.110.cubin

// Layout D, 256 columns: a tcgen05.ld.red cannot be split (its per-row result needs all
// columns), so the widest messages are used, two .x128, and their values combined.
// PLAN-LABEL: func.func @row_max_abs
// REPORT: tcgen05.ld_red at line {{[0-9]+}}: 256 columns, .32x32b.x128, 2 messages x 4 warps, 256 registers per thread; kept whole: 256 registers per thread (tcgen05.ld_red reduces all its columns in one op)
// PLAN: "tcgen05.ld_red"{{.*}} {abs = true, nan = true, num = 128 : i64, op = "max", shape = "32x32b"}
// PTX-LABEL: .entry row_max_abs(
// PTX: tcgen05.ld.red.sync.aligned.32x32b.x128.max.abs.NaN.f32 {{[{].*[}]}}, [[V0:%r[0-9]+]], [[[T0:%r[0-9]+]]];
// PTX: tcgen05.ld.red.sync.aligned.32x32b.x128.max.abs.NaN.f32 {{[{].*[}]}}, [[V1:%r[0-9]+]], [{{%r[0-9]+}}];
// NaN-propagating maximum of the two partial values (.NaN).
// PTX: max.NaN.f32 %r{{[0-9]+}}, {{%r[0-9]+}}, [[V1]];
func.func @row_max_abs(%src: !llvm.ptr<1>, %rowmax: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {name = "buf"} : () -> !tcgen05.tmem<[128, 256], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 256 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 256], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[128, 256], f32>, index, !tcgen05.frag<[128, 256], f32>) -> ()
  %frag, %red = "tcgen05.ld_red"(%buf, %c0) {op = "max", abs = true, nan = true}
      : (!tcgen05.tmem<[128, 256], f32>, index) -> (!tcgen05.frag<[128, 256], f32>, !tcgen05.frag<[128, 1], f32>)
  "tcgen05.store_fragment"(%red, %rowmax, %c0) {ld = 1 : i64} : (!tcgen05.frag<[128, 1], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

// Layout F, s32 data: .16x32bx2 (the only ld.red shape for 16 lanes); threads l and
// l + 16 hold the same row, so the values are combined across them (shfl.sync.bfly 16)
// and only thread l < 16 stores the row's minimum.
// PLAN-LABEL: func.func @row_min_s32
// PLAN: "tcgen05.ld_red"{{.*}} {half_split = 16 : i64, num = 16 : i64, op = "min", shape = "16x32bx2"}
// PTX-LABEL: .entry row_min_s32(
// PTX: tcgen05.ld.red.sync.aligned.16x32bx2.x16.min.s32 {{[{].*[}]}}, [[V:%r[0-9]+]], [{{%r[0-9]+}}], 16;
// PTX: shfl.sync.bfly.b32 [[P:%r[0-9]+]], [[V]], 16, 31, -1;
// PTX: min.s32 %r{{[0-9]+}}, {{.*}}[[P]]
func.func @row_min_s32(%src: !llvm.ptr<1>, %rowmin: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "F", name = "buf"} : () -> !tcgen05.tmem<[64, 32], i32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[64, 32], i32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[64, 32], i32>, index, !tcgen05.frag<[64, 32], i32>) -> ()
  %frag, %red = "tcgen05.ld_red"(%buf, %c0) {op = "min"}
      : (!tcgen05.tmem<[64, 32], i32>, index) -> (!tcgen05.frag<[64, 32], i32>, !tcgen05.frag<[64, 1], i32>)
  "tcgen05.store_fragment"(%red, %rowmin, %c0) {ld = 1 : i64} : (!tcgen05.frag<[64, 1], i32>, !llvm.ptr<1>, index) -> ()
  return
}
