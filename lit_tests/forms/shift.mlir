// tcgen05.shift.down (9.7.16.9.3), cta_group::1 and ::2, issued by one thread. "Supported
// on following architectures: sm_100a, sm_101a (Renamed to sm_110a ...), sm_103a,
// sm_110a" -- no family target (tcgen05-verify rejects it on sm_100f,
// lit_tests/tcgen05-verify/forms-targets.mlir). The syntax block orders the qualifiers
// .cta_group.down (its examples write .down.cta_group; ptxas 13 takes both).
//
// REQUIRES: ptxas
// RUN: tcgen05-lower %s --arch sm_100a -o %t.100a.ptx
// RUN: FileCheck %s --input-file %t.100a.ptx
// RUN: %ptxas -arch=sm_100a %t.100a.ptx -o %t.100a.cubin
// RUN: tcgen05-lower %s --arch sm_103a -o %t.103a.ptx
// RUN: FileCheck %s --input-file %t.103a.ptx
// RUN: %ptxas -arch=sm_103a %t.103a.ptx -o %t.103a.cubin
// RUN: tcgen05-lower %s --arch sm_110a -o %t.110a.ptx
// RUN: FileCheck %s --input-file %t.110a.ptx
// RUN: %ptxas -arch=sm_110a %t.110a.ptx -o %t.110a.cubin

!t = !tcgen05.tmem<[128, 64], f32>
!t2 = !tcgen05.tmem<[256, 64], f32>

// One tcgen05.shift moves one 32-byte element (8 columns) of the 32 lanes from its address
// (9.7.16.9.3, the implicit .31x256b shape of 9.7.16.2.3), so shifting the rows of each
// quarter of a [128, 64] buffer is 4 quarters x 8 column groups = 32 instructions, at
// lanes 0, 32, 64, 96 (lane << 16 in the address) and columns 0, 8, ..., 56.
// CHECK-LABEL: .entry shift_cta1(
// CHECK: setp.eq.b32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0;
// CHECK-COUNT-32: setp.ne.b32 tcgen05_guard, [[LEADER:%r[0-9]+]], 0; @tcgen05_guard tcgen05.shift.cta_group::1.down [{{%r[0-9]+}}];
// CHECK-NOT: tcgen05.shift
// CHECK: ret;
func.func @shift_cta1() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !t
  "tcgen05.shift"(%t) : (!t) -> ()
  return
}

// A CTA pair: each CTA holds 128 of the 256 rows, shifted in both CTAs by the even CTA's
// 32 instructions.
// CHECK-LABEL: .entry shift_cta2(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK-COUNT-32: tcgen05.shift.cta_group::2.down [{{%r[0-9]+}}];
// CHECK-NOT: tcgen05.shift
func.func @shift_cta2() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %t = "tcgen05.tmem_buffer"() {layout = "A"} : () -> !t2
  "tcgen05.shift"(%t) : (!t2) -> ()
  return
}
