// Every attribute of a tcgen05 op is one the dialect lists for that op, of the kind it
// gives (dialect/attributes.py): a misspelled name would otherwise be ignored and its
// default used, and an attribute of another kind would reach the passes. The kernel's
// tcgen05.kernel dictionary is checked the same way. Attributes whose name has a dot
// belong to other dialects and are left alone.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @other_dialects_attributes_pass
// CHECK: "tcgen05.tmem_buffer"() {name = "acc", user.tag = 3 : i64}
func.func @other_dialects_attributes_pass() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %acc = "tcgen05.tmem_buffer"() {name = "acc", user.tag = 3 : i64} : () -> !tcgen05.tmem<[128, 128], f32>
  return
}

// -----

// collector_a misspelled: the MMA would silently run without .collector::a::fill.
func.func @misspelled_mma_attribute() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{tcgen05.mma has no attribute 'colector_a'; its attributes: ashift, collector_a, collector_b, collector_b_op, disable_output_lane, k, k_offset, kind, layout, max_shift, negate_a, negate_b, saturate, scale_a_id, scale_b_id, scale_input_d, scale_vec, sparse, sparsity_selector, ws, zero_column_mask; did you mean 'collector_a'?}}
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", colector_a = "fill"} : (!tcgen05.tmem<[128, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[128, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

func.func @attribute_on_an_op_without_any() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{tcgen05.smem_buffer has no attribute 'swizzle'; its attributes: none}}
  %a = "tcgen05.smem_buffer"() {swizzle = "128B"} : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  return
}

// -----

func.func @name_of_another_kind() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{attribute name = 3 : si8 must be a string}}
  %acc = "tcgen05.tmem_buffer"() {name = 3 : si8} : () -> !tcgen05.tmem<[128, 128], f32>
  // expected-error @+1 {{attribute layout = false must be a string}}
  %acc2 = "tcgen05.tmem_buffer"() {layout = false} : () -> !tcgen05.tmem<[128, 128], f32>
  return
}

// -----

// expected-error @+1 {{tcgen05.kernel = "sm_100a" must be a dictionary such as {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}}}
func.func @kernel_not_a_dictionary() attributes {tcgen05.kernel = "sm_100a"} {
  return
}

// -----

// expected-error @+1 {{attribute tcgen05.kernel.cta_group = "16" must be an integer}}
func.func @kernel_cta_group_string() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = "16"}} {
  return
}

// -----

// expected-error @+1 {{attribute tcgen05.kernel.threads = @sym must be an integer}}
func.func @kernel_threads_symbol() attributes {tcgen05.kernel = {target = "sm_100a", threads = @sym, cta_group = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{attribute tcgen05.kernel.target = 16 : index must be a string}}
func.func @kernel_target_integer() attributes {tcgen05.kernel = {target = 16 : index, threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{tcgen05.kernel has no entry 'thread' (its entries: target, threads, cta_group, grid, cluster); did you mean 'threads'?}}
func.func @kernel_misspelled_entry() attributes {tcgen05.kernel = {target = "sm_100a", thread = 128 : i64, cta_group = 1 : i64}} {
  return
}
