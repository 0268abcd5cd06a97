"""Twin of examples/ws_attention_fwd_bf16.mlir: warp-specialized forward attention (TMA
ring for K and V, an MMA warp, softmax warpgroups that also correct O in tensor memory)
that writes no synchronization: tcgen05-insert-sync{strategy=handoffs} writes it all
(the example's comment says what). Parameters as tests/kernels/ws_attention_gen.py: the
head dimension `d` (64 or 128), the query tiles (1, or 2 in ping-pong) and whether P_t
is written over S_t's columns (`p_over_s`, a TMEM alias); the defaults give the example. One query tile keeps S and P in 2-stage TMEM rings, which
strategy=handoffs does not take: that form writes the handoffs between the roles out
(compile it with strategy=loads, which writes the TMA loads' only)."""

from tcgen05_lower.builder import KernelBuilder, tensor_map

BLOCK = 64  # keys per KV block


def build(name: str = "ws_attention_fwd_bf16", *, d: int = 64, tiles: int = 2,
          rescale: str = "conditional", threshold: float = 8.0,
          p_over_s: bool = True) -> KernelBuilder:
    """`rescale` "conditional": a warp corrects O only when one of its rows' scaled max
    grew by more than `threshold` (FlashAttention-4), "always": at every block.
    `p_over_s`: P_t lies on the first 32 columns of S_t (alias = "S_t"): the MMA waits
    for the P_t V that read them before writing S_t again (two MMAs of different
    accumulators are no pipelined pair, 9.7.16.6.2), and the softmax waits for its load
    of S_t before storing P_t over it (9.7.16.6.4.2): written here with one tile,
    insert-sync's with two."""
    if d not in (64, 128) or tiles not in (1, 2):
        raise ValueError("head dimension 64 or 128, 1 or 2 query tiles")
    if rescale not in ("always", "conditional"):
        raise ValueError("rescale: always or conditional")
    halves, stages = d // 64, (2 if tiles == 1 else 1)  # stages of S and P per tile
    hand = tiles == 1   # the handoffs written here (two tiles: insert-sync's)
    scale = 1.0 / d ** 0.5
    k = KernelBuilder(name, threads=128 + 128 * tiles, params={
        "Q": "!llvm.ptr<1>", "K": "!llvm.ptr<1>", "V": "!llvm.ptr<1>", "O": "!llvm.ptr<1>",
        "L": "index", "causal": "index",
        "tmQ": tensor_map("Q", box=[64, 128]), "tmK": tensor_map("K", box=[64, 64]),
        "tmV": tensor_map("V", box=[64, 64])})
    is_causal = k.cmp("ne", k.arg("causal"), 0)
    # KV blocks: ceil(L / 64); causal: the query rows see keys 0 .. 128 tiles - 1.
    blocks = k.div(k.add(k.arg("L"), BLOCK - 1), BLOCK)
    few = k.min(blocks, 2 * tiles)
    n = k.op("arith.select", [is_causal, few, blocks], result_types=["index"]).result

    q = [[k.smem([128, 64], "bf16") for _ in range(halves)] for _ in range(tiles)]
    kr, vr = [], []
    for _ in range(halves):
        kr.append(k.smem([64, 64], "bf16", stages=2))
        vr.append(k.smem([64, 64], "bf16", major="MN", stages=2))
    ring = {"stages": stages} if stages > 1 else {}
    s, p, o = [], [], []
    for t in range(tiles):
        s.append(k.tmem([128, 64], "f32", name=f"S{t}", **ring))
        alias = {"alias": f"S{t}"} if p_over_s else {}
        p.append(k.tmem([128, 64], "bf16", name=f"P{t}", **ring, **alias))
        o.append([k.tmem([128, 64], "f32", name=f"O{t}_{h}") for h in range(halves)])
    s_full, p_full, o_done = [], [], []
    for t in range(tiles if hand else 0):
        s_full.append(k.mbarrier(count=1, **ring))
        p_full.append(k.mbarrier(count=128))  # the softmax warpgroup's threads
        o_done.append(k.mbarrier(count=1))

    def parity(value):
        return k.index_cast(k.and_(value, 1), "i32")

    # The TMA loads name no mbarrier: insert-sync writes their expect_tx, waits, commits
    # and producer tail.
    with k.role("load", first_warp=0, warps=1):
        for t in range(tiles):
            for h in range(halves):
                k.tma_load("tmQ", q[t][h], [64 * h, 128 * t])
        with k.loop(0, n, 1) as j:
            st = k.rem(j, 2)
            key = k.mul(j, BLOCK)
            for h in range(halves):
                k.tma_load("tmK", k.stage(kr[h], st), [64 * h, key])
                k.tma_load("tmV", k.stage(vr[h], st), [64 * h, key])

    def wait_kv(j):   # the K/V stage of block j (insert-sync waits for its loads)
        return k.rem(j, 2)

    def scores(t, kstage):
        sstage = kstage if stages > 1 else 0
        sd = k.stage(s[t], kstage) if stages > 1 else s[t]
        for h in range(halves):
            kb = k.stage(kr[h], kstage)
            for i in range(4):
                k.mma(sd, q[t][h], kb, h > 0 or i > 0, kind="f16", k_offset=16 * i)
        if hand:
            k.commit(k.stage(s_full[t], sstage) if stages > 1 else s_full[t])

    def pv(t, j):
        vs = k.rem(j, 2)
        if hand:
            p_parity = parity(j)
        accumulate = k.cmp("ne", j, 0)
        if hand:
            k.mbarrier_wait(p_full[t], p_parity)
            k.fence("after_thread_sync")
        pa = k.stage(p[t], vs) if stages > 1 else p[t]
        for h in range(halves):
            vb = k.stage(vr[h], vs)
            for i in range(4):
                k.mma(o[t][h], pa, vb, accumulate if i == 0 else True, kind="f16",
                      k_offset=16 * i)
        if hand:
            k.commit(o_done[t])

    def p_read_done(t, j):
        """S_t is written over P_t: the P_t V that read it has completed (ping-pong:
        phase j, one tile: phase j - 1, the stage's previous use)."""
        if p_over_s and hand:
            k.mbarrier_wait(o_done[t], parity(k.add(j, 1) if tiles == 1 else j))
            k.fence("after_thread_sync")

    with k.role("mma", first_warp=1, warps=1):
        ks = wait_kv(0)
        for t in range(tiles):
            scores(t, ks)
        last = k.sub(n, 1)
        with k.loop(0, last, 1) as j:
            j1 = k.add(j, 1)
            if tiles == 1:
                ks = wait_kv(j1)
                p_read_done(0, j)
                scores(0, ks)
                pv(0, j)
            else:
                ks = None
                for t in range(tiles):
                    pv(t, j)
                    if ks is None:
                        ks = wait_kv(j1)
                    p_read_done(t, j)
                    scores(t, ks)
        for t in range(tiles):
            pv(t, last)

    neg_inf = float("-inf")
    for t in range(tiles):
        with k.role(f"softmax{t}", first_warp=4 + 4 * t, warps=4):
            row0 = k.constant(128 * t)
            m_init = k.frag_map(lambda row, c: neg_inf, shape=[128, 1], element="f32")
            l_init = k.frag_map(lambda row, c: 0.0, shape=[128, 1], element="f32")
            with k.loop(0, n, 1, iter_args=[m_init, l_init]) as blocks_loop:
                j = blocks_loop.index
                m_old, l_old = blocks_loop.args
                if stages > 1:
                    st = k.rem(j, 2)
                    sp = k.and_(k.div(j, 2), 1)
                    sv, pv_t, sf = k.stage(s[t], st), k.stage(p[t], st), k.stage(s_full[t], st)
                    s_parity = k.index_cast(sp, "i32")
                    o_parity = parity(k.add(j, 1))
                else:
                    sv, pv_t = s[t], p[t]
                key = k.mul(j, BLOCK)
                not_first = k.cmp("ne", j, 0)
                if hand:
                    k.mbarrier_wait(sf, s_parity)
                    k.fence("after_thread_sync")
                raw = k.ld(sv, 0, 64)

                def mask(x, row, c):
                    kk = k.add(key, c)
                    dead = k.or_(k.cmp("uge", kk, k.arg("L")),
                                 k.and_(k.cmp("ugt", kk, k.add(row0, row)), is_causal))
                    return k.op("arith.select", [dead, k.constant(neg_inf, "f32"), x],
                                result_types=["f32"]).result

                sc = k.frag_map(mask, raw)
                m_max = k.frag_map(lambda a, b, row, c: k.max(a, b), m_old,
                                   k.frag_reduce(sc, "max"))
                m_new, correct = m_max, not_first
                if rescale == "conditional":
                    # The warp keeps its maxima unless one of its rows grew past the
                    # threshold (its vote, tcgen05.frag_vote); then alpha = 1, no correction.
                    def need(a, b, row, c):
                        over = k.op("arith.cmpf", [k.mul(k.sub(b, a), scale),
                                                   k.constant(threshold, "f32")],
                                    {"predicate": 2}, ["i1"]).result   # ogt
                        return k.op("arith.select", [over, k.constant(1.0, "f32"),
                                                     k.constant(0.0, "f32")],
                                    result_types=["f32"]).result

                    update = k.op("tcgen05.frag_vote", [k.frag_map(need, m_old, m_max)],
                                  {"kind": "any"}, ["i1"]).result
                    m_new = k.frag_map(lambda a, b, row, c: k.op(
                        "arith.select", [update, b, a], result_types=["f32"]).result,
                        m_old, m_max)
                    correct = k.and_(not_first, update)
                alpha = k.frag_map(lambda a, b, row, c: k.exp(k.mul(k.sub(a, b), scale)),
                                   m_old, m_new)
                pf = k.frag_map(lambda x, mx, row, c: k.exp(k.mul(k.sub(x, mx), scale)),
                                sc, k.frag_broadcast(m_new, sc))
                l_new = k.frag_map(lambda total, a, b, row, c: k.add(k.mul(total, a), b),
                                   l_old, alpha, k.frag_reduce(pf, "sum"))
                pb = k.frag_map(lambda x, row, c: k.convert(x, "bf16"), pf, element="bf16")
                if hand:
                    k.mbarrier_wait(o_done[t], o_parity)
                    # The MMA issued S_t of this block before P_t V of the previous one.
                    k.fence("after_thread_sync")
                if p_over_s and hand:
                    k.wait("ld")   # P is stored over the S just loaded
                k.st(pv_t, 0, pb)
                with k.if_(correct):  # O = O alpha (block 0: the first P V overwrites O)
                    for h in range(halves):
                        with k.loop(0, 64, 32) as col:
                            of = k.ld(o[t][h], col, 32)
                            if hand:
                                k.wait("ld")
                            k.st(o[t][h], col, k.frag_map(lambda x, a, row, c: k.mul(x, a),
                                                          of, k.frag_broadcast(alpha, of)))
                if hand:
                    k.wait("ld")
                    k.wait("st")
                    k.fence("before_thread_sync")
                    k.mbarrier_arrive(p_full[t])
                k.yield_(m_new, l_new)
            if hand:
                k.mbarrier_wait(o_done[t], parity(k.sub(n, 1)))
                k.fence("after_thread_sync")
            for h in range(halves):
                with k.loop(0, 64, 32) as col:
                    of = k.ld(o[t][h], col, 32)
                    out = k.frag_map(lambda x, total, row, c: k.div(x, total), of,
                                     k.frag_broadcast(blocks_loop.results[1], of))
                    k.store_fragment(out, "O", k.add(128 * t * d + 64 * h, col), ld=d)
            if hand:
                k.wait("ld")
                k.fence("before_thread_sync")
    if hand:
        k.fence("after_thread_sync")
    return k


if __name__ == "__main__":
    print(build().text())
