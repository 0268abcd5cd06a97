"""Twin of examples/gemm_chain_p_tmem.mlir: S = Q K^T, P = bf16(S) stored to TMEM with
tcgen05.st, O = P V with P as the MMA's A operand from TMEM."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_chain_p_tmem", params={
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

    pf = k.frag_map(lambda x, row, c: k.convert(x, "bf16"), k.ld(s, 0, 64), element="bf16")
    k.st(p, 0, pf)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(o, p, v, i > 0, kind="f16", k_offset=k_offset)

    with k.loop(0, 64, 32) as col:
        k.store_fragment(k.ld(o, col, 32), "O", col, ld=64)
    return k


if __name__ == "__main__":
    print(build().text())
