"""The text of examples/ws_attention_fwd_bf16.mlir and of its variants.

``generate(d, tiles, blocks)``: head dimension `d` (64 or 128: the number of 64-wide
halves Q, K, V and O are cut into, one TMA box and one 128-byte swizzle span each,
docs/tma.md), `tiles` query tiles of 128 rows per CTA (1: one softmax warpgroup, the MMA
computing the next block's scores while it works; 2: two softmax warpgroups in ping-pong),
and optionally a constant number of KV blocks; `planned_loads` leaves the TMA loads'
synchronization to tcgen05-insert-sync{strategy=loads}; `planned_handoffs` (two tiles,
with `planned_loads`) writes no synchronization at all, tcgen05-insert-sync
{strategy=handoffs} writing it (``without_handoffs``); `rescale` corrects O at every
block or, "conditional", only where a warp's maxima grew past `threshold`; `p_over_s`
writes P_t over S_t's own columns (FlashAttention-4; a TMEM alias, P_OVER_S_HEADER);
`correction` leaves the rescaling of O to a warpgroup of its own (CORRECTION_HEADER).
The example is ``generate(64, 2, planned_loads=True, rescale="conditional",
planned_handoffs=True, p_over_s=True)``;
tests/test_ws_attention.py checks that character for character and runs the others."""

from __future__ import annotations

import re

HEADER = """// Forward attention, warp-specialized, all synchronization written by hand:
//   O ({rows} x D, f32) = softmax(Q K^T / sqrt(D) + mask) V
// Q ({rows} x D), K and V (L x D) bf16 row-major, D = {d} (the head dimension), L keys
// given at run time; the mask hides keys >= L (the last KV block may be partial: TMA fills
// the rows past L with zeros and the softmax gives them -inf) and, when %causal != 0, keys
// after the query's row (query r sees keys 0 .. r: blocks past the last such key are
// skipped). One CTA of {threads} threads; the roles run at once (docs/partitions.md):
//   load      (warp 0):    Q once, then K_j and V_j of KV block j (64 keys) through a
//                          2-stage TMA ring;
//   mma       (warp 1):    per query tile t, S_t = Q_t K_j^T and O_t += P_t V_j with P_t
//                          from tensor memory (A operand);
//   softmax t (warps {softmax_warps}): per block, the online softmax of S_t (tcgen05.frag_reduce,
//                          frag_map, frag_broadcast), P_t = bf16(p) stored into tensor memory
//                          (tcgen05.st into an A operand), and the correction of O_t in
//                          tensor memory (O_t *= alpha, ld/st{rescale})
//                          once the previous P_t V has completed; after the last block
//                          O_t / l goes to global memory.
// {schedule}
// mbarriers (9.7.16.6.4 canonical patterns; parities from the loop counter j):
//   q_full       (count 1): expect_tx + the Q boxes; MMA waits phase 0.
//   kv_full[2]   (count 1): expect_tx + the K and V boxes of block j into stage j % 2; MMA
//                waits parity (j / 2) & 1.
//   kv_empty[2]  (count 1): MMA commits after the block's last P V; load waits parity
//                (j / 2 + 1) & 1 before refilling (a fresh mbarrier reports the phase
//                before the first complete), and after its loop for the last commit to
//                each stage.
//   s_full_t     (count 1): MMA commits after S_t; softmax t waits for it and fences
//                after_thread_sync before its tcgen05.ld.
//   p_full_t     (count 128): softmax t arrives after P_t and the correction of O_t,
//                behind tcgen05.wait::ld, wait::st and fence::before_thread_sync; MMA waits
//                parity j & 1 and fences after_thread_sync before P_t V_j and before S_t
//                is written again.
//   o_done_t     (count 1): MMA commits after P_t V_j; softmax t waits parity (j + 1) & 1
//                before writing P_t or touching O_t in block j (phase j - 1; block 0 waits
//                for the phase before the first), and phase n - 1 before its epilogue.
//                In the loop it fences after_thread_sync after that wait only when the
//                MMA commits S_t of block j before P_t V_(j-1) (one tile); in ping-pong
//                the commit of S_t comes after, tracks that product too (9.7.16.12.1),
//                and the fence after the wait on s_full_t orders it (9.7.16.6.3).
// Compile with tcgen05-insert-sync{{strategy=none}}: insert-sync does not plan this protocol
// (tcgen05.st in a role, several accumulators, loops of run-time trip counts,
// docs/partitions.md "Not planned yet"); tcgen05-verify-sync checks it, the run-time
// block count for every count up to the mbarriers' phase period
// (tcgen05_lower/sync_check/runtime_bounds.py). The reference is
// examples/ws_attention_fwd_bf16.check.py."""

#: The header's lines that the variant whose TMA loads insert-sync plans says otherwise.
PLANNED_HEADER = {
    "all synchronization written by hand:":
        "the TMA loads' synchronization\n// inserted by tcgen05-insert-sync{strategy=loads}, the rest written by hand:",
    """//   q_full       (count 1): expect_tx + the Q boxes; MMA waits phase 0.
//   kv_full[2]   (count 1): expect_tx + the K and V boxes of block j into stage j % 2; MMA
//                waits parity (j / 2) & 1.
//   kv_empty[2]  (count 1): MMA commits after the block's last P V; load waits parity
//                (j / 2 + 1) & 1 before refilling (a fresh mbarrier reports the phase
//                before the first complete), and after its loop for the last commit to
//                each stage.
""": """//   The TMA loads name no mbarrier: tcgen05-insert-sync{strategy=loads} writes their
//   protocol (tcgen05_lower/synchronization/pipelined_loads.py): once_full (expect_tx +
//   the Q boxes; MMA waits phase 0 before the first S), full[2] and empty[2] for the K/V
//   ring (expect_tx + the boxes of block j into stage j % 2; MMA waits before S of block
//   j, its first reader, and commits after the last P V of block j, its last; the load
//   role waits on empty before each refill and, after its loop, for the last commit to
//   each stage).
""",
    """// Compile with tcgen05-insert-sync{strategy=none}: insert-sync does not plan this protocol
// (tcgen05.st in a role, several accumulators, loops of run-time trip counts,
// docs/partitions.md "Not planned yet"); tcgen05-verify-sync checks it,""":
    """// Compile with tcgen05-insert-sync{strategy=loads}: insert-sync does not plan the rest
// (tcgen05.st in a role, several accumulators, docs/partitions.md "Not planned yet");
// tcgen05-verify-sync checks the whole protocol,""",
}

#: The header's lines that the variant writing P_t over S_t (option p_over_s) says otherwise.
P_OVER_S_HEADER = {
    """//                          frag_map, frag_broadcast), P_t = bf16(p) stored into tensor memory
//                          (tcgen05.st into an A operand), and the correction of O_t in""":
    """//                          frag_map, frag_broadcast), P_t = bf16(p) stored into tensor memory
//                          over S_t's first 32 columns once its load of S_t completed
//                          (tcgen05.st into an A operand that aliases S_t, alias = "S_t":
//                          tcgen05_lower/planning/aliases.py), and the correction of O_t in""",
    """//                the commit of S_t comes after, tracks that product too (9.7.16.12.1),
//                and the fence after the wait on s_full_t orders it (9.7.16.6.3).
""": """//                the commit of S_t comes after, tracks that product too (9.7.16.12.1),
//                and the fence after the wait on s_full_t orders it (9.7.16.6.3).
//                P_t lies on S_t's cells, so the MMA waits on o_done_t too (and fences
//                after_thread_sync) before it writes S_t over the P_t that P_t V read:
//                two MMAs of different accumulators are no pipelined pair (9.7.16.6.2,
//                "same N and accumulator and shape"). Ping-pong: phase j, committed just
//                before; one tile: phase j - 1 (S of block j + 1 goes to stage (j + 1) % 2).
//                In ping-pong softmax t then waits on o_done_t after its loop only: the
//                MMA saw phase j - 1 before it wrote S_t of block j, which softmax t
//                waits for on s_full_t and fences after (9.7.16.6.3), and phase n - 2 is
//                complete when it waits for phase n - 1 (no parity alias).
""",
}

#: The header's lines that the variant with a correction warpgroup (option correction,
#: FlashAttention-4's correction warpgroup) says otherwise.
CORRECTION_HEADER = {
    """//                          (tcgen05.st into an A operand that aliases S_t, alias = "S_t":
//                          tcgen05_lower/planning/aliases.py), and the correction of O_t in
//                          tensor memory (O_t *= alpha, ld/st...)
//                          once the previous P_t V has completed; after the last block
//                          O_t / l goes to global memory.""":
    """//                          (tcgen05.st into an A operand that aliases S_t, alias = "S_t":
//                          tcgen05_lower/planning/aliases.py), and alpha, the rescale
//                          factor of O_t's rows, into column 0 of C_t (a [128, 2] f32 alias
//                          on S_t's columns 32-33, read by the time S_t is written again);
//                          after the last block l into column 1;
//   correction (warps 12-15): per block and tile, once P_t and alpha are stored and the
//                          previous P_t V has completed, O_t *= alpha in tensor memory
//                          (ld/st; not in block 0; with conditional rescaling only in the
//                          warps with a row whose alpha != 1, a vote), then o_ready_t;
//                          after the last block O_t / l to global memory.""",
    """//   p_full_t     (count 128): softmax t arrives after P_t and the correction of O_t,
//                behind tcgen05.wait::ld, wait::st and fence::before_thread_sync; MMA waits
//                parity j & 1 and fences after_thread_sync before P_t V_j and before S_t
//                is written again.""":
    """//   p_full_t     (count 128): softmax t arrives after P_t and alpha, behind
//                tcgen05.wait::st and fence::before_thread_sync (its loads completed at
//                the wait::ld before the store of alpha); the correction waits parity
//                j & 1 and fences after_thread_sync before it loads alpha.""",
    """//                In ping-pong softmax t then waits on o_done_t after its loop only: the""":
    """//                With the correction warpgroup softmax t does not wait on o_done_t at
//                all; the correction waits for phase n - 1 before its epilogue, as the
//                softmax would after its loop in ping-pong without it: the""",
    """//   o_done_t     (count 1): MMA commits after P_t V_j;""":
    """//   o_ready_t    (count 128): correction arrives after rescaling O_t for block j,
//                behind wait::ld, wait::st and fence::before_thread_sync; MMA waits
//                parity j & 1 before P_t V_j, in place of p_full_t: the correction
//                waited for p_full_t's phase j (P_t and alpha stored) first, and loads
//                alpha and O_t after it (o_done_t's phase j - 1 is then complete: the
//                MMA waited for it before S_t of block j, 9.7.16.6.3).
//   l_full_t     (count 128): softmax t arrives after storing l (wait::st, fence); the
//                correction waits phase 0 before its epilogue, and phase n - 1 of
//                o_done_t (it alone).
//   o_done_t     (count 1): MMA commits after P_t V_j;""",
}

SCHEDULE = {
    1: ("One query tile: S and P have 2 stages, and the MMA issues S_{j+1} before it waits\n"
        "// for P_j, so the tensor pipe computes the next scores while the softmax works."),
    2: ("Two query tiles in ping-pong: per block the MMA runs P_0 V_j, S_0 of block j + 1,\n"
        "// then P_1 V_j, S_1 of block j + 1, so while one softmax warpgroup works on its\n"
        "// scores the tensor pipe serves the other. One stage of S and P per tile."),
}

BAR = "!tcgen05.mbarrier"
Q_T = '!tcgen05.smem<[128, 64], bf16, "K", "128B">'
KR_T = '!tcgen05.smem<[2, 64, 64], bf16, "K", "128B">'
K_T = '!tcgen05.smem<[64, 64], bf16, "K", "128B">'
VR_T = '!tcgen05.smem<[2, 64, 64], bf16, "MN", "128B">'
V_T = '!tcgen05.smem<[64, 64], bf16, "MN", "128B">'
S_T = "!tcgen05.tmem<[128, 64], f32>"
P_T = "!tcgen05.tmem<[128, 64], bf16>"
O_T = "!tcgen05.tmem<[128, 64], f32>"
F64 = "!tcgen05.frag<[128, 64], f32>"
C_T = "!tcgen05.tmem<[128, 2], f32>"
F32C = "!tcgen05.frag<[128, 32], f32>"
ROW = "!tcgen05.frag<[128, 1], f32>"


#: How O is corrected: at every block, or only where a warp's maxima grew past THRESHOLD
#: (FlashAttention-4's conditional rescaling).
RESCALE = ("always", "conditional")
#: What the header says of the correction.
RESCALE_TEXT = {False: "; at every block",
                True: ";\n//                          FlashAttention-4's conditional rescaling: "
                      "only in the warps\n//                          where a row's max grew "
                      "past a threshold, a warp\n//                          vote, "
                      "tcgen05.frag_vote"}
#: The growth of a row's scaled max (the exponent of its p) past which a warp rescales,
#: by default (FlashAttention-4 rescales past a factor of 256, 8 in log2; here the
#: exponent is natural, so p and l stay below e^8 times their values at the true max).
THRESHOLD = 8.0


def _ring(t: str, stages: int) -> str:
    return t.replace("[128", f"[{stages}, 128") if stages > 1 else t


class _Gen:
    def __init__(self, d: int, tiles: int, blocks: int | None, planned_loads: bool = False,
                 rescale: str = "always", threshold: float = 8.0, p_over_s: bool = False,
                 correction: bool = False):
        if d not in (64, 128) or tiles not in (1, 2):
            raise ValueError("head dimension 64 or 128, 1 or 2 query tiles")
        if correction and (tiles != 2 or not p_over_s):
            raise ValueError("a correction warpgroup: two query tiles, P over S "
                             "(CORRECTION_HEADER)")
        if rescale not in RESCALE:
            raise ValueError(f"rescale {rescale!r}: one of {RESCALE}")
        self.conditional = rescale == "conditional"
        self.threshold = threshold
        self.d, self.tiles, self.blocks = d, tiles, blocks
        self.planned = planned_loads   # the TMA loads' synchronization left to insert-sync
        self.p_over_s = p_over_s       # P_t written over S_t's columns (P_OVER_S below)
        self.correction = correction   # a correction warpgroup (CORRECTION below)
        self.halves = d // 64
        self.stages = 2 if tiles == 1 else 1   # of S and P per tile
        self.scale = 1.0 / d ** 0.5
        self.out: list[str] = []

    def w(self, text: str) -> None:
        self.out.append(text)

    # ------------------------------------------------------------------ pieces

    def mmas(self, d: str, a: str, b: str, types: str, first: str, ind: str) -> None:
        for i in range(4):
            flag = first if i == 0 else "%true"
            self.w(f'{ind}"tcgen05.mma"({d}, {a}, {b}, {flag}) {{kind = "f16", '
                   f'k_offset = {16 * i} : i64}}\n{ind}    : {types}\n')

    def s_buffer(self, t: int, stage: str, ind: str, tag: str) -> str:
        """The S buffer (or stage view) of tile t at `stage`."""
        if self.stages == 1:
            return f"%s{t}"
        self.w(f'{ind}%sd{tag} = "tcgen05.tmem_stage"(%s{t}, {stage}) : '
               f'({_ring(S_T, 2)}, index) -> {S_T}\n')
        return f"%sd{tag}"

    def p_buffer(self, t: int, stage: str, ind: str, tag: str) -> str:
        if self.stages == 1:
            return f"%pt{t}"
        self.w(f'{ind}%pa{tag} = "tcgen05.tmem_stage"(%pt{t}, {stage}) : '
               f'({_ring(P_T, 2)}, index) -> {P_T}\n')
        return f"%pa{tag}"

    def s_full(self, t: int, stage: str, ind: str, tag: str) -> str:
        if self.stages == 1:
            return f"%s_full{t}"
        self.w(f'{ind}%sf{tag} = "tcgen05.mbarrier_stage"(%s_full{t}, {stage}) : '
               f'({BAR}, index) -> {BAR}\n')
        return f"%sf{tag}"

    def wait_kv(self, j: str, ind: str, tag: str) -> str:
        """Waits for K_j, V_j; returns the ring stage value."""
        self.w(f"{ind}%ks{tag} = arith.remui {j}, %c2 : index\n")
        if self.planned:
            return f"%ks{tag}"
        self.w(f"""{ind}%kr{tag} = arith.divui {j}, %c2 : index
{ind}%kp{tag} = arith.andi %kr{tag}, %c1 : index
{ind}%kv_parity{tag} = arith.index_cast %kp{tag} : index to i32
{ind}%kvf{tag} = "tcgen05.mbarrier_stage"(%kv_full, %ks{tag}) : ({BAR}, index) -> {BAR}
{ind}"tcgen05.mbarrier_wait"(%kvf{tag}, %kv_parity{tag}) : ({BAR}, i32) -> ()
""")
        return f"%ks{tag}"

    def scores(self, t: int, j: str, kstage: str, ind: str, tag: str) -> None:
        """S_t = Q_t K_j^T (K_j in ring stage `kstage`), then commit s_full_t."""
        sstage = kstage if self.stages > 1 else "%c0"
        s = self.s_buffer(t, sstage, ind, tag)
        first = "%false"
        for h in range(self.halves):
            self.w(f'{ind}%kb{tag}_{h} = "tcgen05.smem_stage"(%k{h}, {kstage}) : '
                   f'({KR_T}, index) -> {K_T}\n')
            self.mmas(s, f"%q{t}_{h}", f"%kb{tag}_{h}", f"({S_T}, {Q_T}, {K_T}, i1) -> ()",
                      first, ind)
            first = "%true"
        full = self.s_full(t, sstage, ind, tag)
        self.w(f'{ind}"tcgen05.commit"({full}) : ({BAR}) -> ()\n')

    def pv(self, t: int, j: str, ind: str, tag: str) -> None:
        """Waits for P_t of block j, then O_t += P_t V_j and commits o_done_t."""
        self.w(f"""{ind}%vs{tag} = arith.remui {j}, %c2 : index
{ind}%pp{tag} = arith.andi {j}, %c1 : index
{ind}%p_parity{tag} = arith.index_cast %pp{tag} : index to i32
{ind}%acc{tag} = arith.cmpi ne, {j}, %c0 : index
{self.p_ready_wait(t, ind, tag)}{ind}"tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
""")
        p = self.p_buffer(t, f"%vs{tag}", ind, tag)
        for h in range(self.halves):
            self.w(f'{ind}%vb{tag}_{h} = "tcgen05.smem_stage"(%v{h}, %vs{tag}) : '
                   f'({VR_T}, index) -> {V_T}\n')
            self.mmas(f"%o{t}_{h}", p, f"%vb{tag}_{h}", f"({O_T}, {P_T}, {V_T}, i1) -> ()",
                      f"%acc{tag}", ind)
        self.w(f'{ind}"tcgen05.commit"(%o_done{t}) : ({BAR}) -> ()\n')

    def release_kv(self, j: str, ind: str, tag: str) -> None:
        if self.planned:
            return
        self.w(f"""{ind}%es{tag} = arith.remui {j}, %c2 : index
{ind}%kve{tag} = "tcgen05.mbarrier_stage"(%kv_empty, %es{tag}) : ({BAR}, index) -> {BAR}
{ind}"tcgen05.commit"(%kve{tag}) : ({BAR}) -> ()
""")

    # ------------------------------------------------------------------ roles

    def prologue(self) -> None:
        d, tiles = self.d, self.tiles
        rows = 128 * tiles
        threads = 128 + 128 * tiles + (128 if self.correction else 0)
        softmax_warps = "4-7" if tiles == 1 else "4-7 and 8-11"
        header = HEADER.format(rows=rows, d=d, threads=threads, softmax_warps=softmax_warps,
                               schedule=SCHEDULE[tiles],
                               rescale=RESCALE_TEXT[self.conditional])
        for old, new in PLANNED_HEADER.items() if self.planned else ():
            assert old in header, old
            header = header.replace(old, new)
        for old, new in P_OVER_S_HEADER.items() if self.p_over_s else ():
            assert old in header, old
            header = header.replace(old, new)
        for old, new in CORRECTION_HEADER.items() if self.correction else ():
            # "..." stands for the rescaling's own words (RESCALE_TEXT).
            pattern = re.escape(old).replace(re.escape("..."), ".*?")
            assert re.search(pattern, header, flags=re.S), old
            header = re.sub(pattern, lambda _: new, header, count=1, flags=re.S)
        self.w(header + "\n")
        self.w(f"""func.func @ws_attention_fwd_bf16(%Q: !llvm.ptr<1>, %K: !llvm.ptr<1>, %V: !llvm.ptr<1>,
    %O: !llvm.ptr<1>, %L: index, %causal: index,
    %tmQ: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}}}},
    %tmK: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}}}},
    %tmV: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "V", box = array<i64: 64, 64>,
                                              swizzle = "128B"}}}})
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = {threads} : i64, cta_group = 1 : i64}}}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %is_causal = arith.cmpi ne, %causal, %c0 : index
""")
        if self.blocks is None:
            self.w(f"""  // KV blocks: ceil(L / 64); causal: the {rows} query rows see keys 0-{rows - 1} at most,
  // {rows // 64} blocks.
  %l63 = arith.addi %L, %c63 : index
  %all = arith.divui %l63, %c64 : index
  %cb = arith.constant {rows // 64} : index
  %few = arith.minui %all, %cb : index
  %n = arith.select %is_causal, %few, %all : index
""")
        else:
            self.w(f"  // KV blocks: a constant here (L still masks).\n"
                   f"  %n = arith.constant {self.blocks} : index\n")
        for t in range(tiles):
            for h in range(self.halves):
                self.w(f'  %q{t}_{h} = "tcgen05.smem_buffer"() : () -> {Q_T}\n')
        for h in range(self.halves):
            self.w(f'  %k{h} = "tcgen05.smem_buffer"() : () -> {KR_T}\n'
                   f'  %v{h} = "tcgen05.smem_buffer"() : () -> {VR_T}\n')
        for t in range(tiles):
            self.w(f'  %s{t} = "tcgen05.tmem_buffer"() {{name = "S{t}"}} : () -> '
                   f'{_ring(S_T, self.stages)}\n'
                   f'  %pt{t} = "tcgen05.tmem_buffer"() {{name = "P{t}"{self.p_alias(t)}}} : () -> '
                   f'{_ring(P_T, self.stages)}\n')
            for h in range(self.halves):
                self.w(f'  %o{t}_{h} = "tcgen05.tmem_buffer"() {{name = "O{t}_{h}"}} : () -> '
                       f'{O_T}\n')
        stages = f", stages = {self.stages} : i64" if self.stages > 1 else ""
        if not self.planned:
            self.w(f'  %q_full = "tcgen05.alloc_mbarrier"() {{count = 1 : i64}} : () -> {BAR}\n'
               f'  %kv_full = "tcgen05.alloc_mbarrier"() {{count = 1 : i64, stages = 2 : i64}}'
               f' : () -> {BAR}\n'
               f'  %kv_empty = "tcgen05.alloc_mbarrier"() {{count = 1 : i64, stages = 2 : i64}}'
               f' : () -> {BAR}\n')
        for t in range(tiles):
            self.w(f'  %s_full{t} = "tcgen05.alloc_mbarrier"() {{count = 1 : i64{stages}}} : () -> {BAR}\n'
                   f'  %p_full{t} = "tcgen05.alloc_mbarrier"() {{count = 128 : i64}} : () -> {BAR}\n'
                   f'  %o_done{t} = "tcgen05.alloc_mbarrier"() {{count = 1 : i64}} : () -> {BAR}\n')
        self.correction_declarations()
        self.w('\n  "tcgen05.partitions"() ({\n')

    def load_role(self) -> None:
        if self.planned:
            self.planned_load_role()
            return
        self.w(f"""    // Load role: warp 0; one thread issues the expect_tx and the TMA loads.
    "tcgen05.role"() ({{
      "tcgen05.mbarrier_expect_tx"(%q_full) : ({BAR}) -> ()
""")
        for t in range(self.tiles):
            for h in range(self.halves):
                self.w(f'      %qc{t}_{h} = arith.constant {64 * h} : index\n'
                       f'      %qr{t}_{h} = arith.constant {128 * t} : index\n'
                       f'      "tcgen05.tma_load"(%tmQ, %q{t}_{h}, %q_full, %qc{t}_{h}, %qr{t}_{h})\n'
                       f'          : (!llvm.ptr<1>, {Q_T}, {BAR}, index, index) -> ()\n')
        self.w(f"""      scf.for %j = %c0 to %n step %c1 {{
        %st = arith.remui %j, %c2 : index
        %r = arith.divui %j, %c2 : index
        %r1 = arith.addi %r, %c1 : index
        %ep = arith.andi %r1, %c1 : index
        %empty_parity = arith.index_cast %ep : index to i32
        %key = arith.muli %j, %c64 : index
        %full_s = "tcgen05.mbarrier_stage"(%kv_full, %st) : ({BAR}, index) -> {BAR}
        %empty_s = "tcgen05.mbarrier_stage"(%kv_empty, %st) : ({BAR}, index) -> {BAR}
        "tcgen05.mbarrier_wait"(%empty_s, %empty_parity) : ({BAR}, i32) -> ()
        "tcgen05.mbarrier_expect_tx"(%full_s) : ({BAR}) -> ()
""")
        for h in range(self.halves):
            self.w(f"""        %hc{h} = arith.constant {64 * h} : index
        %ks{h} = "tcgen05.smem_stage"(%k{h}, %st) : ({KR_T}, index) -> {K_T}
        %vs{h} = "tcgen05.smem_stage"(%v{h}, %st) : ({VR_T}, index) -> {V_T}
        "tcgen05.tma_load"(%tmK, %ks{h}, %full_s, %hc{h}, %key)
            : (!llvm.ptr<1>, {K_T}, {BAR}, index, index) -> ()
        "tcgen05.tma_load"(%tmV, %vs{h}, %full_s, %hc{h}, %key)
            : (!llvm.ptr<1>, {V_T}, {BAR}, index, index) -> ()
""")
        self.w(f"""      }}
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
        %empty_s = "tcgen05.mbarrier_stage"(%kv_empty, %st) : ({BAR}, index) -> {BAR}
        "tcgen05.mbarrier_wait"(%empty_s, %tail_parity) : ({BAR}, i32) -> ()
      }}
      "gpu.yield"() : () -> ()
    }}) {{name = "load", first_warp = 0 : i64, warps = 1 : i64}} : () -> ()

""")

    def planned_load_role(self) -> None:
        """The load role whose TMA loads name no mbarrier: tcgen05-insert-sync
        {strategy=loads} writes their synchronization."""
        self.w("""    // Load role: warp 0; one thread issues the TMA loads (their mbarriers, expect_tx
    // and waits are tcgen05-insert-sync's).
    "tcgen05.role"() ({
""")
        for t in range(self.tiles):
            for h in range(self.halves):
                self.w(f'      %qc{t}_{h} = arith.constant {64 * h} : index\n'
                       f'      %qr{t}_{h} = arith.constant {128 * t} : index\n'
                       f'      "tcgen05.tma_load"(%tmQ, %q{t}_{h}, %qc{t}_{h}, %qr{t}_{h})\n'
                       f'          : (!llvm.ptr<1>, {Q_T}, index, index) -> ()\n')
        self.w("""      scf.for %j = %c0 to %n step %c1 {
        %st = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
""")
        for h in range(self.halves):
            self.w(f"""        %hc{h} = arith.constant {64 * h} : index
        %ks{h} = "tcgen05.smem_stage"(%k{h}, %st) : ({KR_T}, index) -> {K_T}
        %vs{h} = "tcgen05.smem_stage"(%v{h}, %st) : ({VR_T}, index) -> {V_T}
        "tcgen05.tma_load"(%tmK, %ks{h}, %hc{h}, %key)
            : (!llvm.ptr<1>, {K_T}, index, index) -> ()
        "tcgen05.tma_load"(%tmV, %vs{h}, %hc{h}, %key)
            : (!llvm.ptr<1>, {V_T}, index, index) -> ()
""")
        self.w("""      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()

""")

    def mma_role(self) -> None:
        self.w("""    // MMA role: warp 1 (one thread issues; the scores of block 0 first, then per block
    // j < n - 1 the products of block j and the scores of block j + 1, then the last
    // products).
    "tcgen05.role"() ({
""")
        if not self.planned:
            self.w(f'      "tcgen05.mbarrier_wait"(%q_full, %p0) : ({BAR}, i32) -> ()\n')
        ks = self.wait_kv("%c0", "      ", "0")
        for t in range(self.tiles):
            self.scores(t, "%c0", ks, "      ", f"0_{t}")
        self.w("      %last = arith.subi %n, %c1 : index\n"
               "      scf.for %j = %c0 to %last step %c1 {\n"
               "        %j1 = arith.addi %j, %c1 : index\n")
        ind = "        "
        if self.tiles == 1:
            ks = self.wait_kv("%j1", ind, "n")
            self.w(self.p_read_done(0, "%j", ind, "n_0"))
            self.scores(0, "%j1", ks, ind, "n_0")
            self.pv(0, "%j", ind, "l_0")
        else:
            ks = None
            for t in range(self.tiles):
                self.pv(t, "%j", ind, f"l_{t}")
                if ks is None:
                    ks = self.wait_kv("%j1", ind, "n")
                self.w(self.p_read_done(t, "%j", ind, f"n_{t}"))
                self.scores(t, "%j1", ks, ind, f"n_{t}")
        self.release_kv("%j", ind, "l")
        self.w("      }\n")
        for t in range(self.tiles):
            self.pv(t, "%last", "      ", f"e_{t}")
        self.release_kv("%last", "      ", "e")
        self.w("""      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()

""")

    def softmax_role(self, t: int) -> None:
        scale = self.scale
        first_warp = 4 + 4 * t
        self.w(f"""    // Softmax role {t}: warps {first_warp}-{first_warp + 3}, one warpgroup (warp w reads lanes
    // 32 (w % 4) ..), query rows {128 * t}-{128 * t + 127}; it also corrects O{t}. The running max m
    // and sum l are per-row values the loop carries.
    "tcgen05.role"() ({{
      %row0 = arith.constant {128 * t} : index
      %m_init = "tcgen05.frag_map"() ({{
      ^bb0(%row: index, %c: index):
        %ninf = arith.constant 0xFF800000 : f32
        gpu.yield %ninf : f32
      }}) : () -> {ROW}
      %l_init = "tcgen05.frag_map"() ({{
      ^bb0(%row: index, %c: index):
        %zero = arith.constant 0.0 : f32
        gpu.yield %zero : f32
      }}) : () -> {ROW}
      %stats:2 = scf.for %j = %c0 to %n step %c1
          iter_args(%m_old = %m_init, %l_old = %l_init) -> ({ROW}, {ROW}) {{
""")
        ind = "        "
        if self.stages > 1:
            self.w(f"""{ind}%st = arith.remui %j, %c2 : index
{ind}%r = arith.divui %j, %c2 : index
{ind}%sp = arith.andi %r, %c1 : index
""")
            sv = self.s_buffer(t, "%st", ind, "")
            pv = self.p_buffer(t, "%st", ind, "")
            sf = self.s_full(t, "%st", ind, "")
        else:
            self.w(f"{ind}%sp = arith.andi %j, %c1 : index\n")
            sv, pv, sf = f"%s{t}", f"%pt{t}", f"%s_full{t}"
        self.w(f"""{ind}%s_parity = arith.index_cast %sp : index to i32
{ind}%j1 = arith.addi %j, %c1 : index
{ind}%op = arith.andi %j1, %c1 : index
{ind}%o_parity = arith.index_cast %op : index to i32
{ind}%key = arith.muli %j, %c64 : index
{ind}%not_first = arith.cmpi ne, %j, %c0 : index
{ind}"tcgen05.mbarrier_wait"({sf}, %s_parity) : ({BAR}, i32) -> ()
{ind}"tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
{ind}%raw = "tcgen05.ld"({sv}, %c0) : ({S_T}, index) -> {F64}
{ind}// Masked keys (past L, or after the query's row when causal) get -inf.
{ind}%sc = "tcgen05.frag_map"(%raw) ({{
{ind}^bb0(%x: f32, %row: index, %c: index):
{ind}  %kk = arith.addi %key, %c : index
{ind}  %query = arith.addi %row0, %row : index
{ind}  %out = arith.cmpi uge, %kk, %L : index
{ind}  %later = arith.cmpi ugt, %kk, %query : index
{ind}  %hide = arith.andi %later, %is_causal : i1
{ind}  %dead = arith.ori %out, %hide : i1
{ind}  %ninf = arith.constant 0xFF800000 : f32
{ind}  %y = arith.select %dead, %ninf, %x : f32
{ind}  gpu.yield %y : f32
{ind}}}) : ({F64}) -> {F64}
{ind}%mj = "tcgen05.frag_reduce"(%sc) {{kind = "max"}} : ({F64}) -> {ROW}
{ind}%{self.max_name} = "tcgen05.frag_map"(%m_old, %mj) ({{
{ind}^bb0(%a: f32, %b: f32, %row: index, %c: index):
{ind}  %mx = arith.maxnumf %a, %b : f32
{ind}  gpu.yield %mx : f32
{ind}}}) : ({ROW}, {ROW}) -> {ROW}
{self.vote(ind)}{ind}%alpha = "tcgen05.frag_map"(%m_old, %m_new) ({{
{ind}^bb0(%a: f32, %b: f32, %row: index, %c: index):
{ind}  %dd = arith.subf %a, %b : f32
{ind}  %scale = arith.constant {scale!r} : f32
{ind}  %t = arith.mulf %dd, %scale : f32
{ind}  %e = math.exp %t : f32
{ind}  gpu.yield %e : f32
{ind}}}) : ({ROW}, {ROW}) -> {ROW}
{ind}%mb = "tcgen05.frag_broadcast"(%m_new, %sc) : ({ROW}, {F64}) -> {F64}
{ind}%pf = "tcgen05.frag_map"(%sc, %mb) ({{
{ind}^bb0(%x: f32, %mx: f32, %row: index, %c: index):
{ind}  %dd = arith.subf %x, %mx : f32
{ind}  %scale = arith.constant {scale!r} : f32
{ind}  %t = arith.mulf %dd, %scale : f32
{ind}  %e = math.exp %t : f32
{ind}  gpu.yield %e : f32
{ind}}}) : ({F64}, {F64}) -> {F64}
{ind}%lj = "tcgen05.frag_reduce"(%pf) {{kind = "sum"}} : ({F64}) -> {ROW}
{ind}%l_new = "tcgen05.frag_map"(%l_old, %alpha, %lj) ({{
{ind}^bb0(%l: f32, %a: f32, %b: f32, %row: index, %c: index):
{ind}  %rr = arith.mulf %l, %a : f32
{ind}  %y = arith.addf %rr, %b : f32
{ind}  gpu.yield %y : f32
{ind}}}) : ({ROW}, {ROW}, {ROW}) -> {ROW}
{ind}%pb = "tcgen05.frag_map"(%pf) ({{
{ind}^bb0(%x: f32, %row: index, %c: index):
{ind}  %y = arith.truncf %x : f32 to bf16
{ind}  gpu.yield %y : bf16
{ind}}}) : ({F64}) -> !tcgen05.frag<[128, 64], bf16>
{self.o_done_wait(t, ind)}{self.s_read_done(ind)}{ind}"tcgen05.st"({pv}, %c0, %pb) : ({P_T}, index, !tcgen05.frag<[128, 64], bf16>) -> ()
""")
        if self.correction:
            self.w(self.alpha_handoff(t, ind))
        else:
            self.w(f"""{ind}// O = O alpha in tensor memory (block 0: O holds nothing yet, the first P V
{ind}// overwrites it).
""")
            self.rescale_o(t, f"%{self.correct}", "%alpha")
        self.w(f"""{self.arrival_waits()}        "tcgen05.wait"() {{kind = "st"}} : () -> ()
        "tcgen05.fence"() {{kind = "before_thread_sync"}} : () -> ()
        "tcgen05.mbarrier_arrive"(%p_full{t}) : ({BAR}) -> ()
        scf.yield %m_new, %l_new : {ROW}, {ROW}
      }}
""")
        if self.correction:
            self.w(self.l_handoff(t))
        else:
            self.epilogue(t, "%stats#1")
        self.w(f"""      "gpu.yield"() : () -> ()
    }}) {{name = "softmax{t}", first_warp = {first_warp} : i64, warps = 4 : i64}} : () -> ()
""")

    def rescale_o(self, t: int, condition: str, alpha: str) -> None:
        """O_t = O_t alpha in tensor memory, where `condition` holds (ld, multiply, st)."""
        self.w(f"""        scf.if {condition} {{
""")
        for h in range(self.halves):
            self.w(f"""          scf.for %col = %c0 to %c64 step %c32 {{
            %of = "tcgen05.ld"(%o{t}_{h}, %col) : ({O_T}, index) -> {F32C}
            // The store below writes the cells this load reads (9.7.16.6.4.2).
            "tcgen05.wait"() {{kind = "ld"}} : () -> ()
            %ab = "tcgen05.frag_broadcast"({alpha}, %of) : ({ROW}, {F32C}) -> {F32C}
            %scaled = "tcgen05.frag_map"(%of, %ab) ({{
            ^bb0(%x: f32, %a: f32, %row: index, %c: index):
              %y = arith.mulf %x, %a : f32
              gpu.yield %y : f32
            }}) : ({F32C}, {F32C}) -> {F32C}
            "tcgen05.st"(%o{t}_{h}, %col, %scaled) : ({O_T}, index, {F32C}) -> ()
          }}
""")
        self.w("        }\n")

    def epilogue(self, t: int, total: str, tag: str = "", finish: bool = True) -> None:
        """O_t / l (`total`) to global memory once the last P_t V has completed, then
        (`finish`: the role's last epilogue) the loads complete before the role's end
        (`tag` suffixes the role-level names)."""
        d = self.d
        self.w(f"""      // O / l once the last P V has completed (phase n - 1 of o_done{t}).
      %nl{tag} = arith.subi %n, %c1 : index
      %fp{tag} = arith.andi %nl{tag}, %c1 : index
      %final_parity{tag} = arith.index_cast %fp{tag} : index to i32
      "tcgen05.mbarrier_wait"(%o_done{t}, %final_parity{tag}) : ({BAR}, i32) -> ()
      "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
""")
        for h in range(self.halves):
            # Row 128 t + r, column 64 h + col of O (ld = D): the tile's rows are
            # 128 t D elements on.
            self.w(f"""      scf.for %col = %c0 to %c64 step %c32 {{
        %of = "tcgen05.ld"(%o{t}_{h}, %col) : ({O_T}, index) -> {F32C}
        %lb = "tcgen05.frag_broadcast"({total}, %of) : ({ROW}, {F32C}) -> {F32C}
        %res = "tcgen05.frag_map"(%of, %lb) ({{
        ^bb0(%x: f32, %sum: f32, %row: index, %c: index):
          %y = arith.divf %x, %sum : f32
          gpu.yield %y : f32
        }}) : ({F32C}, {F32C}) -> {F32C}
        %dc{h} = arith.constant {128 * t * d + 64 * h} : index
        %dest = arith.addi %dc{h}, %col : index
        "tcgen05.store_fragment"(%res, %O, %dest) {{ld = {d} : i64}} : ({F32C}, !llvm.ptr<1>, index) -> ()
      }}
""")
        if finish:
            self.w("""      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
""")

    @property
    def max_name(self) -> str:
        """The running max of the block: m_new, or with conditional rescaling the
        candidate m_max that the warp's vote may leave unused."""
        return "m_max" if self.conditional else "m_new"

    @property
    def correct(self) -> str:
        return "rescale" if self.conditional else "not_first"

    def vote(self, ind: str) -> str:
        """Conditional rescaling (FlashAttention-4): a row needs its max updated when it
        grew by more than THRESHOLD / scale (exp(THRESHOLD) in p); each warp votes on
        its 32 rows (tcgen05.frag_vote any) and keeps its stale maxima when no row
        needs it, so alpha = 1 and O is not corrected (p stays below exp(THRESHOLD)
        relative to the stale max: O and l grow by at most that factor per row; O / l
        is the same). Block 0 always votes for (m_old = -inf)."""
        if not self.conditional:
            return ""
        return f"""{ind}// Conditional rescaling: the warp keeps its maxima unless one of its rows
{ind}// grew by more than {self.threshold} / scale (p then stays below e^{self.threshold}).
{ind}%need = "tcgen05.frag_map"(%m_old, %m_max) ({{
{ind}^bb0(%a: f32, %b: f32, %row: index, %c: index):
{ind}  %dd = arith.subf %b, %a : f32
{ind}  %scale = arith.constant {self.scale!r} : f32
{ind}  %t = arith.mulf %dd, %scale : f32
{ind}  %limit = arith.constant {self.threshold} : f32
{ind}  %over = arith.cmpf ogt, %t, %limit : f32
{ind}  %one = arith.constant 1.0 : f32
{ind}  %zero = arith.constant 0.0 : f32
{ind}  %y = arith.select %over, %one, %zero : f32
{ind}  gpu.yield %y : f32
{ind}}}) : ({ROW}, {ROW}) -> {ROW}
{ind}%update = "tcgen05.frag_vote"(%need) {{kind = "any"}} : ({ROW}) -> i1
{ind}%m_new = "tcgen05.frag_map"(%m_old, %m_max) ({{
{ind}^bb0(%a: f32, %b: f32, %row: index, %c: index):
{ind}  %y = arith.select %update, %b, %a : f32
{ind}  gpu.yield %y : f32
{ind}}}) : ({ROW}, {ROW}) -> {ROW}
{ind}%rescale = arith.andi %not_first, %update : i1
"""

    def o_done_wait(self, t: int, ind: str) -> str:
        """Softmax t's wait in its loop for the previous P_t V (and the fence after it,
        o_done_fence); none in ping-pong with P over S (p_over_s_skips_o_done_wait)."""
        if self.p_over_s_skips_o_done_wait:
            return (f"{ind}// No wait on o_done{t}: the MMA saw the previous P{t} V complete before\n"
                    f"{ind}// it wrote S{t} of this block over P{t} (o_done_t at the top).\n")
        return (f"{ind}// The previous P V has completed: the P it read is free again and O{t} holds every\n"
                f"{ind}// earlier block.\n"
                f'{ind}"tcgen05.mbarrier_wait"(%o_done{t}, %o_parity) : ({BAR}, i32) -> ()\n'
                + self.o_done_fence(t, ind))

    def o_done_fence(self, t: int, ind: str) -> str:
        """What follows the wait on o_done_t in the loop. One tile: the fence that orders
        the stores of P_t and the correction of O_t after P_t V_(j-1) (the MMA issued
        S_t of block j before that product, 9.7.16.6.4.4). Two tiles in ping-pong: no
        fence, the one after the wait on s_full_t already orders them (the MMA commits
        S_t of block j after P_t V_(j-1), and a commit tracks all the prior tcgen05 ops of
        its thread, 9.7.16.12.1; an asynchronous tcgen05 op after after_thread_sync is
        ordered after all the prior execution ordering operations, 9.7.16.6.3). The wait
        itself stays for the parity wait after the loop: the ISA orders the arrivals of
        two commits in no way (9.7.16.12.1), so o_done_t's phase j - 1 may still be
        pending when s_full_t's phase j completes, and a parity wait skipping it could
        take phase n - 3 for phase n - 1."""
        if self.tiles == 1:
            return f'{ind}"tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()\n'
        return (f"{ind}// No fence: the one after the wait on s_full{t} orders what follows\n"
                f"{ind}// (S{t} of this block was committed after the previous P{t} V).\n")

    # ------------------------------------------------------------------ P over S
    # (the p_over_s option: P_OVER_S_HEADER says why each piece is there)

    def p_alias(self, t: int) -> str:
        """The attributes that put P_t on S_t's cells (tcgen05_lower/planning/aliases.py):
        a [128, 64] bf16 A operand packs two elements per 32-bit column, 32 columns of
        S_t's 64 per stage, the first ones."""
        return f', alias = "S{t}"' if self.p_over_s else ""

    def p_read_done(self, t: int, j: str, ind: str, tag: str) -> str:
        """Before the MMA writes S_t of block j + 1 over P_t: the last P_t V that read
        those cells has completed. Two tcgen05.mma of different accumulators (O_t, S_t)
        are not a pipelined pair (9.7.16.6.2: "same N and accumulator and shape"), so
        the second's write is not ordered after the first's read of A without a wait:
        the MMA thread waits on o_done_t for that product's commit (9.7.16.6.4.2,
        example 2) and fences after_thread_sync. Two tiles: P_t V_j, committed just
        before (phase j, parity j & 1). One tile, 2 stages: S of block j + 1 goes to
        stage (j + 1) % 2, read last by P V_(j-1) (phase j - 1, parity (j + 1) & 1; a
        fresh mbarrier reports the phase before the first complete, block 0)."""
        if not self.p_over_s:
            return ""
        parity = f"%pr{tag}"
        if self.tiles == 1:
            phase = f"{ind}%ph{tag} = arith.addi {j}, %c1 : index\n" \
                    f"{ind}%pq{tag} = arith.andi %ph{tag}, %c1 : index\n"
        else:
            phase = f"{ind}%pq{tag} = arith.andi {j}, %c1 : index\n"
        return (f"{ind}// S{t} is written over P{t}: the P{t} V that read it has completed.\n"
                f"{phase}{ind}{parity} = arith.index_cast %pq{tag} : index to i32\n"
                f'{ind}"tcgen05.mbarrier_wait"(%o_done{t}, {parity}) : ({BAR}, i32) -> ()\n'
                f'{ind}"tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()\n')

    @property
    def p_over_s_skips_o_done_wait(self) -> bool:
        """Ping-pong with P over S: the MMA waits for phase j - 1 of o_done_t (P_t V of
        block j - 1) and fences before it writes S_t of block j (p_read_done), and commits
        s_full_t after; softmax t's wait on s_full_t and its fence then order its store
        of P_t and its correction of O_t after that product (9.7.16.6.3), and phase n - 2
        of o_done_t is complete when the wait after the loop looks for phase n - 1, so
        that parity wait cannot take phase n - 3 for it: the wait in the loop orders
        nothing more. One tile: the MMA writes S of block j before P V of block j - 1,
        and the wait stays."""
        return self.p_over_s and self.tiles == 2

    def s_read_done(self, ind: str) -> str:
        """Before softmax t stores P_t over S_t: its load of S_t has completed. The
        registers' use does not order the load's reads before the store's writes
        (9.7.16.6.4.5: "tcgen05.wait::ld must be used"; 9.7.16.6.4.2)."""
        if not self.p_over_s:
            return ""
        return (f"{ind}// P is stored over the S just loaded: that load completes first.\n"
                f'{ind}"tcgen05.wait"() {{kind = "ld"}} : () -> ()\n')

    # ------------------------------------------------------------------ correction
    # (the correction option: CORRECTION_HEADER says what each piece is for)

    def correction_declarations(self) -> None:
        """Per tile: C_t, the [128, 2] f32 hand-off of alpha (column 0) and l (column 1)
        on columns 32-33 of S_t (an alias: free once softmax t has loaded S_t, written
        again only by the next S_t, after the correction read alpha); o_ready_t and
        l_full_t (count 128 each)."""
        if not self.correction:
            return
        for t in range(self.tiles):
            self.w(f'  %cs{t} = "tcgen05.tmem_buffer"() {{name = "C{t}", alias = "S{t}", '
                   f'alias_column = 32 : i64}} : () -> {C_T}\n'
                   f'  %o_ready{t} = "tcgen05.alloc_mbarrier"() {{count = 128 : i64}} : () -> {BAR}\n'
                   f'  %l_full{t} = "tcgen05.alloc_mbarrier"() {{count = 128 : i64}} : () -> {BAR}\n')

    def p_ready_wait(self, t: int, ind: str, tag: str) -> str:
        """Before P_t V_j: P_t is stored (phase j of p_full_t); with a correction
        warpgroup, O_t is rescaled for block j (phase j of o_ready_t) instead, which
        also orders P_t: the correction arrives on o_ready_t after its own wait on
        p_full_t's phase j (9.7.16.6.3). The fence follows."""
        barrier = "o_ready" if self.correction else "p_full"
        return (f'{ind}"tcgen05.mbarrier_wait"(%{barrier}{t}, %p_parity{tag}) : '
                f'({BAR}, i32) -> ()\n')

    def arrival_waits(self) -> str:
        """Before softmax t's arrival on p_full_t: its loads complete (with the
        correction warpgroup, the wait::ld before the store of alpha completed every
        one), then its stores (the line after)."""
        if self.correction:
            return ("        // The stores of P and alpha complete before the arrival (9.7.16.6.4.4;\n"
                    "        // every load completed at the wait::ld before the store of alpha).\n")
        return """        // The loads of S and O and the stores of P and O complete before the arrival
        // (9.7.16.6.4.4; the registers themselves need no wait, 9.7.16.6.4.5).
        "tcgen05.wait"() {kind = "ld"} : () -> ()
"""

    def alpha_handoff(self, t: int, ind: str) -> str:
        """Softmax t hands alpha of block j to the correction warpgroup: stored into
        column 0 of C_t, over S_t's column 32, which its load of S_t has read (the
        wait::ld before the store of P completed it); p_full_t's arrival publishes it."""
        return (f"{ind}// alpha to the correction warpgroup (C{t}, column 0; p_full{t} publishes it).\n"
                + self.row_store(t, "%c0", "%alpha", "a", ind))

    @staticmethod
    def row_store(t: int, column: str, value: str, tag: str, ind: str) -> str:
        """Stores the per-row value `value` into `column` of C_t. tcgen05.st takes a
        fragment of a load (or a frag_map of one first): the column is loaded (cells the
        MMA wrote, S_t's), the load completes before the store over it (9.7.16.6.4.2),
        and a frag_map replaces its values."""
        return (f'{ind}%{tag}_old{t} = "tcgen05.ld"(%cs{t}, {column}) : ({C_T}, index) -> {ROW}\n'
                f'{ind}"tcgen05.wait"() {{kind = "ld"}} : () -> ()\n'
                f'{ind}%{tag}_new{t} = "tcgen05.frag_map"(%{tag}_old{t}, {value}) ({{\n'
                f'{ind}^bb0(%x: f32, %v: f32, %row: index, %c: index):\n'
                f'{ind}  gpu.yield %v : f32\n'
                f'{ind}}}) : ({ROW}, {ROW}) -> {ROW}\n'
                f'{ind}"tcgen05.st"(%cs{t}, {column}, %{tag}_new{t}) : ({C_T}, index, {ROW}) -> ()\n')

    def l_handoff(self, t: int) -> str:
        """After its loop softmax t hands l to the correction warpgroup (C_t, column 1)
        and arrives on l_full_t behind wait::st and fence::before_thread_sync."""
        return f"""      // l to the correction warpgroup (C{t}, column 1), which writes O / l.
{self.row_store(t, "%c1", "%stats#1", "l", "      ")}      "tcgen05.wait"() {{kind = "st"}} : () -> ()
      "tcgen05.fence"() {{kind = "before_thread_sync"}} : () -> ()
      "tcgen05.mbarrier_arrive"(%l_full{t}) : ({BAR}) -> ()
"""

    def correction_role(self) -> None:
        """Warps 4 + 4 tiles on, one warpgroup (its warp w reads lanes 32 (w % 4) ..,
        the rows softmax warp w holds): per block j and tile t, once p_full_t's phase j
        (P_t and alpha stored) and o_done_t's phase j - 1 (the previous P_t V) are
        complete, O_t *= alpha where needed, then o_ready_t; after the loop O_t / l."""
        first_warp = 4 + 4 * self.tiles
        self.w(f"""    // Correction role: warps {first_warp}-{first_warp + 3}, one warpgroup; per block and tile it rescales
    // O_t by the alpha softmax t stored (where a row's alpha is not 1: the softmax's
    // vote kept the others at 1; never in block 0), then O_t / l after the last block.
    "tcgen05.role"() ({{
      scf.for %j = %c0 to %n step %c1 {{
        %pp = arith.andi %j, %c1 : index
        %p_parity = arith.index_cast %pp : index to i32
        %not_first = arith.cmpi ne, %j, %c0 : index
""")
        ind = "        "
        for t in range(self.tiles):
            self.w(f"""{ind}// Tile {t}: alpha is stored (p_full{t}, phase j). The previous P{t} V has completed
{ind}// too: the MMA waited for it before it wrote S{t} of block j, which softmax {t} waited
{ind}// for before its arrival (9.7.16.6.3).
{ind}"tcgen05.mbarrier_wait"(%p_full{t}, %p_parity) : ({BAR}, i32) -> ()
{ind}"tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
{ind}%alpha_ld{t} = "tcgen05.ld"(%cs{t}, %c0) : ({C_T}, index) -> {ROW}
{ind}// One column: the reduction is the identity, giving a per-row value (one register
{ind}// per row in the thread of the row) that frag_vote and frag_broadcast take.
{ind}%alpha{t} = "tcgen05.frag_reduce"(%alpha_ld{t}) {{kind = "max"}} : ({ROW}) -> {ROW}
{self.correction_condition(t, ind)}""")
            self.rescale_o(t, f"%fix{t}", f"%alpha{t}")
            self.w(f"""{ind}"tcgen05.wait"() {{kind = "ld"}} : () -> ()
{ind}"tcgen05.wait"() {{kind = "st"}} : () -> ()
{ind}"tcgen05.fence"() {{kind = "before_thread_sync"}} : () -> ()
{ind}"tcgen05.mbarrier_arrive"(%o_ready{t}) : ({BAR}) -> ()
""")
        self.w("      }\n")
        for t in range(self.tiles):
            self.w(f"""      // Tile {t}: l is stored (l_full{t}).
      "tcgen05.mbarrier_wait"(%l_full{t}, %p0) : ({BAR}, i32) -> ()
      "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
      %l_ld{t} = "tcgen05.ld"(%cs{t}, %c1) : ({C_T}, index) -> {ROW}
      %l{t} = "tcgen05.frag_reduce"(%l_ld{t}) {{kind = "max"}} : ({ROW}) -> {ROW}
""")
            self.epilogue(t, f"%l{t}", f"_{t}", finish=t == self.tiles - 1)
        self.w(f"""      "gpu.yield"() : () -> ()
    }}) {{name = "correction", first_warp = {first_warp} : i64, warps = 4 : i64}} : () -> ()
""")

    def correction_condition(self, t: int, ind: str) -> str:
        """%fix{t}: whether the warp rescales O_t in this block: not in block 0 (O holds
        nothing yet) and, with conditional rescaling, where one of the warp's rows has
        alpha != 1 (a warp that voted against updating its maxima has alpha = 1 in every
        row, exp(0); one that voted for it has a row past the threshold, alpha < 1)."""
        if not self.conditional:
            return f"{ind}%fix{t} = arith.andi %not_first, %true : i1\n"
        return f"""{ind}%moved{t} = "tcgen05.frag_map"(%alpha{t}) ({{
{ind}^bb0(%a: f32, %row: index, %c: index):
{ind}  %one = arith.constant 1.0 : f32
{ind}  %ne = arith.cmpf une, %a, %one : f32
{ind}  %yes = arith.constant 1.0 : f32
{ind}  %no = arith.constant 0.0 : f32
{ind}  %y = arith.select %ne, %yes, %no : f32
{ind}  gpu.yield %y : f32
{ind}}}) : ({ROW}) -> {ROW}
{ind}%any{t} = "tcgen05.frag_vote"(%moved{t}) {{kind = "any"}} : ({ROW}) -> i1
{ind}%fix{t} = arith.andi %not_first, %any{t} : i1
"""

    def text(self) -> str:
        self.prologue()
        self.load_role()
        self.mma_role()
        for t in range(self.tiles):
            self.softmax_role(t)
        if self.correction:
            self.correction_role()
        self.w("""    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
""")
        return "".join(self.out)


def generate(d: int = 64, tiles: int = 2, blocks: int | None = None,
             planned_loads: bool = False, rescale: str = "always",
             threshold: float = THRESHOLD, planned_handoffs: bool = False,
             p_over_s: bool = False, correction: bool = False) -> str:
    """The kernel for head dimension `d`, `tiles` query tiles and (optionally) a constant
    number of KV blocks (module docstring); with `planned_loads` its TMA loads name no
    mbarrier and tcgen05-insert-sync{strategy=loads} writes their synchronization;
    `rescale` "conditional" corrects O only where a warp votes for it (RESCALE), past
    `threshold`; `p_over_s` puts P_t on S_t's cells (P_OVER_S_HEADER); `correction`
    leaves the rescaling of O and the epilogue to a warpgroup of their own
    (CORRECTION_HEADER; two tiles, P over S); with `planned_handoffs` (and
    `planned_loads`, two tiles) it writes no synchronization at all and
    tcgen05-insert-sync{strategy=handoffs} writes it (without_handoffs; with the correction
    warpgroup, rings of three roles, synchronization/role_rings.py)."""
    text = _Gen(d, tiles, blocks, planned_loads, rescale, threshold, p_over_s,
                correction).text()
    return without_handoffs(text, tiles, planned_loads, p_over_s, correction) \
        if planned_handoffs else text


# -- the form whose handoffs insert-sync plans (strategy=handoffs) --------------------------

#: The header of that form from its "// mbarriers" line on (the lines before it are the
#: hand-written form's, the first one replaced).
HANDOFFS_HEADER = """// Synchronization: none written here; tcgen05-insert-sync{strategy=handoffs} writes it
// all (tcgen05_lower/synchronization/role_handoffs.py, docs/partitions.md):
//   the TMA loads' (pipelined_loads.py): once_full for Q (expect_tx; the MMA waits phase
//   0), full[2] and empty[2] for the K/V ring (expect_tx on full_s before the boxes of
//   block j; the MMA waits on it before S of block j and commits empty_s after the last
//   P V of block j; the load role waits on empty_s before each refill and, after its
//   loop, for the last commit to each stage);
//   per query tile t, the handoffs of S_t, P_t and O_t between the MMA warp and softmax
//   t, whose turns alternate (MMA: S of block 0; per block j < n - 1, P V_j and S of
//   block j + 1; P V_(n-1). Softmax: block j; the epilogue): a forward mbarrier (count 1:
//   a commit after each MMA turn; softmax t waits parity j & 1 before block j, n & 1
//   before its epilogue, and fences after_thread_sync) and a backward one (count 128:
//   softmax t runs wait::ld, wait::st and fence::before_thread_sync and arrives after
//   block j; the MMA waits parity j & 1, then (n - 1) & 1, and fences after_thread_sync
//   before its turn); wait::ld between a thread's load of O and its store of the same
//   columns; the join's wait::ld and fences.
// tcgen05-verify-sync checks the protocol, the run-time block count for every count up
// to the mbarriers' phase period (tcgen05_lower/sync_check/runtime_bounds.py). The
// reference is examples/ws_attention_fwd_bf16.check.py.
"""

#: What HANDOFFS_HEADER says more with P_t over S_t (p_over_s): the handoffs see the
#: alias's cells as S_t's; the MMA's own order of S_t after P_t V (mma_hazards.py).
P_OVER_S_HANDOFFS = ("""//   before its turn); wait::ld between a thread's load of O and its store of the same
//   columns; the join's wait::ld and fences.
""", """//   before its turn); wait::ld between a thread's load of O and its store of the same
//   columns, and between softmax t's load of S_t and its store of P_t over it (P_t an
//   alias of S_t: the handoffs count its cells as S_t's); the join's wait::ld and fences;
//   per tile, the MMA's own order of S_t of block j + 1 after P_t V_j, which reads P_t
//   as A (two MMAs of different accumulators are no pipelined pair, 9.7.16.6.2): a
//   commit to an mbarrier of its own (count 1) after P_t V_j, a wait (parity j & 1) and
//   fence::after_thread_sync before S_t (mma_hazards.py).
""")

#: Lines of the hand-written form that only its synchronization needs: the ops, the
#: mbarriers, the parities' arithmetic and the comments on them.
_HANDOFF_LINE = (
    r'"tcgen05\.(fence|wait|mbarrier_wait|mbarrier_arrive|commit)"',
    r"^\s*%(s_full|p_full|o_done)\d+ = ",
    r"^\s*%(sp|s_parity|op|o_parity|nl|fp|final_parity|pp\w*|p_parity\w*) = ",
    r"^\s*// (The previous P V has completed|earlier block\.$|No fence: |\(S\d of this "
    r"block|The store below writes|The loads of S and O|\(9\.7\.16\.6\.4\.4; the "
    r"registers)",
    # p_over_s's: the MMA's wait for P V before S over P, the softmax's wait::ld.
    r"^\s*%(pqn|prn)_\d+ = ",
    r"^\s*// (S\d is written over P\d: |No wait on o_done\d: |it wrote S\d of this block "
    r"over P\d|P is stored over the S just loaded)")


#: What HANDOFFS_HEADER says instead with the correction warpgroup (correction): a ring
#: of three roles per tile (synchronization/role_rings.py).
CORRECTION_HANDOFFS = ("""//   per query tile t, the handoffs of S_t, P_t and O_t between the MMA warp and softmax
//   t, whose turns alternate (MMA: S of block 0; per block j < n - 1, P V_j and S of
//   block j + 1; P V_(n-1). Softmax: block j; the epilogue): a forward mbarrier (count 1:
//   a commit after each MMA turn; softmax t waits parity j & 1 before block j, n & 1
//   before its epilogue, and fences after_thread_sync) and a backward one (count 128:
//   softmax t runs wait::ld, wait::st and fence::before_thread_sync and arrives after
//   block j; the MMA waits parity j & 1, then (n - 1) & 1, and fences after_thread_sync
""", """//   per query tile t, a ring of handoffs of S_t (P_t and C_t on its cells) and O_t
//   among the MMA warp, softmax t and the correction warpgroup, whose turns follow each
//   other in that order round after round (MMA: S of block 0; per block j < n - 1, P V_j
//   and S of block j + 1; P V_(n-1). Softmax: block j; l. Correction: block j; O / l):
//   one mbarrier per role to the next one (MMA -> softmax t, count 1: a commit after
//   each MMA turn; softmax t -> correction and correction -> MMA, count 128: wait::ld /
//   wait::st, fence::before_thread_sync and an arrival after each turn;
//   synchronization/role_rings.py: each turn waits for the previous role's and fences
//   after_thread_sync
""")


#: The correction warpgroup's synchronization lines (with _HANDOFF_LINE's): its
#: mbarriers, the final parity's arithmetic, the comments on them.
_CORRECTION_LINE = (
    r"^\s*%(o_ready|l_full)\d+ = ",
    r"^\s*%(nl|fp|final_parity)_\d+ = ",
    r"^\s*// (Tile \d: alpha is stored|Tile \d: l is stored|too: the MMA waited for it|"
    r"for before its arrival \(9\.7\.16\.6\.3\)|The stores of P and alpha complete|"
    r"every load completed at the wait::ld)",
    r"^\s*// alpha to the correction warpgroup")


def without_handoffs(text: str, tiles: int, planned_loads: bool,
                     p_over_s: bool = False, correction: bool = False) -> str:
    """The hand-written form `text` with none of its synchronization (its TMA loads'
    already left to insert-sync): tcgen05-insert-sync{strategy=handoffs} writes it all.
    Two query tiles only (one tile's S and P are 2-stage TMEM rings, which the planner
    does not take)."""
    import re

    if tiles != 2 or not planned_loads:
        raise ValueError("planned_handoffs: two query tiles, with planned_loads")
    head, body = text.split("// mbarriers (", 1)
    head = head.replace("the TMA loads' synchronization\n// inserted by tcgen05-insert-sync"
                        "{strategy=loads}, the rest written by hand:",
                        "its synchronization written\n// by "
                        "tcgen05-insert-sync{strategy=handoffs}:")
    body = body[body.index("func.func"):]
    lines = body.splitlines(keepends=True)
    kept = []
    patterns = _HANDOFF_LINE + (_CORRECTION_LINE if correction else ())
    for k, line in enumerate(lines):
        if any(re.search(pattern, line) for pattern in patterns):
            continue
        # The softmax's j + 1 served o_done's parity only (the MMA's serves the next
        # block's scores).
        if re.match(r"^\s*%j1 = ", line) and k + 1 < len(lines) and \
                re.match(r"^\s*%op = ", lines[k + 1]):
            continue
        kept.append(re.sub(r"// O / l once the last P V has completed \(phase n - 1 of "
                           r"o_done\d\)\.", "// O / l after the last block.", line))
    header = HANDOFFS_HEADER.replace(*CORRECTION_HANDOFFS) if correction \
        else HANDOFFS_HEADER
    header = header.replace(*P_OVER_S_HANDOFFS) if p_over_s else header
    return head + header + "".join(kept)


if __name__ == "__main__":
    import sys
    args = [int(a) for a in sys.argv[1:]]
    sys.stdout.write(generate(*args))
