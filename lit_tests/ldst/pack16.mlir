// 16-bit data (9.7.16.8.2): an f16 accumulator keeps one element in the low 16 bits of
// each column (9.7.16.10.4.1). Its stores and loads are packed by default, two columns
// per register (.unpack::16b / .pack::16b): 64 columns in 32 registers. An op that says
// pack16 = false keeps one element per register.
// REQUIRES: ptxas
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts' | FileCheck %s --check-prefix=PLAN
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// PLAN-LABEL: func.func @pack16
// PLAN: "tcgen05.load_fragment"{{.*}} {ld = 64 : i64, num = 32 : i64, pack16 = true, shape = "32x32b"}
// PLAN: "tcgen05.st"{{.*}} {num = 32 : i64, shape = "32x32b", unpack16 = true}
// PLAN: "tcgen05.ld"{{.*}} {num = 32 : i64, pack16 = true, shape = "32x32b"}
// Unpacked: 64 columns are 64 registers, over the default budget of 32: two pairs.
// PLAN: "tcgen05.ld"{{.*}} {num = 32 : i64, pack16 = false, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 32], f16>
// PLAN: "tcgen05.ld"{{.*}} {num = 32 : i64, pack16 = false, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 32], f16>

// Global memory holds 16-bit elements: two loads of 2 bytes build one packed register.
// PTX-LABEL: .entry pack16(
// PTX: ld.global.b16
// PTX: tcgen05.st.sync.aligned.32x32b.x32.unpack::16b.b32 [{{%r[0-9]+}}], {
// PTX: tcgen05.wait::st.sync.aligned;
// Each packed register is stored as two 16-bit elements: low half, then high half.
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.pack::16b.b32 {[[R0:%r[0-9]+]], {{.*}}}, [{{%r[0-9]+}}];
// PTX: st.global.b16 [[[A:%rd[0-9]+]]], [[R0]];
// PTX-NEXT: shr.u32 [[HI:%r[0-9]+]], [[R0]], 16;
// PTX-NEXT: st.global.b16 [[[A]]+2], [[HI]];
// PTX: tcgen05.ld.sync.aligned.32x32b.x32.b32 {
func.func @pack16(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %dst2: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {name = "buf"} : () -> !tcgen05.tmem<[128, 64], f16>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 64], f16>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[128, 64], f16>, index, !tcgen05.frag<[128, 64], f16>) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!tcgen05.tmem<[128, 64], f16>, index) -> !tcgen05.frag<[128, 64], f16>
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f16>, !llvm.ptr<1>, index) -> ()
  %plain = "tcgen05.ld"(%buf, %c0) {pack16 = false} : (!tcgen05.tmem<[128, 64], f16>, index) -> !tcgen05.frag<[128, 64], f16>
  "tcgen05.store_fragment"(%plain, %dst2, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f16>, !llvm.ptr<1>, index) -> ()
  return
}
