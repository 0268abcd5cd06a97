// What tcgen05-plan-tmem reports: the table (report=true), the JSON report and the SVG
// picture (json=FILE, svg=FILE; tcgen05-lower --report-json / --report-svg).
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts,tcgen05-plan-tmem{strategy=optimal report=true}' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TABLE
// RUN: tcgen05-lower %s --emit=mlir --pipeline 'tcgen05-select-layouts,tcgen05-plan-tmem{strategy=optimal}' --report-json %t.json --report-svg %t.svg -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON --input-file %t.json
// RUN: FileCheck %s --check-prefix=SVG --input-file %t.svg

!acc = !tcgen05.tmem<[128, 128], f32>
!ta = !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
!sf = !tcgen05.tmem<[128, 4], f8E8M0FNU>
!ssf = !tcgen05.smem<[128, 16], i8, "K", "none">
!small = !tcgen05.tmem<[128, 8], f32>
!frag = !tcgen05.frag<[128, 32], f32>
!frag8 = !tcgen05.frag<[128, 8], f32>

// Ops (pre-order, the func.func is 0): 1 c0, 2 false, 3 a, 4 s, 5 acc, 6 sfa, 7 sfb,
// 8 cp, 9 cp, 10 mma, 11 ld acc, 12 store, 13 late, 14 ld late, 15 wait::ld, 16 return.
// The MMA reads sfa and sfb until it is known complete: at op 11, the load of its
// accumulator (and the cp's into them, issued earlier, with it). acc's load completes
// at its registers' use, op 12; late's at the wait::ld, op 15. Nothing is live any more
// when late starts (op 13), so it goes to column 0: acc [0, 128), sfa [128, 132),
// sfb [132, 136), late [0, 8). Peak 136, allocation 256. The lower bound is at op 7:
// 128 + 4 + 4 = 136.
// TABLE: tcgen05-plan-tmem: kernel @report strategy=optimal peak=136 columns allocation=256 columns lower-bound=136 columns (at op 7) optimal: proven
// TABLE-NEXT: buffer shape layout lanes columns live
// TABLE-NEXT: %acc 128x128xf32 D 0-127 [0, 128) [5, 12]
// TABLE-NEXT: %sfa 128x4xf8E8M0FNU D 0-127 [128, 132) [6, 11]
// TABLE-NEXT: %sfb 128x4xf8E8M0FNU D 0-127 [132, 136) [7, 11]
// TABLE-NEXT: %late 128x8xf32 D 0-127 [0, 8) [13, 15]

// JSON: "kernels": [
// JSON-NEXT:   {
// JSON-NEXT:     "name": "report",
// JSON-NEXT:     "strategy": "optimal",
// JSON-NEXT:     "allocation_columns": 256,
// JSON-NEXT:     "peak_columns": 136,
// JSON-NEXT:     "lower_bound_columns": 136,
// JSON-NEXT:     "buffers": [
// JSON:            "name": "%sfa",
// JSON-NEXT:       "loc": "{{.*}}report.mlir:73:10",
// JSON-NEXT:       "shape": [
// JSON-NEXT:         128,
// JSON-NEXT:         4
// JSON-NEXT:       ],
// JSON-NEXT:       "element_type": "f8E8M0FNU",
// JSON-NEXT:       "layout": "D",
// JSON-NEXT:       "lane_offset": 0,
// JSON-NEXT:       "lanes": [
// JSON-NEXT:         [
// JSON-NEXT:           0,
// JSON-NEXT:           128
// JSON-NEXT:         ]
// JSON-NEXT:       ],
// JSON-NEXT:       "columns": [
// JSON-NEXT:         128,
// JSON-NEXT:         132
// JSON-NEXT:       ],
// JSON-NEXT:       "live": [
// JSON-NEXT:         6,
// JSON-NEXT:         11
// JSON-NEXT:       ]

// SVG: <svg xmlns="http://www.w3.org/2000/svg"
// SVG: report: strategy optimal, peak 136, allocation 256, lower bound 136 columns
// SVG: <title>%sfa 128x4xf8E8M0FNU Layout D columns [128, 132) live [6, 11] (source {{.*}}report.mlir:{{[0-9]+}}:{{[0-9]+}}; live from {{.*}}report.mlir:{{[0-9]+}}:{{[0-9]+}} to {{.*}}report.mlir:{{[0-9]+}}:{{[0-9]+}})</title>
// SVG: </svg>
func.func @report(%C: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %false = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %s = "tcgen05.smem_buffer"() : () -> !ssf
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %sfa = "tcgen05.tmem_buffer"() {name = "sfa"} : () -> !sf
  %sfb = "tcgen05.tmem_buffer"() {name = "sfb"} : () -> !sf
  "tcgen05.cp"(%sfa, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.cp"(%sfb, %s) {shape = "128x128b"} : (!sf, !ssf) -> ()
  "tcgen05.mma"(%acc, %a, %a, %false, %sfa, %sfb) {kind = "mxf8f6f4", scale_vec = "1X"} : (!acc, !ta, !ta, i1, !sf, !sf) -> ()
  %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
  "tcgen05.store_fragment"(%x, %C, %c0) {ld = 128 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
  %late = "tcgen05.tmem_buffer"() {name = "late"} : () -> !small
  %y = "tcgen05.ld"(%late, %c0) : (!small, index) -> !frag8
  "tcgen05.wait"() {kind = "ld"} : () -> ()
  return
}

// The table goes on (here, at the end, so that the locations above stay): whether each
// buffer shares columns, and why (the live ranges of the table).
// TABLE-NEXT: sharing: %acc shares columns [0, 8) with %late: live [5, 12] and [13, 15] do not overlap
// TABLE-NEXT: sharing: %sfa shares no columns: live [6, 11] overlaps %acc's [5, 12] (buffers live at the same time on the same lanes never share columns)
// TABLE-NEXT: sharing: %sfb shares no columns: live [7, 11] overlaps %acc's [5, 12]
// TABLE-NEXT: sharing: %late shares columns [0, 8) with %acc: live [13, 15] and [5, 12] do not overlap
