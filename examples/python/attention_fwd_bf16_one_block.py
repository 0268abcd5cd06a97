"""Twin of examples/attention_fwd_bf16_one_block.mlir: softmax(Q K^T / sqrt(64)) V for
one block of 64 keys: S in TMEM, the row max and sum by frag_reduce, P = exp(...) in
bf16 through TMEM as the second MMA's A operand."""

from tcgen05_lower.builder import KernelBuilder

SCALE = 0.125  # 1 / sqrt(64)


def build() -> KernelBuilder:
    k = KernelBuilder("attention_fwd_bf16_one_block", params={
        "Q": "!llvm.ptr<1>", "K": "!llvm.ptr<1>", "V": "!llvm.ptr<1>", "O": "!llvm.ptr<1>"})
    q = k.smem([128, 64], "bf16")
    kt = k.smem([64, 64], "bf16")
    v = k.smem([64, 64], "bf16")
    s = k.tmem([128, 64], "f32", name="S")
    p = k.tmem([128, 64], "bf16", name="P")
    o = k.tmem([128, 64], "f32", name="O")
    k.fill("Q", q, src_layout="mn_k", src_ld=64)
    k.fill("K", kt, src_layout="mn_k", src_ld=64)
    k.fill("V", v, src_layout="k_mn", src_ld=64)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(s, q, kt, i > 0, kind="f16", k_offset=k_offset)

    sf = k.ld(s, 0, 64)
    row_max = k.frag_reduce(sf, "max")
    pf = k.frag_map(lambda x, mx, row, c: k.exp(k.mul(k.sub(x, mx), SCALE)),
                    sf, k.frag_broadcast(row_max, sf))
    row_sum = k.frag_reduce(pf, "sum")
    k.st(p, 0, k.frag_map(lambda x, row, c: k.convert(x, "bf16"), pf, element="bf16"))
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(o, p, v, i > 0, kind="f16", k_offset=k_offset)

    with k.loop(0, 64, 32) as col:
        of = k.ld(o, col, 32)
        out = k.frag_map(lambda x, total, row, c: k.div(x, total),
                         of, k.frag_broadcast(row_sum, of))
        k.store_fragment(out, "O", col, ld=64)
    return k


if __name__ == "__main__":
    print(build().text())
