// A misspelled name or value that tcgen05-verify checks against a known set (targets, the
// entries of tcgen05.kernel and tcgen05.tensor_map, attribute names, the values of kind,
// swizzle, major-ness, scale_vec, cp shape and decompress, src_layout, wait and fence
// kinds, cta, dims, ld/st shapes, .redOp, frag_reduce kinds) keeps its message listing the
// valid ones and ends with the closest of them (tcgen05_lower/text.py did_you_mean). Each
// misspelling is one character dropped, added, changed or swapped, so the suggestion is
// the name it was made from.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// expected-error @+1 {{target sm100a is not a tcgen05 target (known: sm_100, sm_100a, sm_100f, sm_101, sm_101a, sm_101f, sm_103, sm_103a, sm_103f, sm_110, sm_110a, sm_110f); did you mean 'sm_100a'? (9.7.16 Target ISA Notes)}}
func.func @target() attributes {tcgen05.kernel = {target = "sm100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// sm_100 names a real GPU, but tcgen05 needs its 'a' or 'f' target.
// expected-error @+1 {{tcgen05 needs an arch-specific 'a' or family-specific 'f' target); supported on: sm_100a; sm_101a (renamed sm_110a from PTX ISA 9.0); sm_100f or higher in the same family from PTX ISA 8.8; sm_101f or higher in the same family (renamed sm_110f from PTX ISA 9.0) from PTX ISA 8.8; sm_110f or higher in the same family from PTX ISA 8.8; did you mean 'sm_100a'? (9.7.16.10.9.1 Target ISA Notes)}}
func.func @target_without_suffix() attributes {tcgen05.kernel = {target = "sm_100", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{tcgen05.kernel has no entry 'cta_groups' (its entries: target, threads, cta_group, grid, cluster); did you mean 'cta_group'?}}
func.func @kernel_entry() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_groups = 1 : i64}} {
  return
}

// -----

func.func @attribute_name() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.tmem_buffer has no attribute 'nmae'; its attributes: alias, alias_column, column_offset, columns, half_lanes, lane_offset, layout, layout_c, name, role, stage_layout, stage_stride; did you mean 'name'?}}
  %acc = "tcgen05.tmem_buffer"() {nmae = "acc"} : () -> !tcgen05.tmem<[128, 128], f32>
  return
}

// -----

func.func @mma_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 256], f32>
  // expected-error @+1 {{kind::f61 is not an MMA kind (one of f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4; 9.7.16.10.9.1); did you mean 'f16'?}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f61"}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// The swizzles are spelt with a capital B (Table 40).
func.func @swizzle() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{swizzle "128b" is not one of none, 32B, 64B, 128B, 128B_base32B (Table 40); did you mean '128B'?}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128b">
  return
}

// -----

func.func @major() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{major-ness "mn" is not "K" or "MN" (9.7.16.3); did you mean 'MN'?}}
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "mn", "128B">
  return
}

// -----

func.func @scale_vec() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{scale_vec = "block23" is not one of 1X, 2X, 4X, block16, block32 (9.7.16.10.9.1); did you mean 'block32'?}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", scale_vec = "block23"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 2], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

func.func @cp_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], i8, "K", "none">
  // expected-error @+1 {{tcgen05.cp shape .128x128 is not one of 128x256b, 4x256b, 128x128b, 64x128b, 32x128b (9.7.16.9.2); did you mean '128x128b'?}}
  "tcgen05.cp"(%t, %s) {shape = "128x128"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], i8, "K", "none">) -> ()
  return
}

// -----

func.func @cp_decompress() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], i8, "K", "none">
  // expected-error @+1 {{decompress = "b6x16p32" is not one of b6x16_p32, b4x16_p64 (9.7.16.9.1); did you mean 'b6x16_p32'?}}
  "tcgen05.cp"(%t, %s) {shape = "128x128b", decompress = "b6x16p32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  return
}

// -----

func.func @src_layout(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_layout = "mnk" is not "mn_k" or "k_mn"; did you mean 'mn_k'?}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mnk", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

func.func @wait_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{wait kind "lds" is not "ld" or "st" (9.7.16.8.5); did you mean 'ld'?}}
  "tcgen05.wait"() {kind = "lds"} : () -> ()
  return
}

// -----

func.func @fence_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{fence kind "after_thread_synch" is not "before_thread_sync" or "after_thread_sync" (9.7.16.11.1); did you mean 'after_thread_sync'?}}
  "tcgen05.fence"() {kind = "after_thread_synch"} : () -> ()
  return
}

// -----

func.func @arrive_cta() attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %m = "tcgen05.alloc_mbarrier"() {count = 256 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      // expected-error @+1 {{cta = "evne" is not "even" (the only CTA of a pair an mbarrier_arrive may arrive at besides its own, docs/cta-pairs.md); did you mean 'even'?}}
      "tcgen05.mbarrier_arrive"(%m) {cta = "evne"} : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @dims_name(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{dims names "colums", which is not one of ld, row_offset, column_offset, rows, columns; did you mean 'columns'?}}
  "tcgen05.store_fragment"(%frag, %C, %c0, %n) {ld = 32 : i64, dims = ["colums"]}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, index) -> ()
  return
}

// -----

func.func @ldst_shape() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{'32x32' is not a tcgen05.ld/st shape; expected one of 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2; did you mean '32x32b'? (9.7.16.2.3)}}
  %x = "tcgen05.ld"(%t, %c0) {shape = "32x32"} : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}

// -----

func.func @ld_red_op() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{op = "mx" is not "min" or "max" (.redOp, 9.7.16.8.3); did you mean 'max'?}}
  %f, %r = "tcgen05.ld_red"(%buf, %c0) {op = "mx"} : (!tcgen05.tmem<[128, 64], f32>, index) -> (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 1], f32>)
  return
}

// -----

func.func @frag_reduce_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %x = "tcgen05.ld"(%s, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{tcgen05.frag_reduce: kind = 'summ' is not "max" or "sum"; did you mean 'sum'?}}
  %m = "tcgen05.frag_reduce"(%x) {kind = "summ"} : (!tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 1], f32>
  return
}

// -----

func.func @tensor_map_entry(%A: !llvm.ptr<1>,
    %tm: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B", boxes = 1 : i64}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %m = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%m) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{tcgen05.tensor_map has no entry 'boxes' (tensor, box, swizzle); did you mean 'box'?}}
  "tcgen05.tma_load"(%tm, %t, %m, %c0, %c0) : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}
