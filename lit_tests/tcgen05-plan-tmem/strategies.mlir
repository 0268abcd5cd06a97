// tcgen05-plan-tmem strategies on one kernel: first-fit (program order, lowest column),
// optimal (minimum peak) and no-reuse (every buffer its own cells).
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem{strategy=first-fit}' | FileCheck %s --check-prefix=FF
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem{strategy=optimal}' | FileCheck %s --check-prefix=OPT
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem{strategy=no-reuse}' | FileCheck %s --check-prefix=NR

!n64 = !tcgen05.tmem<[128, 64], f32>
!n128 = !tcgen05.tmem<[128, 128], f32>
!frag = !tcgen05.frag<[128, 32], f32>

// a [64] and c [64] live long, b [64] dies before d [128] starts (Layout D: N columns).
// First fit: a 0, b 64, c 128, d 192 (the gap b leaves at 64 holds only 64 columns):
// peak 320, allocation 512. Optimal: c next to a (b at 128, then d in b's columns and
// the 64 above): a 0 + c 64 + d 128..256 = 256. No reuse: 64 x 3 + 128 = 320.
// FF-LABEL: func.func @fragments
// FF: "tcgen05.alloc"() {columns = 512 : i64
// FF: {column_offset = 0 : i64, {{.*}}name = "a"
// FF: {column_offset = 64 : i64, {{.*}}name = "b"
// FF: {column_offset = 128 : i64, {{.*}}name = "c"
// FF: {column_offset = 192 : i64, {{.*}}name = "d"
// OPT-LABEL: func.func @fragments
// OPT: "tcgen05.alloc"() {columns = 256 : i64
// OPT: {column_offset = [[A:[0-9]+]] : i64, {{.*}}name = "a"
// OPT: {column_offset = [[B:[0-9]+]] : i64, {{.*}}name = "b"
// OPT: {column_offset = [[C:[0-9]+]] : i64, {{.*}}name = "c"
// OPT: {column_offset = [[B]] : i64, {{.*}}name = "d"
// OPT: "tcgen05.dealloc"({{%.+}}) {columns = 256 : i64
// NR-LABEL: func.func @fragments
// NR: "tcgen05.alloc"() {columns = 512 : i64
// NR: {column_offset = 0 : i64, {{.*}}name = "a"
// NR: {column_offset = 64 : i64, {{.*}}name = "b"
// NR: {column_offset = 128 : i64, {{.*}}name = "c"
// NR: {column_offset = 192 : i64, {{.*}}name = "d"
func.func @fragments() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.tmem_buffer"() {name = "a"} : () -> !n64
  %b = "tcgen05.tmem_buffer"() {name = "b"} : () -> !n64
  %c = "tcgen05.tmem_buffer"() {name = "c"} : () -> !n64
  %xb = "tcgen05.ld"(%b, %c0) : (!n64, index) -> !frag
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  %d = "tcgen05.tmem_buffer"() {name = "d"} : () -> !n128
  %xa = "tcgen05.ld"(%a, %c0) : (!n64, index) -> !frag
  %xc = "tcgen05.ld"(%c, %c0) : (!n64, index) -> !frag
  %xd = "tcgen05.ld"(%d, %c0) : (!n128, index) -> !frag
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  return
}
