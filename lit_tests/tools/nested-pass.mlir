// The tcgen05 passes run on the whole module: nesting one under func.func(...) says so
// (upstream passes nest as usual).
// RUN: not tcgen05-opt %s -p 'func.func(tcgen05-verify)' 2>&1 | FileCheck %s
// RUN: tcgen05-opt %s -p 'func.func(canonicalize),tcgen05-verify' -o /dev/null

// CHECK: tcgen05-opt: error: 'func.func(tcgen05-verify)': the tcgen05 passes run on the whole module (kernels and their allocations together); write them at the top level of the pipeline, not nested in func.func(...)
func.func @k() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}
