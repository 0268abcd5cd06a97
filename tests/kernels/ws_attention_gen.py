"""The text of examples/ws_attention_fwd_bf16.mlir for head dimension 64 (the example
itself) or 128 (tests/test_ws_attention.py): the head dimension decides how many 64-wide
halves Q, K, V and O are cut into (one TMA box and one swizzle span of 128 bytes each,
docs/tma.md) and so how many MMAs each product takes; everything else is the same text.
tests/test_ws_attention.py checks that generate(64) is the example, character for
character."""

from __future__ import annotations

HEADER = """// Forward attention, warp-specialized, all synchronization written by hand:
//   O (128 x D, f32) = softmax(Q K^T / sqrt(D) + mask) V
// Q (128 x D), K and V (L x D) bf16 row-major, D = {d} (the head dimension), L keys given
// at run time; the mask hides keys >= L (the last KV block may be partial: TMA fills the
// rows past L with zeros and the softmax gives them -inf) and, when %causal != 0, keys
// after the query's row (query r sees keys 0 .. r: blocks past the second are skipped).
// One CTA of 256 threads; three roles run at once (docs/partitions.md):
//   load    (warp 0):     Q once, then K_j and V_j of KV block j (64 keys) through a
//                         2-stage TMA ring;
//   mma     (warp 1):     S_j = Q K_j^T into S stage j % 2, then O += P_j V_j with P_j
//                         from tensor memory (A operand), software-pipelined: S_{{j+1}} is
//                         issued before the wait for P_j, so the tensor pipe computes the
//                         next scores while the softmax works on these;
//   softmax (warps 4-7):  per block, the online softmax of S_j (tcgen05.frag_reduce,
//                         frag_map, frag_broadcast), P_j = bf16(p) stored into P stage j % 2
//                         (tcgen05.st into an A operand), and the correction of O in tensor
//                         memory (O *= alpha, ld/st) once the previous P V has completed;
//                         after the last block O / l goes to global memory.
// mbarriers (9.7.16.6.4 canonical patterns; parities from the loop counter j):
//   q_full          (count 1): expect_tx + the Q boxes; MMA waits phase 0.
//   kv_full[2]      (count 1): expect_tx + the K and V boxes of block j into stage j % 2;
//                   MMA waits parity (j / 2) & 1.
//   kv_empty[2]     (count 1): MMA commits after P_j V_j; load waits parity (j / 2 + 1) & 1
//                   before refilling (a fresh mbarrier reports the phase before the first
//                   complete), and after its loop waits for the last commit to each stage.
//   s_full[2]       (count 1): MMA commits after S_j; softmax waits parity (j / 2) & 1 and
//                   fences after_thread_sync before its tcgen05.ld.
//   p_full          (count 128): softmax arrives after P_j and the correction of O, behind
//                   tcgen05.wait::st and fence::before_thread_sync (every tcgen05.ld is
//                   followed by its wait::ld before its registers are used); MMA waits parity j & 1
//                   and fences after_thread_sync before P_j V_j (and before S_{{j+2}}
//                   overwrites the S stage the softmax read).
//   o_done          (count 1): MMA commits after P_j V_j; softmax waits parity (j + 1) & 1
//                   before touching O or P stage j % 2 in block j (phase j - 1; block 0
//                   waits for the phase before the first), and phase n - 1 before the
//                   epilogue.
// Compile with tcgen05-insert-sync{{strategy=none}}: insert-sync does not plan this
// protocol (tcgen05.st in a role, two accumulators, loops of run-time trip counts,
// docs/partitions.md "Not planned yet"); tcgen05-verify-sync checks it. The reference is
// examples/ws_attention_fwd_bf16.check.py.
"""


def _mmas(d: str, a: str, b: str, types: str, first: str, count: int = 4) -> list[str]:
    lines = []
    for i in range(count):
        flag = first if i == 0 else "%true"
        lines.append(f'{d}, {a}, {b}, {flag}) {{kind = "f16", k_offset = {16 * i} : i64}}'
                     f"\n{types}")
    return lines


def generate(d: int = 64) -> str:
    """The kernel for head dimension `d` (64 or 128)."""
    halves = d // 64
    out = [HEADER.format(d=d)]
    scale = 1.0 / d ** 0.5
    q_t = '!tcgen05.smem<[128, 64], bf16, "K", "128B">'
    kr_t = '!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">'
    k_t = '!tcgen05.smem<[64, 64], bf16, "K", "128B">'
    vr_t = '!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">'
    v_t = '!tcgen05.smem<[64, 64], bf16, "MN", "128B">'
    sr_t = "!tcgen05.tmem<[2, 128, 64], f32>"
    s_t = "!tcgen05.tmem<[128, 64], f32>"
    pr_t = "!tcgen05.tmem<[2, 128, 64], bf16>"
    p_t = "!tcgen05.tmem<[128, 64], bf16>"
    o_t = "!tcgen05.tmem<[128, 64], f32>"
    bar = "!tcgen05.mbarrier"
    f64 = "!tcgen05.frag<[128, 64], f32>"
    f32c = "!tcgen05.frag<[128, 32], f32>"
    row = "!tcgen05.frag<[128, 1], f32>"
    w = out.append
    w(f"""func.func @ws_attention_fwd_bf16(%Q: !llvm.ptr<1>, %K: !llvm.ptr<1>, %V: !llvm.ptr<1>,
    %O: !llvm.ptr<1>, %L: index, %causal: index,
    %tmQ: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}}}},
    %tmK: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}}}},
    %tmV: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "V", box = array<i64: 64, 64>,
                                              swizzle = "128B"}}}})
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}}}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false

  // KV blocks: ceil(L / 64); causal: query rows 0-127 see keys 0-127 at most, 2 blocks.
  %l63 = arith.addi %L, %c63 : index
  %all = arith.divui %l63, %c64 : index
  %two = arith.minui %all, %c2 : index
  %is_causal = arith.cmpi ne, %causal, %c0 : index
  %n = arith.select %is_causal, %two, %all : index
""")
    for h in range(halves):
        w(f'  %q{h} = "tcgen05.smem_buffer"() : () -> {q_t}\n'
          f'  %k{h} = "tcgen05.smem_buffer"() : () -> {kr_t}\n'
          f'  %v{h} = "tcgen05.smem_buffer"() : () -> {vr_t}\n')
    w(f'  %s = "tcgen05.tmem_buffer"() {{name = "S"}} : () -> {sr_t}\n'
      f'  %p = "tcgen05.tmem_buffer"() {{name = "P"}} : () -> {pr_t}\n')
    for h in range(halves):
        w(f'  %o{h} = "tcgen05.tmem_buffer"() {{name = "O{h}"}} : () -> {o_t}\n')
    w(f"""  %q_full = "tcgen05.alloc_mbarrier"() {{count = 1 : i64}} : () -> {bar}
  %kv_full = "tcgen05.alloc_mbarrier"() {{count = 1 : i64, stages = 2 : i64}} : () -> {bar}
  %kv_empty = "tcgen05.alloc_mbarrier"() {{count = 1 : i64, stages = 2 : i64}} : () -> {bar}
  %s_full = "tcgen05.alloc_mbarrier"() {{count = 1 : i64, stages = 2 : i64}} : () -> {bar}
  %p_full = "tcgen05.alloc_mbarrier"() {{count = 128 : i64}} : () -> {bar}
  %o_done = "tcgen05.alloc_mbarrier"() {{count = 1 : i64}} : () -> {bar}

  "tcgen05.partitions"() ({{
    // Load role: warp 0; one thread issues the expect_tx and the TMA loads.
    "tcgen05.role"() ({{
      "tcgen05.mbarrier_expect_tx"(%q_full) : ({bar}) -> ()
""")
    for h in range(halves):
        w(f'      %qc{h} = arith.constant {64 * h} : index\n'
          f'      "tcgen05.tma_load"(%tmQ, %q{h}, %q_full, %qc{h}, %c0)\n'
          f'          : (!llvm.ptr<1>, {q_t}, {bar}, index, index) -> ()\n')
    w(f"""      scf.for %j = %c0 to %n step %c1 {{
        %st = arith.remui %j, %c2 : index
        %r = arith.divui %j, %c2 : index
        %r1 = arith.addi %r, %c1 : index
        %ep = arith.andi %r1, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %key = arith.muli %j, %c64 : index
        %full_s = "tcgen05.mbarrier_stage"(%kv_full, %st) : ({bar}, index) -> {bar}
        %empty_s = "tcgen05.mbarrier_stage"(%kv_empty, %st) : ({bar}, index) -> {bar}
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : ({bar}, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : ({bar}) -> ()
""")
    for h in range(halves):
        w(f"""        %hc{h} = arith.constant {64 * h} : index
        %ks{h} = "tcgen05.smem_stage"(%k{h}, %st) : ({kr_t}, index) -> {k_t}
        %vs{h} = "tcgen05.smem_stage"(%v{h}, %st) : ({vr_t}, index) -> {v_t}
        "tcgen05.tma_load"(%tmK, %ks{h}, %full_s, %hc{h}, %key)
            : (!llvm.ptr<1>, {k_t}, {bar}, index, index) -> ()
        "tcgen05.tma_load"(%tmV, %vs{h}, %full_s, %hc{h}, %key)
            : (!llvm.ptr<1>, {v_t}, {bar}, index, index) -> ()
""")
    w(f"""      }}
      // The producer tail: stage s took ceil((n - s) / 2) blocks; wait for the phase of
      // its last commit (parity (uses + 1) & 1; a stage never used waits for the phase
      // before the first, complete on a fresh mbarrier).
      scf.for %st = %c0 to %c2 step %c1 {{
        %left = arith.subi %n, %st : index
        %left1 = arith.addi %left, %c1 : index
        %uses = arith.divui %left1, %c2 : index
        %u1 = arith.addi %uses, %c1 : index
        %tp = arith.andi %u1, %c1 : index
        %tail_parity = arith.index_cast %tp : index to i32
        %empty_s = "tcgen05.mbarrier_stage"(%kv_empty, %st) : ({bar}, index) -> {bar}
        "tcgen05.mbarrier_wait"(%empty_s, %tail_parity) : ({bar}, i32) -> ()
      }}
      "gpu.yield"() : () -> ()
    }}) {{name = "load", first_warp = 0 : i64, warps = 1 : i64}} : () -> ()

    // MMA role: warp 1. S_0 first, then per block j < n - 1: S_{{j+1}}, P_j V_j; then the
    // last P V.
    "tcgen05.role"() ({{
      "tcgen05.mbarrier_wait"(%q_full, %p0) : ({bar}, i32) -> ()
""")

    def scores(j: str, t: str, indent: str) -> None:
        w(f"""{indent}%sst{t} = arith.remui {j}, %c2 : index
{indent}%sr{t} = arith.divui {j}, %c2 : index
{indent}%sfp{t} = arith.andi %sr{t}, %c1 : index
{indent}%kv_parity{t} = arith.index_cast %sfp{t} : index to i32
{indent}%kvf{t} = "tcgen05.mbarrier_stage"(%kv_full, %sst{t}) : ({bar}, index) -> {bar}
{indent}%sf{t} = "tcgen05.mbarrier_stage"(%s_full, %sst{t}) : ({bar}, index) -> {bar}
{indent}%sd{t} = "tcgen05.tmem_stage"(%s, %sst{t}) : ({sr_t}, index) -> {s_t}
{indent}"tcgen05.mbarrier_wait"(%kvf{t}, %kv_parity{t}) : ({bar}, i32) -> ()
""")
        first = "%false"
        for h in range(halves):
            w(f'{indent}%sk{t}_{h} = "tcgen05.smem_stage"(%k{h}, %sst{t}) : ({kr_t}, index) -> {k_t}\n')
            for line in _mmas(f"%sd{t}", f"%q{h}", f"%sk{t}_{h}",
                              f"{indent}    : ({s_t}, {q_t}, {k_t}, i1) -> ()", first):
                w(f'{indent}"tcgen05.mma"({line}\n')
            first = "%true"
        w(f'{indent}"tcgen05.commit"(%sf{t}) : ({bar}) -> ()\n')

    def pv(j: str, t: str, indent: str) -> None:
        w(f"""{indent}%pst{t} = arith.remui {j}, %c2 : index
{indent}%pp{t} = arith.andi {j}, %c1 : index
{indent}%p_parity{t} = arith.index_cast %pp{t} : index to i32
{indent}%pa{t} = "tcgen05.tmem_stage"(%p, %pst{t}) : ({pr_t}, index) -> {p_t}
{indent}%kve{t} = "tcgen05.mbarrier_stage"(%kv_empty, %pst{t}) : ({bar}, index) -> {bar}
{indent}%acc{t} = arith.cmpi ne, {j}, %c0 : index
{indent}"tcgen05.mbarrier_wait"(%p_full, %p_parity{t}) : ({bar}, i32) -> ()
{indent}"tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
""")
        for h in range(halves):
            w(f'{indent}%vb{t}_{h} = "tcgen05.smem_stage"(%v{h}, %pst{t}) : ({vr_t}, index) -> {v_t}\n')
            for line in _mmas(f"%o{h}", f"%pa{t}", f"%vb{t}_{h}",
                              f"{indent}    : ({o_t}, {p_t}, {v_t}, i1) -> ()", f"%acc{t}"):
                w(f'{indent}"tcgen05.mma"({line}\n')
        w(f'{indent}"tcgen05.commit"(%kve{t}) : ({bar}) -> ()\n'
          f'{indent}"tcgen05.commit"(%o_done) : ({bar}) -> ()\n')

    scores("%c0", "0", "      ")
    w("      %last = arith.subi %n, %c1 : index\n"
      "      scf.for %j = %c0 to %last step %c1 {\n"
      "        %j1 = arith.addi %j, %c1 : index\n")
    scores("%j1", "n", "        ")
    pv("%j", "l", "        ")
    w("      }\n")
    pv("%last", "e", "      ")
    w(f"""      "gpu.yield"() : () -> ()
    }}) {{name = "mma", first_warp = 1 : i64, warps = 1 : i64}} : () -> ()

    // Softmax role: warps 4-7, one warpgroup (warp w reads lanes 32 (w % 4) ..); it also
    // corrects O. The running max m and sum l are per-row values the loop carries.
    "tcgen05.role"() ({{
      %m_init = "tcgen05.frag_map"() ({{
      ^bb0(%row: index, %c: index):
        %ninf = arith.constant 0xFF800000 : f32
        gpu.yield %ninf : f32
      }}) : () -> {row}
      %l_init = "tcgen05.frag_map"() ({{
      ^bb0(%row: index, %c: index):
        %zero = arith.constant 0.0 : f32
        gpu.yield %zero : f32
      }}) : () -> {row}
      %stats:2 = scf.for %j = %c0 to %n step %c1
          iter_args(%m_old = %m_init, %l_old = %l_init) -> ({row}, {row}) {{
        %st = arith.remui %j, %c2 : index
        %r = arith.divui %j, %c2 : index
        %sp = arith.andi %r, %c1 : index
        %s_parity = arith.index_cast %sp : index to i32
        %j1 = arith.addi %j, %c1 : index
        %op = arith.andi %j1, %c1 : index
        %o_parity = arith.index_cast %op : index to i32
        %key = arith.muli %j, %c64 : index
        %not_first = arith.cmpi ne, %j, %c0 : index
        %sf = "tcgen05.mbarrier_stage"(%s_full, %st) : ({bar}, index) -> {bar}
        %sv = "tcgen05.tmem_stage"(%s, %st) : ({sr_t}, index) -> {s_t}
        %pv = "tcgen05.tmem_stage"(%p, %st) : ({pr_t}, index) -> {p_t}
        "tcgen05.mbarrier_wait"(%sf, %s_parity) : ({bar}, i32) -> ()
        "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
        %raw = "tcgen05.ld"(%sv, %c0) : ({s_t}, index) -> {f64}
        // Its registers are read only after tcgen05.wait::ld (9.7.16.8.3).
        "tcgen05.wait"() {{kind = "ld"}} : () -> ()
        // Masked keys (past L, or after the row when causal) get -inf.
        %sc = "tcgen05.frag_map"(%raw) ({{
        ^bb0(%x: f32, %row: index, %c: index):
          %kk = arith.addi %key, %c : index
          %out = arith.cmpi uge, %kk, %L : index
          %later = arith.cmpi ugt, %kk, %row : index
          %hide = arith.andi %later, %is_causal : i1
          %dead = arith.ori %out, %hide : i1
          %ninf = arith.constant 0xFF800000 : f32
          %y = arith.select %dead, %ninf, %x : f32
          gpu.yield %y : f32
        }}) : ({f64}) -> {f64}
        %mj = "tcgen05.frag_reduce"(%sc) {{kind = "max"}} : ({f64}) -> {row}
        %m_new = "tcgen05.frag_map"(%m_old, %mj) ({{
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %mx = arith.maxnumf %a, %b : f32
          gpu.yield %mx : f32
        }}) : ({row}, {row}) -> {row}
        %alpha = "tcgen05.frag_map"(%m_old, %m_new) ({{
        ^bb0(%a: f32, %b: f32, %row: index, %c: index):
          %dd = arith.subf %a, %b : f32
          %scale = arith.constant {scale!r} : f32
          %t = arith.mulf %dd, %scale : f32
          %e = math.exp %t : f32
          gpu.yield %e : f32
        }}) : ({row}, {row}) -> {row}
        %mb = "tcgen05.frag_broadcast"(%m_new, %sc) : ({row}, {f64}) -> {f64}
        %pf = "tcgen05.frag_map"(%sc, %mb) ({{
        ^bb0(%x: f32, %mx: f32, %row: index, %c: index):
          %dd = arith.subf %x, %mx : f32
          %scale = arith.constant {scale!r} : f32
          %t = arith.mulf %dd, %scale : f32
          %e = math.exp %t : f32
          gpu.yield %e : f32
        }}) : ({f64}, {f64}) -> {f64}
        %lj = "tcgen05.frag_reduce"(%pf) {{kind = "sum"}} : ({f64}) -> {row}
        %l_new = "tcgen05.frag_map"(%l_old, %alpha, %lj) ({{
        ^bb0(%l: f32, %a: f32, %b: f32, %row: index, %c: index):
          %rr = arith.mulf %l, %a : f32
          %y = arith.addf %rr, %b : f32
          gpu.yield %y : f32
        }}) : ({row}, {row}, {row}) -> {row}
        %pb = "tcgen05.frag_map"(%pf) ({{
        ^bb0(%x: f32, %row: index, %c: index):
          %y = arith.truncf %x : f32 to bf16
          gpu.yield %y : bf16
        }}) : ({f64}) -> !tcgen05.frag<[128, 64], bf16>
        // P V of the previous block has completed: P stage j % 2 is free again (its
        // last reader was P_{{j-2}} V_{{j-2}}) and O holds every earlier block.
        "tcgen05.mbarrier_wait"(%o_done, %o_parity) : ({bar}, i32) -> ()
        "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
        "tcgen05.st"(%pv, %c0, %pb) : ({p_t}, index, !tcgen05.frag<[128, 64], bf16>) -> ()
        // O = O alpha in tensor memory (block 0: O holds nothing yet, the first P V
        // overwrites it).
        scf.if %not_first {{
""")
    for h in range(halves):
        w(f"""          scf.for %col = %c0 to %c64 step %c32 {{
            %of = "tcgen05.ld"(%o{h}, %col) : ({o_t}, index) -> {f32c}
            "tcgen05.wait"() {{kind = "ld"}} : () -> ()
            %ab = "tcgen05.frag_broadcast"(%alpha, %of) : ({row}, {f32c}) -> {f32c}
            %scaled = "tcgen05.frag_map"(%of, %ab) ({{
            ^bb0(%x: f32, %a: f32, %row: index, %c: index):
              %y = arith.mulf %x, %a : f32
              gpu.yield %y : f32
            }}) : ({f32c}, {f32c}) -> {f32c}
            "tcgen05.st"(%o{h}, %col, %scaled) : ({o_t}, index, {f32c}) -> ()
          }}
""")
    w(f"""        }}
        "tcgen05.wait"() {{kind = "st"}} : () -> ()
        "tcgen05.fence"() {{kind = "before_thread_sync"}} : () -> ()
        "tcgen05.mbarrier_arrive"(%p_full) : ({bar}) -> ()
        scf.yield %m_new, %l_new : {row}, {row}
      }}
      // O / l once the last P V has completed (phase n - 1 of o_done).
      %nl = arith.subi %n, %c1 : index
      %fp = arith.andi %nl, %c1 : index
      %final_parity = arith.index_cast %fp : index to i32
      "tcgen05.mbarrier_wait"(%o_done, %final_parity) : ({bar}, i32) -> ()
      "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
""")
    for h in range(halves):
        w(f"""      scf.for %col = %c0 to %c64 step %c32 {{
        %of = "tcgen05.ld"(%o{h}, %col) : ({o_t}, index) -> {f32c}
        "tcgen05.wait"() {{kind = "ld"}} : () -> ()
        %lb = "tcgen05.frag_broadcast"(%stats#1, %of) : ({row}, {f32c}) -> {f32c}
        %res = "tcgen05.frag_map"(%of, %lb) ({{
        ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
          %y = arith.divf %x, %sum : f32
          gpu.yield %y : f32
        }}) : ({f32c}, {f32c}) -> {f32c}
        %dc{h} = arith.constant {64 * h} : index
        %dest = arith.addi %dc{h}, %col : index
        "tcgen05.store_fragment"(%res, %O, %dest) {{ld = {d} : i64}} : ({f32c}, !llvm.ptr<1>, index) -> ()
      }}
""")
    w("""      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "softmax", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
""")
    return "".join(out)


if __name__ == "__main__":
    import sys
    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 64))
