// A 512-column buffer that only tcgen05.ld/st touch (issue 21): Table 39's N <= 256 bounds
// an MMA's accumulator, not such a buffer, whose bound is Tensor Memory's 512 columns
// (9.7.16.1). With 16-bit data packed two per register (9.7.16.8.2), the widest message of
// every shape moves all 512 columns of a lane, so these forms need such a buffer:
// .16x64b.x128, .16x128b.x64, .16x256b.x32 and .16x32bx2.x128 (immHalfSplitoff 256).
// .32x32b.x128 moves 256 packed columns, so it takes two messages. Table 47 marks
// .16x128b.x128 and .16x256b.x64 NA: .16x128b.x64 and .16x256b.x32 are the widest forms.
// The unpacked forms on a 512-column f32 buffer, and the comparison of every line with
// upstream's nvvm.tcgen05.ld/st, are in tests/test_differential_nvvm.py.
// REQUIRES: ptxas
// RUN: tcgen05-lower %s -o %t.ptx
// RUN: FileCheck %s --input-file %t.ptx
// RUN: %ptxas -arch=sm_100a %t.ptx -o %t.cubin

// Registers per message from Table 47 (.x128 of .16x64b / .16x32bx2 / .32x32b: 128;
// .16x128b.x64: 128; .16x256b.x32: 128); a .16xN message covers 16 lanes, so each warp
// issues two per 512 columns (lanes 32w and 32w + 16), and .32x32b.x128.pack::16b covers
// 256 columns, so each warp issues two of it too.

// CHECK-LABEL: .entry wide_32x32b(
// CHECK-COUNT-2: tcgen05.st.sync.aligned.32x32b.x128.unpack::16b.b32 [%r{{[0-9]+}}], {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}};
// CHECK-NOT: tcgen05.st.
// CHECK-COUNT-2: tcgen05.ld.sync.aligned.32x32b.x128.pack::16b.b32 {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}}, [%r{{[0-9]+}}];
// CHECK-NOT: tcgen05.ld.
func.func @wide_32x32b(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 512], f16>
  %x = "tcgen05.load_fragment"(%src, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.st"(%t, %c0, %x) {shape = "32x32b", num = 128 : i64} : (!tcgen05.tmem<[128, 512], f16>, index, !tcgen05.frag<[128, 512], f16>) -> ()
  %f = "tcgen05.ld"(%t, %c0) {shape = "32x32b", num = 128 : i64} : (!tcgen05.tmem<[128, 512], f16>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 512 : i64} : (!tcgen05.frag<[128, 512], f16>, !llvm.ptr<1>, index) -> ()
  return
}

// CHECK-LABEL: .entry wide_16x64b(
// CHECK-COUNT-2: tcgen05.st.sync.aligned.16x64b.x128.unpack::16b.b32 [%r{{[0-9]+}}], {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}};
// CHECK-NOT: tcgen05.st.
// CHECK-COUNT-2: tcgen05.ld.sync.aligned.16x64b.x128.pack::16b.b32 {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}}, [%r{{[0-9]+}}];
// CHECK-NOT: tcgen05.ld.
func.func @wide_16x64b(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 512], f16>
  %x = "tcgen05.load_fragment"(%src, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.st"(%t, %c0, %x) {shape = "16x64b", num = 128 : i64} : (!tcgen05.tmem<[128, 512], f16>, index, !tcgen05.frag<[128, 512], f16>) -> ()
  %f = "tcgen05.ld"(%t, %c0) {shape = "16x64b", num = 128 : i64} : (!tcgen05.tmem<[128, 512], f16>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 512 : i64} : (!tcgen05.frag<[128, 512], f16>, !llvm.ptr<1>, index) -> ()
  return
}

// CHECK-LABEL: .entry wide_16x128b(
// CHECK-COUNT-2: tcgen05.st.sync.aligned.16x128b.x64.unpack::16b.b32 [%r{{[0-9]+}}], {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}};
// CHECK-NOT: tcgen05.st.
// CHECK-COUNT-2: tcgen05.ld.sync.aligned.16x128b.x64.pack::16b.b32 {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}}, [%r{{[0-9]+}}];
// CHECK-NOT: tcgen05.ld.
func.func @wide_16x128b(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 512], f16>
  %x = "tcgen05.load_fragment"(%src, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.st"(%t, %c0, %x) {shape = "16x128b", num = 64 : i64} : (!tcgen05.tmem<[128, 512], f16>, index, !tcgen05.frag<[128, 512], f16>) -> ()
  %f = "tcgen05.ld"(%t, %c0) {shape = "16x128b", num = 64 : i64} : (!tcgen05.tmem<[128, 512], f16>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 512 : i64} : (!tcgen05.frag<[128, 512], f16>, !llvm.ptr<1>, index) -> ()
  return
}

// CHECK-LABEL: .entry wide_16x256b(
// CHECK-COUNT-2: tcgen05.st.sync.aligned.16x256b.x32.unpack::16b.b32 [%r{{[0-9]+}}], {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}};
// CHECK-NOT: tcgen05.st.
// CHECK-COUNT-2: tcgen05.ld.sync.aligned.16x256b.x32.pack::16b.b32 {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}}, [%r{{[0-9]+}}];
// CHECK-NOT: tcgen05.ld.
func.func @wide_16x256b(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 512], f16>
  %x = "tcgen05.load_fragment"(%src, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.st"(%t, %c0, %x) {shape = "16x256b", num = 32 : i64} : (!tcgen05.tmem<[128, 512], f16>, index, !tcgen05.frag<[128, 512], f16>) -> ()
  %f = "tcgen05.ld"(%t, %c0) {shape = "16x256b", num = 32 : i64} : (!tcgen05.tmem<[128, 512], f16>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 512 : i64} : (!tcgen05.frag<[128, 512], f16>, !llvm.ptr<1>, index) -> ()
  return
}

// CHECK-LABEL: .entry wide_16x32bx2(
// CHECK-COUNT-2: tcgen05.st.sync.aligned.16x32bx2.x128.unpack::16b.b32 [%r{{[0-9]+}}], 256, {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}};
// CHECK-NOT: tcgen05.st.
// CHECK-COUNT-2: tcgen05.ld.sync.aligned.16x32bx2.x128.pack::16b.b32 {{[{]}}{{(%r[0-9]+, ){127}%r[0-9]+}}{{[}]}}, [%r{{[0-9]+}}], 256;
// CHECK-NOT: tcgen05.ld.
func.func @wide_16x32bx2(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !tcgen05.tmem<[128, 512], f16>
  %x = "tcgen05.load_fragment"(%src, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.st"(%t, %c0, %x) {shape = "16x32bx2", num = 128 : i64, half_split = 256 : i64} : (!tcgen05.tmem<[128, 512], f16>, index, !tcgen05.frag<[128, 512], f16>) -> ()
  %f = "tcgen05.ld"(%t, %c0) {shape = "16x32bx2", num = 128 : i64, half_split = 256 : i64} : (!tcgen05.tmem<[128, 512], f16>, index) -> !tcgen05.frag<[128, 512], f16>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 512 : i64} : (!tcgen05.frag<[128, 512], f16>, !llvm.ptr<1>, index) -> ()
  return
}
