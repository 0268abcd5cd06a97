// tcgen05.mma with A in tensor memory ([a-tmem], 9.7.16.10.9.1 syntax forms 1-4), the
// collector usage of A (.collector::a::fill / use / lastuse / discard), .ashift,
// disable-output-lane (4 words with cta_group::1) and enable-input-d, on every test
// target.
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx --check-prefixes=CHECK,SM100A
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_100f -o %t.100f.ptx
// RUN: FileCheck %s --input-file %t.100f.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_100f %t.100f.ptx -o %t.100f.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx --check-prefixes=CHECK,FAMILY
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.tmem<[128, 64], bf16>
!b = !tcgen05.smem<[64, 64], bf16, "MN", "64B">
!at8 = !tcgen05.tmem<[128, 64], f8E5M2>
!b8 = !tcgen05.smem<[64, 64], f8E4M3FN, "K", "64B">
!s1 = !tcgen05.tmem<[128, 1], f8E8M0FNU>

// A in TMEM: the first MMA overwrites D (enable-input-d false), the others accumulate the
// K block 16 again while A goes through the collector buffer (fill, use, lastuse of the
// block they all read: 9.7.16.10.9.1, checked by tcgen05-verify). The operand after
// [d-tmem] is in brackets: a TMEM address, not a matrix descriptor.
// CHECK-LABEL: .entry a_in_tmem(
// CHECK: tcgen05.mma.cta_group::1.kind::f16 [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::use [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// The disable-output-lane vector sits between idesc and enable-input-d.
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}},
// CHECK-SAME: {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}}, {{%p[0-9]+}};
// .ashift with the default collector usage spelled out: the syntax puts .ashift first.
// CHECK: tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::discard [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, {{%p[0-9]+}};
// .ashift takes no ::fill (9.7.16.10.9.1), so an MMA without it fills what it then uses.
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::fill
// CHECK: tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::lastuse
func.func @a_in_tmem() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %false = arith.constant false
  %true = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !b
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.mma"(%d, %a, %b, %false) {kind = "f16"} : (!acc, !at, !b, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %true) {kind = "f16", k_offset = 16 : i64, collector_a = "fill"} : (!acc, !at, !b, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %true) {kind = "f16", k_offset = 16 : i64, collector_a = "use"} : (!acc, !at, !b, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %true) {kind = "f16", k_offset = 16 : i64, collector_a = "lastuse", disable_output_lane = array<i32: 1, 0, 0, -2147483648>} : (!acc, !at, !b, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %true) {kind = "f16", ashift = true, collector_a = "discard"} : (!acc, !at, !b, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %true) {kind = "f16", collector_a = "fill"} : (!acc, !at, !b, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %true) {kind = "f16", ashift = true, collector_a = "lastuse"} : (!acc, !at, !b, i1) -> ()
  return
}

// Syntax form 2 with [a-tmem]: a block-scaled kind reading A (8-bit e5m2) from TMEM.
// CHECK-LABEL: .entry a_in_tmem_block_scaled(
// SM100A: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X.collector::a::fill
// FAMILY: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::fill
// CHECK-SAME: [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%r[0-9]+}}, [{{%r[0-9]+}}], [{{%r[0-9]+}}], {{%p[0-9]+}};
func.func @a_in_tmem_block_scaled() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %true = arith.constant true
  %a = "tcgen05.tmem_buffer"() : () -> !at8
  %b = "tcgen05.smem_buffer"() : () -> !b8
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  %sa = "tcgen05.tmem_buffer"() : () -> !s1
  %sb = "tcgen05.tmem_buffer"() : () -> !s1
  "tcgen05.mma"(%d, %a, %b, %true, %sa, %sb) {kind = "mxf8f6f4", scale_vec = "1X", collector_a = "fill", k_offset = 32 : i64} : (!acc, !at8, !b8, i1, !s1, !s1) -> ()
  return
}
