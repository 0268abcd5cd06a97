// A TMEM alias (alias = "X" on tcgen05.tmem_buffer, tcgen05_lower/planning/aliases.py)
// names the cells of the buffer X declared before it: the rules tcgen05-verify checks
// before layouts are chosen (the footprint's are tcgen05-plan-tmem's,
// lit_tests/tcgen05-plan-tmem/alias-errors.mlir). Each message names the rule and the
// values. (The aliases here are f16: a buffer no MMA reads holds an accumulator type.)
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

func.func @no_parent() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  // expected-error @+1 {{TMEM alias of 'S': no tcgen05.tmem_buffer named 'S' is declared before it}}
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !tcgen05.tmem<[128, 64], f16>
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tcgen05.tmem<[128, 64], f32>
  return
}

// -----

func.func @alias_of_alias() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tcgen05.tmem<[128, 64], f32>
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !tcgen05.tmem<[128, 64], f16>
  // expected-error @+1 {{TMEM alias of 'P', itself an alias of 'S': name the buffer that owns the cells}}
  %q = "tcgen05.tmem_buffer"() {name = "Q", alias = "P"} : () -> !tcgen05.tmem<[128, 32], f16>
  return
}

// -----

func.func @other_rows() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{TMEM alias !tcgen05.tmem<[64, 64], f16> of 'S' (!tcgen05.tmem<[128, 64], f32>): 64 rows over 128; an alias has its parent's rows, on the same lanes}}
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !tcgen05.tmem<[64, 64], f16>
  return
}

// -----

func.func @other_stages() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tcgen05.tmem<[2, 128, 64], f32>
  // expected-error @+1 {{TMEM alias !tcgen05.tmem<[128, 64], f16> of 'S' (!tcgen05.tmem<[2, 128, 64], f32>): 1 stage(s) over 2; an alias has one stage per stage of its parent}}
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S"} : () -> !tcgen05.tmem<[128, 64], f16>
  return
}

// -----

func.func @negative_column() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{TMEM alias of 'S': alias_column -8 is negative}}
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S", alias_column = -8 : i64} : () -> !tcgen05.tmem<[128, 64], f16>
  return
}
