// tcgen05-plan-tmem's rules for a TMEM alias (tcgen05_lower/planning/aliases.py), on
// buffers whose layouts and footprints are written by hand (as tcgen05-select-layouts
// writes them): the alias's footprint lies inside one stage of its parent, and its layout
// puts its rows on the parent's lanes.
// RUN: tcgen05-opt %s -p 'tcgen05-plan-tmem' --split-input-file --verify-diagnostics -o /dev/null

func.func @outside() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.tmem_buffer"() {name = "S", layout = "D", role = "d", columns = 64 : i64} : () -> !tcgen05.tmem<[128, 64], f32>
  // expected-error @+1 {{TMEM alias of 'S' takes columns 48 to 79 of its parent (32 columns from alias_column 48), which has 64 per stage}}
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S", alias_column = 48 : i64, layout = "D", role = "a", columns = 32 : i64} : () -> !tcgen05.tmem<[128, 64], bf16>
  return
}

// -----

// M = 64: S in Layout F (16 lanes of each quarter), P in Layout E (all 128 lanes).
func.func @other_lanes() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %s = "tcgen05.tmem_buffer"() {name = "S", layout = "F", role = "d", columns = 64 : i64, half_lanes = true} : () -> !tcgen05.tmem<[64, 64], f32>
  // expected-error @+1 {{TMEM alias of 'S' has Layout E but its parent Layout F: the alias's rows must sit on the lanes the parent's occupy (9.7.16.10.5)}}
  %p = "tcgen05.tmem_buffer"() {name = "P", alias = "S", layout = "E", role = "a", columns = 16 : i64} : () -> !tcgen05.tmem<[64, 64], bf16>
  return
}
