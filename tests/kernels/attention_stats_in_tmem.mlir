// examples/attention_fwd_bf16.mlir with the running max m and row sum l kept in tensor
// memory between blocks instead of carried by the loop: the two columns of the buffer ML,
// loaded each block as one-column [128, 1] fragments (.32x32b.x1, one register per
// thread), combined with the block's per-row results by per-row frag_maps, stored back.
// At the first block nothing is stored there yet: the maps select the block's own values
// (%first) and never use what was loaded. Same computation, same reference
// (examples/attention_fwd_bf16.check.py): tests/test_attention.py runs both.
func.func @attention_stats_in_tmem(%Q: !llvm.ptr<1>, %K: !llvm.ptr<1>, %V: !llvm.ptr<1>,
                              %O: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index          // keys: 4 blocks of 64
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %q = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %k = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %v = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tcgen05.tmem<[128, 64], f32>
  %p = "tcgen05.tmem_buffer"() {name = "P"} : () -> !tcgen05.tmem<[128, 64], bf16>
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !tcgen05.tmem<[128, 64], f32>
  %ml = "tcgen05.tmem_buffer"() {name = "ML"} : () -> !tcgen05.tmem<[128, 2], f32>

  "tcgen05.smem_fill"(%Q, %q, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()

  scf.for %key = %c0 to %c256 step %c64 {
    %first = arith.cmpi eq, %key, %c0 : index
    %not_first = arith.cmpi ne, %key, %c0 : index
    "tcgen05.smem_fill"(%K, %k, %c0, %key) {src_layout = "mn_k", src_ld = 64 : i64,
                                            dims = ["row_offset"]}
        : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index, index) -> ()
    "tcgen05.smem_fill"(%V, %v, %key) {src_layout = "k_mn", src_ld = 64 : i64}
        : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()

    // S = Q K_j^T
    "tcgen05.mma"(%s, %q, %k, %overwrite) {kind = "f16", k_offset = 0 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()

    // Online softmax: the new running max, the rescale factor, p and the running sum.
    %sf = "tcgen05.ld"(%s, %c0)
        : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
    %mj = "tcgen05.frag_reduce"(%sf) {kind = "max"}
        : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 1], f32>
    %m_old = "tcgen05.ld"(%ml, %c0)
        : (!tcgen05.tmem<[128, 2], f32>, index) -> !tcgen05.frag<[128, 1], f32>
    %l_old = "tcgen05.ld"(%ml, %c1)
        : (!tcgen05.tmem<[128, 2], f32>, index) -> !tcgen05.frag<[128, 1], f32>
    %m_new = "tcgen05.frag_map"(%m_old, %mj) ({
    ^bb0(%a: f32, %b: f32, %row: index, %c: index):
      %mx = arith.maxnumf %a, %b : f32
      %y = arith.select %first, %b, %mx : f32
      gpu.yield %y : f32
    }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
    %alpha = "tcgen05.frag_map"(%m_old, %m_new) ({
    ^bb0(%a: f32, %b: f32, %row: index, %c: index):
      %d = arith.subf %a, %b : f32
      %scale = arith.constant 0.125 : f32        // 1 / sqrt(64)
      %t = arith.mulf %d, %scale : f32
      %e = math.exp %t : f32
      %zero = arith.constant 0.0 : f32
      %y = arith.select %first, %zero, %e : f32
      gpu.yield %y : f32
    }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>) -> !tcgen05.frag<[128, 1], f32>
    %mb = "tcgen05.frag_broadcast"(%m_new, %sf)
        : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
    %pf = "tcgen05.frag_map"(%sf, %mb) ({
    ^bb0(%x: f32, %mx: f32, %row: index, %c: index):
      %d = arith.subf %x, %mx : f32
      %scale = arith.constant 0.125 : f32
      %t = arith.mulf %d, %scale : f32
      %e = math.exp %t : f32
      gpu.yield %e : f32
    }) : (!tcgen05.frag<[128, 64], f32>, !tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], f32>
    %lj = "tcgen05.frag_reduce"(%pf) {kind = "sum"}
        : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 1], f32>
    %l_new = "tcgen05.frag_map"(%l_old, %alpha, %lj) ({
    ^bb0(%l: f32, %a: f32, %b: f32, %row: index, %c: index):
      %r = arith.mulf %l, %a : f32
      %y = arith.addf %r, %b : f32
      %z = arith.select %first, %b, %y : f32
      gpu.yield %z : f32
    }) : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 1], f32>)
      -> !tcgen05.frag<[128, 1], f32>
    "tcgen05.st"(%ml, %c0, %m_new)
        : (!tcgen05.tmem<[128, 2], f32>, index, !tcgen05.frag<[128, 1], f32>) -> ()
    "tcgen05.st"(%ml, %c1, %l_new)
        : (!tcgen05.tmem<[128, 2], f32>, index, !tcgen05.frag<[128, 1], f32>) -> ()
    %pb = "tcgen05.frag_map"(%pf) ({
    ^bb0(%x: f32, %row: index, %c: index):
      %y = arith.truncf %x : f32 to bf16
      gpu.yield %y : bf16
    }) : (!tcgen05.frag<[128, 64], f32>) -> !tcgen05.frag<[128, 64], bf16>
    "tcgen05.st"(%p, %c0, %pb)
        : (!tcgen05.tmem<[128, 64], bf16>, index, !tcgen05.frag<[128, 64], bf16>) -> ()

    // O = O alpha, in tensor memory, before P_j V_j accumulates into it.
    scf.if %not_first {
      scf.for %col = %c0 to %c64 step %c32 {
        %of = "tcgen05.ld"(%o, %col)
            : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
        %ab = "tcgen05.frag_broadcast"(%alpha, %of)
            : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
        %scaled = "tcgen05.frag_map"(%of, %ab) ({
        ^bb0(%x: f32, %a: f32, %row: index, %c: index):
          %y = arith.mulf %x, %a : f32
          gpu.yield %y : f32
        }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
        "tcgen05.st"(%o, %col, %scaled)
            : (!tcgen05.tmem<[128, 64], f32>, index, !tcgen05.frag<[128, 32], f32>) -> ()
      }
    }

    // O += P_j V_j, A from tensor memory; the first block's first MMA overwrites O.
    "tcgen05.mma"(%o, %p, %v, %not_first) {kind = "f16", k_offset = 0 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>,
           !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  }

  // O / l
  %l = "tcgen05.ld"(%ml, %c1)
      : (!tcgen05.tmem<[128, 2], f32>, index) -> !tcgen05.frag<[128, 1], f32>
  scf.for %col = %c0 to %c64 step %c32 {
    %of = "tcgen05.ld"(%o, %col)
        : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    %lb = "tcgen05.frag_broadcast"(%l, %of)
        : (!tcgen05.frag<[128, 1], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
    %out = "tcgen05.frag_map"(%of, %lb) ({
    ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
      %y = arith.divf %x, %sum : f32
      gpu.yield %y : f32
    }) : (!tcgen05.frag<[128, 32], f32>, !tcgen05.frag<[128, 32], f32>) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%out, %O, %col) {ld = 64 : i64}
        : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index) -> ()
  }
  return
}
