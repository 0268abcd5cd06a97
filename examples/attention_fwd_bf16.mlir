// Attention forward over several KV blocks with online softmax: one CTA (one warpgroup,
// 128 threads) computes a 128-row block of
//   O (128 x 64, f32) = softmax(Q K^T / sqrt(64)) V
// with Q (128 x 64), K and V (256 x 64: 256 keys of head dimension 64), bf16, row-major,
// in an scf.for over 4 KV blocks of 64 keys. Block j (keys 64j .. 64j + 63):
//   S = Q K_j^T                               f32 in tensor memory
//   m_new = max(m, rowmax(S))                 tcgen05.frag_reduce (max), frag_map
//   alpha = exp((m - m_new) / 8)              frag_map
//   p = exp((S - m_new) / 8)                  tcgen05.frag_broadcast of m_new, frag_map
//   l = l alpha + rowsum(p)                   tcgen05.frag_reduce (sum), frag_map
//   P = bf16(p) -> tensor memory              tcgen05.st into the A operand of P V
//   O = O alpha (in tensor memory), O += P V  ld O, multiply, st O; MMA, A in TMEM
// and after the last block O / l goes to global memory.
//
// O is rescaled in tensor memory (ld, multiply, st before the next P V accumulates into
// it), as Blackwell attention kernels do: the accumulator stays where the MMA adds into
// it, one 64-column buffer for the whole loop, and the rescale touches each element of O
// once per block (64 registers per thread at most, 32 at a time here). Accumulating
// each P_j V_j into a fresh buffer and combining in registers would instead keep O in
// registers across the loop (64 more live registers per thread beside S and p) and read
// every block's product out of TMEM anyway.
//
// The running max m and row sum l are per-row values ([128, 1] fragments, one register
// per thread: thread 32 w + l holds row 32 w + l) that the scf.for carries as iteration
// arguments, from -inf and 0 (frag_maps of no input: values computed from the row alone)
// to the values each block yields. At the first block alpha = exp(-inf) = 0 and l is
// p's row sum; O is overwritten by the first P V (its first MMA does not accumulate) and
// not rescaled, since O holds nothing yet (0 times what is there could be NaN).
// The reference is examples/attention_fwd_bf16.check.py.

!gptr = !llvm.ptr<1>
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!smem_64x64xbf16 = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!tmem_128x64xf32 = !tcgen05.tmem<[128, 64], f32>
!tmem_128x64xbf16 = !tcgen05.tmem<[128, 64], bf16>
!frag_128x1xf32 = !tcgen05.frag<[128, 1], f32>
!frag_128x64xf32 = !tcgen05.frag<[128, 64], f32>
!frag_128x64xbf16 = !tcgen05.frag<[128, 64], bf16>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @attention_fwd_bf16(%Q: !gptr, %K: !gptr, %V: !gptr,
                              %O: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index          // keys: 4 blocks of 64
  %overwrite = arith.constant false
  %accumulate = arith.constant true

  %q = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  %k = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %v = "tcgen05.smem_buffer"() : () -> !smem_64x64xbf16
  %s = "tcgen05.tmem_buffer"() {name = "S"} : () -> !tmem_128x64xf32
  %p = "tcgen05.tmem_buffer"() {name = "P"} : () -> !tmem_128x64xbf16
  %o = "tcgen05.tmem_buffer"() {name = "O"} : () -> !tmem_128x64xf32

  "tcgen05.smem_fill"(%Q, %q, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()

  // The running max starts at -inf and the running sum at 0: per-row values computed
  // from the row alone (a frag_map of no input), carried by the loop.
  %m_init = "tcgen05.frag_map"() ({
  ^bb0(%row: index, %c: index):
    %ninf = arith.constant 0xFF800000 : f32
    gpu.yield %ninf : f32
  }) : () -> !frag_128x1xf32
  %l_init = "tcgen05.frag_map"() ({
  ^bb0(%row: index, %c: index):
    %zero = arith.constant 0.0 : f32
    gpu.yield %zero : f32
  }) : () -> !frag_128x1xf32
  %stats:2 = scf.for %key = %c0 to %c256 step %c64
      iter_args(%m_old = %m_init, %l_old = %l_init)
      -> (!frag_128x1xf32, !frag_128x1xf32) {
    %not_first = arith.cmpi ne, %key, %c0 : index
    "tcgen05.smem_fill"(%K, %k, %c0, %key) {src_layout = "mn_k", src_ld = 64 : i64,
                                            dims = ["row_offset"]}
        : (!gptr, !smem_64x64xbf16, index, index) -> ()
    "tcgen05.smem_fill"(%V, %v, %key) {src_layout = "k_mn", src_ld = 64 : i64}
        : (!gptr, !smem_64x64xbf16, index) -> ()

    // S = Q K_j^T
    "tcgen05.mma"(%s, %q, %k, %overwrite) {kind = "f16", k_offset = 0 : i64}
        : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    "tcgen05.mma"(%s, %q, %k, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tmem_128x64xf32, !smem_128x64xbf16, !smem_64x64xbf16, i1) -> ()

    // Online softmax: the new running max, the rescale factor, p and the running sum.
    %sf = "tcgen05.ld"(%s, %c0) : (!tmem_128x64xf32, index) -> !frag_128x64xf32
    %mj = "tcgen05.frag_reduce"(%sf) {kind = "max"} : (!frag_128x64xf32) -> !frag_128x1xf32
    %m_new = "tcgen05.frag_map"(%m_old, %mj) ({
    ^bb0(%a: f32, %b: f32, %row: index, %c: index):
      %mx = arith.maxnumf %a, %b : f32
      gpu.yield %mx : f32
    }) : (!frag_128x1xf32, !frag_128x1xf32) -> !frag_128x1xf32
    %alpha = "tcgen05.frag_map"(%m_old, %m_new) ({
    ^bb0(%a: f32, %b: f32, %row: index, %c: index):
      %d = arith.subf %a, %b : f32
      %scale = arith.constant 0.125 : f32        // 1 / sqrt(64)
      %t = arith.mulf %d, %scale : f32
      %e = math.exp %t : f32                     // 0 at the first block: m = -inf
      gpu.yield %e : f32
    }) : (!frag_128x1xf32, !frag_128x1xf32) -> !frag_128x1xf32
    %mb = "tcgen05.frag_broadcast"(%m_new, %sf)
        : (!frag_128x1xf32, !frag_128x64xf32) -> !frag_128x64xf32
    %pf = "tcgen05.frag_map"(%sf, %mb) ({
    ^bb0(%x: f32, %mx: f32, %row: index, %c: index):
      %d = arith.subf %x, %mx : f32
      %scale = arith.constant 0.125 : f32
      %t = arith.mulf %d, %scale : f32
      %e = math.exp %t : f32
      gpu.yield %e : f32
    }) : (!frag_128x64xf32, !frag_128x64xf32) -> !frag_128x64xf32
    %lj = "tcgen05.frag_reduce"(%pf) {kind = "sum"} : (!frag_128x64xf32) -> !frag_128x1xf32
    %l_new = "tcgen05.frag_map"(%l_old, %alpha, %lj) ({
    ^bb0(%l: f32, %a: f32, %b: f32, %row: index, %c: index):
      %r = arith.mulf %l, %a : f32
      %y = arith.addf %r, %b : f32
      gpu.yield %y : f32
    }) : (!frag_128x1xf32, !frag_128x1xf32, !frag_128x1xf32)
      -> !frag_128x1xf32
    %pb = "tcgen05.frag_map"(%pf) ({
    ^bb0(%x: f32, %row: index, %c: index):
      %y = arith.truncf %x : f32 to bf16
      gpu.yield %y : bf16
    }) : (!frag_128x64xf32) -> !frag_128x64xbf16
    "tcgen05.st"(%p, %c0, %pb) : (!tmem_128x64xbf16, index, !frag_128x64xbf16) -> ()

    // O = O alpha, in tensor memory, before P_j V_j accumulates into it.
    scf.if %not_first {
      scf.for %col = %c0 to %c64 step %c32 {
        %of = "tcgen05.ld"(%o, %col) : (!tmem_128x64xf32, index) -> !frag_128x32xf32
        %ab = "tcgen05.frag_broadcast"(%alpha, %of)
            : (!frag_128x1xf32, !frag_128x32xf32) -> !frag_128x32xf32
        %scaled = "tcgen05.frag_map"(%of, %ab) ({
        ^bb0(%x: f32, %a: f32, %row: index, %c: index):
          %y = arith.mulf %x, %a : f32
          gpu.yield %y : f32
        }) : (!frag_128x32xf32, !frag_128x32xf32) -> !frag_128x32xf32
        "tcgen05.st"(%o, %col, %scaled) : (!tmem_128x64xf32, index, !frag_128x32xf32) -> ()
      }
    }

    // O += P_j V_j, A from tensor memory; the first block's first MMA overwrites O.
    "tcgen05.mma"(%o, %p, %v, %not_first) {kind = "f16", k_offset = 0 : i64}
        : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 16 : i64}
        : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 32 : i64}
        : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    "tcgen05.mma"(%o, %p, %v, %accumulate) {kind = "f16", k_offset = 48 : i64}
        : (!tmem_128x64xf32, !tmem_128x64xbf16, !smem_64x64xbf16, i1) -> ()
    scf.yield %m_new, %l_new : !frag_128x1xf32, !frag_128x1xf32
  }

  // O / l
  scf.for %col = %c0 to %c64 step %c32 {
    %of = "tcgen05.ld"(%o, %col) : (!tmem_128x64xf32, index) -> !frag_128x32xf32
    %lb = "tcgen05.frag_broadcast"(%stats#1, %of)
        : (!frag_128x1xf32, !frag_128x32xf32) -> !frag_128x32xf32
    %out = "tcgen05.frag_map"(%of, %lb) ({
    ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
      %y = arith.divf %x, %sum : f32
      gpu.yield %y : f32
    }) : (!frag_128x32xf32, !frag_128x32xf32) -> !frag_128x32xf32
    "tcgen05.store_fragment"(%out, %O, %col) {ld = 64 : i64}
        : (!frag_128x32xf32, !gptr, index) -> ()
  }
  return
}
