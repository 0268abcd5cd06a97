// The llvm.align of a kernel argument (the alignment the caller promises; store_fragment
// writes 16-byte vector stores to a destination promised 16) is a power of two, as every
// LLVM alignment is.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// expected-error @+1 {{argument 1: llvm.align = 48 is not a power of two (an alignment in bytes, as LLVM's are)}}
func.func @align_48(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 48 : i64}) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{argument 0: llvm.align = 0 is not a power of two (an alignment in bytes, as LLVM's are)}}
func.func @align_0(%C: !llvm.ptr<1> {llvm.align = 0 : i64}) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// Powers of two are accepted.
func.func @align_16(%A: !llvm.ptr<1> {llvm.align = 1 : i64}, %C: !llvm.ptr<1> {llvm.align = 16 : i64}) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// Every function, not only kernels: LLVM's translation asserts (and aborts the process) on
// any alignment that is not a power of two.
// expected-error @+1 {{argument 0: llvm.align = 48 is not a power of two (an alignment in bytes, as LLVM's are)}}
func.func @helper(%C: !llvm.ptr<1> {llvm.align = 48 : i64}) {
  return
}

// -----

// A kernel whose tcgen05.kernel attribute is misspelled is an ordinary function.
// expected-error @+1 {{argument 1: llvm.align = 12 is not a power of two (an alignment in bytes, as LLVM's are)}}
func.func @misspelled(%A: !llvm.ptr<1>, %C: !llvm.ptr<1> {llvm.align = 12 : i64}) attributes {tcgen05.kernal = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// An alignment of a signed or unsigned integer type: LLVM's translation reads a signless
// integer (or an index) and asserted (SIGABRT) on this one (found by tests/test_fuzz.py).
// expected-error @+1 {{argument 0: llvm.align = 1 : si32 is not a signless integer (an alignment in bytes, such as 1 : i64)}}
func.func @signed(%A: !llvm.ptr<1> {llvm.align = 1 : si32}, %C: !llvm.ptr<1> {llvm.align = 16 : i64}) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{argument 1: llvm.align = 16 : ui64 is not a signless integer (an alignment in bytes, such as 16 : i64)}}
func.func @unsigned_helper(%A: !llvm.ptr<1> {llvm.align = 16 : index}, %C: !llvm.ptr<1> {llvm.align = 16 : ui64}) {
  return
}
