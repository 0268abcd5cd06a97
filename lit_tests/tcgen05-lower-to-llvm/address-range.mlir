// Address arithmetic the lowering folds at compile time (constant offsets) that leaves the
// 64-bit range is refused at the op: an offset that large addresses no valid memory, and
// an i64 constant cannot hold it (the lowering failed with an internal TypeError).
// Expected by hand: the fill of a 128 x 64 bf16 tile with src_ld = 64 reads source byte
// (row * 64 + k0) * 2 + chunk * 16; with k0 = -2^63 the constant part is -2^64.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-lower-to-llvm' --verify-diagnostics

func.func @k_offset_min(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %kmin = arith.constant -9223372036854775808 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{tcgen05.smem_fill: its address arithmetic, folded at compile time, gives -18446744073709551616, outside the 64-bit range of an address (operand #2 = -9223372036854775808): an offset this large addresses no valid memory}}
  "tcgen05.smem_fill"(%A, %a, %kmin) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

