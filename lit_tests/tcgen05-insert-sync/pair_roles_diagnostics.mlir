// A cta_group::2 kernel with warp roles that issue no TMA load: tcgen05-insert-sync
// writes the CTA-pair protocol for TMA-fed rings only (rings.py, docs/cta-pairs.md) and
// refuses this one at its partitions op, naming the rule.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync' --split-input-file --verify-diagnostics
func.func @pair_roles_without_tma(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %a0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b0 = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[256, 128], f32>
  // expected-error @+1 {{tcgen05-insert-sync: the warp roles of this cta_group::2 kernel issue no TMA load; the CTA-pair protocol is written for TMA-fed rings only}}
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c64 {
        "tcgen05.smem_fill"(%A, %a0, %k) {src_layout = "mn_k", src_ld = 256 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
        "tcgen05.smem_fill"(%B, %b0, %k) {src_layout = "k_mn", src_ld = 128 : i64}
            : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %k = %c0 to %c256 step %c64 {
        %not_first = arith.cmpi ne, %k, %c0 : index
        "tcgen05.mma"(%acc, %a0, %b0, %not_first) {kind = "f16", k_offset = 0 : i64}
            : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %frag = "tcgen05.ld"(%acc, %c0)
          : (!tcgen05.tmem<[256, 128], f32>, index) -> !tcgen05.frag<[256, 32], f32>
      "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 128 : i64}
          : (!tcgen05.frag<[256, 32], f32>, !llvm.ptr<1>, index) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  return
}
