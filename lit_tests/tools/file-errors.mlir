// Files that cannot be read or written are plain errors, exit 1, never an internal error.
// RUN: not tcgen05-lower %s --report-json %t.missing/plan.json -o %t.ptx 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not tcgen05-lower %s -o %t.missing/out.ptx 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not tcgen05-lower %t.missing/in.mlir 2>&1 | FileCheck %s --check-prefix=IN

// JSON: error: tcgen05-plan-tmem: cannot write json={{.*}}.missing/plan.json: No such file or directory
// JSON-NOT: internal error
// OUT: tcgen05-lower: error: [Errno 2] No such file or directory: '{{.*}}.missing/out.ptx'
// IN: tcgen05-lower: error: [Errno 2] No such file or directory: '{{.*}}.missing/in.mlir'
func.func @k(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %x = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 32 : i64} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}
