// Diagnostics of tcgen05-verify on leading dimensions, offsets and extents given as
// operands (the dims attribute of smem_fill, store_fragment and load_fragment) and on
// the kernel's grid entry. The alignment rule is the fill's: an mn_k fill reads 16-byte
// vectors, so its K offset and row stride must be multiples of 16 bytes (8 bf16); the
// values below are derived by hand from the loop bounds and arith ops that define them.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics | FileCheck %s

// A fill with every dims operand, and a store with every one, are accepted unchanged.
// CHECK-LABEL: func.func @valid_dims
// CHECK: dims = ["src_ld", "row_offset", "rows", "k_size"]
// CHECK: dims = ["ld", "row_offset", "column_offset", "rows", "columns"]
func.func @valid_dims(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %lda: index, %m0: index,
                      %m: index, %k: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(m, 128)", "2", "k"]}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %a, %c0, %lda, %m0, %m, %k)
      {src_layout = "mn_k", dims = ["src_ld", "row_offset", "rows", "k_size"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index, index,
         index, index) -> ()
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  "tcgen05.store_fragment"(%frag, %C, %c0, %lda, %m0, %c0, %m, %k)
      {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, index, index, index, index,
         index) -> ()
  return
}

// -----

// A stride of type i32 (a kernel argument used without arith.index_cast).
func.func @stride_of_wrong_type(%A: !llvm.ptr<1>, %lda: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_ld has type i32, not index (arith.index_cast converts an integer kernel argument)}}
  "tcgen05.smem_fill"(%A, %a, %c0, %lda) {src_layout = "mn_k", dims = ["src_ld"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, i32) -> ()
  return
}

// -----

func.func @store_stride_of_wrong_type(%C: !llvm.ptr<1>, %ldc: i64)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{ld has type i64, not index}}
  "tcgen05.store_fragment"(%frag, %C, %c0, %ldc) {dims = ["ld"]}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, i64) -> ()
  return
}

// -----

// The K offset runs 4, 68, 132, ...: always 4 bf16 (8 bytes) past a 16-byte boundary.
func.func @k_offset_misaligned_for_the_swizzle(%A: !llvm.ptr<1>, %K: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  scf.for %k = %c4 to %K step %c64 {
    // expected-error @+1 {{the K offset is 4 modulo 8 bf16 elements (8 bytes past a multiple of 16) for every value it takes: not aligned to the 16-byte vector loads of src_layout = "mn_k" (the 16-byte units the 128B swizzle permutes, Table 41)}}
    "tcgen05.smem_fill"(%A, %a, %k, %K) {src_layout = "mn_k", dims = ["src_ld"]}
        : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
  }
  return
}

// -----

// A tile offset computed as 64 * t + 2: 2 modulo 8 for every t.
func.func @computed_k_offset_misaligned(%A: !llvm.ptr<1>, %t: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %t64 = arith.muli %t, %c64 : index
  %k = arith.addi %t64, %c2 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "32B">
  // expected-error @+1 {{the K offset is 2 modulo 8 bf16 elements (4 bytes past a multiple of 16)}}
  "tcgen05.smem_fill"(%A, %a, %k) {src_layout = "mn_k", src_ld = 512 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "32B">, index) -> ()
  return
}

// -----

// A row stride of 8 * s + 4 bf16 elements: every other row starts 8 bytes off.
func.func @stride_misaligned(%A: !llvm.ptr<1>, %s: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %s8 = arith.muli %c8, %s : index
  %lda = arith.addi %s8, %c4 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_ld is 4 modulo 8 bf16 elements (8 bytes past a multiple of 16) for every value it takes}}
  "tcgen05.smem_fill"(%A, %a, %c0, %lda) {src_layout = "mn_k", dims = ["src_ld"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
  return
}

// -----

// A constant stride operand gets the attribute's checks.
func.func @constant_stride_operand(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_ld = 100 bf16 elements is 200 bytes, not a multiple of the 16-byte vector loads}}
  "tcgen05.smem_fill"(%A, %a, %c0, %c100) {src_layout = "mn_k", dims = ["src_ld"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
  return
}

// -----

func.func @stride_given_twice(%A: !llvm.ptr<1>, %lda: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{the leading dimension src_ld is given twice: as the attribute src_ld = 64 and as an operand named in dims}}
  "tcgen05.smem_fill"(%A, %a, %c0, %lda) {src_layout = "mn_k", src_ld = 64 : i64, dims = ["src_ld"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index) -> ()
  return
}

// -----

func.func @no_stride(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{no leading dimension: give the attribute ld = N : i64 or an index operand named "ld" in dims}}
  "tcgen05.store_fragment"(%frag, %C, %c0) : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  return
}

// -----

func.func @unknown_dim_and_count(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+3 {{dims names "k_size", which is not one of ld, row_offset, column_offset, rows, columns}}
  // expected-error @+2 {{dims names 3 operand(s) (columns, k_size, columns) but the op has 1 after its 3 fixed operand(s)}}
  // expected-error @+1 {{dims names "columns" twice}}
  "tcgen05.store_fragment"(%frag, %C, %c0, %n) {ld = 32 : i64, dims = ["columns", "k_size", "columns"]}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, index) -> ()
  return
}

// -----

// expected-error @+1 {{tcgen05.kernel.grid: "M / 128" is not an integer, an argument name or ceildiv(<argument or integer>, <integer>)}}
func.func @bad_grid(%M: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["M / 128"]}} {
  return
}

// -----

// expected-error @+1 {{attribute tcgen05.kernel.grid = "4" must be an array of strings}}
func.func @grid_not_an_array()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = "4"}} {
  return
}

// -----

// IRDL binds every value of the dims group to one type (the first's), so an i32 after an
// index is reported by the IRDL verifier, at the op.
func.func @mixed_types(%A: !llvm.ptr<1>, %lda: index, %m: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{expected 'index' but got 'i32'}}
  "tcgen05.smem_fill"(%A, %a, %c0, %lda, %m) {src_layout = "mn_k", dims = ["src_ld", "rows"]}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index, index, i32) -> ()
  return
}

// -----

func.func @negative_stride_operand(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 32], f32>
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 32], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  // expected-error @+1 {{ld = -1 must be positive}}
  "tcgen05.store_fragment"(%frag, %C, %c0, %cm1) {dims = ["ld"]}
      : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, index) -> ()
  return
}

// -----

// A grid past CUDA's maximum grid dimensions (65535 CTAs along y and z, 2^31 - 1 along x;
// CUDA C++ Programming Guide, Technical Specifications per Compute Capability) cannot be
// launched: refused where it is constant (an integer, or ceildiv of an integer).
// expected-error @+1 {{tcgen05.kernel.grid: 65536 CTAs along y, past CUDA's limit of 65535 for grid dimension y}}
func.func @grid_y_past_limit(%M: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["ceildiv(M, 128)", "65536"]}} {
  return
}

// -----

// ceildiv(131071, 2) = 65536 CTAs along z.
// expected-error @+1 {{tcgen05.kernel.grid: "ceildiv(131071, 2)" is 65536 CTAs along z, past CUDA's limit of 65535 for grid dimension z}}
func.func @grid_z_past_limit()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["1", "1", "ceildiv(131071, 2)"]}} {
  return
}

// -----

// expected-error @+1 {{tcgen05.kernel.grid: 2147483648 CTAs along x, past CUDA's limit of 2147483647 for grid dimension x}}
func.func @grid_x_past_limit()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["2147483648"]}} {
  return
}

// -----

// At the limits exactly: accepted.
func.func @grid_at_limits()
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64,
                                  grid = ["2147483647", "65535", "ceildiv(131070, 2)"]}} {
  return
}
