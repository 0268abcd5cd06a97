"""Twin of examples/attention_fwd_bf16.mlir: flash attention over 4 blocks of 64 keys
with an online softmax: the running row max and sum are per-row fragments carried by
the loop, O is rescaled in TMEM when the max grows."""

from tcgen05_lower.builder import KernelBuilder

SCALE = 0.125  # 1 / sqrt(64)
KEYS = 256


def build() -> KernelBuilder:
    k = KernelBuilder("attention_fwd_bf16", params={
        "Q": "!llvm.ptr<1>", "K": "!llvm.ptr<1>", "V": "!llvm.ptr<1>", "O": "!llvm.ptr<1>"})
    q = k.smem([128, 64], "bf16")
    kt = k.smem([64, 64], "bf16")
    v = k.smem([64, 64], "bf16")
    s = k.tmem([128, 64], "f32", name="S")
    p = k.tmem([128, 64], "bf16", name="P")
    o = k.tmem([128, 64], "f32", name="O")
    k.fill("Q", q, src_layout="mn_k", src_ld=64)

    m_init = k.frag_map(lambda row, c: float("-inf"), shape=[128, 1], element="f32")
    l_init = k.frag_map(lambda row, c: 0.0, shape=[128, 1], element="f32")
    with k.loop(0, KEYS, 64, iter_args=[m_init, l_init]) as keys:
        m_old, l_old = keys.args
        not_first = k.cmp("ne", keys.index, 0)
        k.fill("K", kt, src_layout="mn_k", src_ld=64, row_offset=keys.index)
        k.fill("V", v, k_offset=keys.index, src_layout="k_mn", src_ld=64)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(s, q, kt, i > 0, kind="f16", k_offset=k_offset)

        sf = k.ld(s, 0, 64)
        m_block = k.frag_reduce(sf, "max")
        m_new = k.frag_map(lambda a, b, row, c: k.max(a, b), m_old, m_block)
        # exp((m_old - m_new) / 8): 0 at the first block, where m_old = -inf
        alpha = k.frag_map(lambda a, b, row, c: k.exp(k.mul(k.sub(a, b), SCALE)),
                           m_old, m_new)
        pf = k.frag_map(lambda x, mx, row, c: k.exp(k.mul(k.sub(x, mx), SCALE)),
                        sf, k.frag_broadcast(m_new, sf))
        l_block = k.frag_reduce(pf, "sum")
        l_new = k.frag_map(lambda total, a, b, row, c: k.add(k.mul(total, a), b),
                           l_old, alpha, l_block)
        k.st(p, 0, k.frag_map(lambda x, row, c: k.convert(x, "bf16"), pf, element="bf16"))

        with k.if_(not_first):  # rescale O by alpha
            with k.loop(0, 64, 32) as col:
                of = k.ld(o, col, 32)
                scaled = k.frag_map(lambda x, a, row, c: k.mul(x, a),
                                    of, k.frag_broadcast(alpha, of))
                k.st(o, col, scaled)

        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(o, p, v, not_first if i == 0 else True, kind="f16", k_offset=k_offset)
        k.yield_(m_new, l_new)

    with k.loop(0, 64, 32) as col:
        of = k.ld(o, col, 32)
        out = k.frag_map(lambda x, total, row, c: k.div(x, total),
                         of, k.frag_broadcast(keys.results[1], of))
        k.store_fragment(out, "O", col, ld=64)
    return k


if __name__ == "__main__":
    print(build().text())
