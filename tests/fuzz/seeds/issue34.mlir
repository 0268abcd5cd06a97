// Seeds of issue 34's compiler signatures: each input once crashed the compiler or
// lost its location. The fuzzer (tests/fuzz/corpus.py) mutates them further.
//
// 1. An llvm.align that is not a power of two on a function that is not a kernel: LLVM's
//    translation aborted the process (SIGABRT).
func.func @helper(%C: !llvm.ptr<1> {llvm.align = 48 : i64}) {
  return
}

// -----

// 1. The same on a kernel whose tcgen05.kernel attribute is misspelled.
func.func @k(%C: !llvm.ptr<1> {llvm.align = 24 : i64}) attributes {tcgen05.kernal = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  return
}

// -----

// 2. A fill's K offset of -2^63: the folded address arithmetic left the i64 range
//    (an internal TypeError in tcgen05-lower-to-llvm).
func.func @k_offset_min(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %kmin = arith.constant -9223372036854775808 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %a, %kmin) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// fuzz-flags: --arch sm_103a
// 3. With --arch, errors in the tcgen05.kernel dictionary lost their location: a kernel
//    compiled with --arch, whose dictionary the mutations edit.
func.func @gemm_bf16_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>

  // A is stored with K contiguous; B with N contiguous, so its fill transposes it.
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()

  // Epilogue: 32 columns per load keeps 32 registers per thread live.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col)
        : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}

// -----

// fuzz-flags: --pass-option 'tcgen05-plan-tmem{node-limit=abc}'
// 4. A pass option that is not an integer printed Python's "invalid literal for int()"
//    (the mutations change the flag's value too).
func.func @gemm_bf16_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>

  // A is stored with K contiguous; B with N contiguous, so its fill transposes it.
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()

  // Epilogue: 32 columns per load keeps 32 registers per thread live.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col)
        : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}

// -----

// fuzz-flags: --pass-option 'tcgen05-plan-tmem{strategy=optimal node-limit=100}'
// 4. A valid option value, so that mutations of the kernel meet a non-default pipeline.
func.func @gemm_bf16_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>

  // A is stored with K contiguous; B with N contiguous, so its fill transposes it.
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()

  "tcgen05.mma"(%acc, %a, %b, %overwrite) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 16 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 32 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  "tcgen05.mma"(%acc, %a, %b, %accumulate) {kind = "f16", k_offset = 48 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()

  // Epilogue: 32 columns per load keeps 32 registers per thread live.
  scf.for %col = %c0 to %c256 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col)
        : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col) {ld = 256 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
