"""Twin of examples/gemm_bf16_kloop_dynamic.mlir: the K loop over a run-time K written
as blocks and branches (cf.br / cf.cond_br), the fills told K at run time."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_kloop_dynamic",
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>",
                              "K": "index"})
    K = k.arg("K")
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    loop, body, epilogue = k.new_block("index"), k.new_block(), k.new_block()
    k.br(loop, 0)

    with k.at(loop):
        kk = loop.arguments[0]
        k.cond_br(k.cmp("ult", kk, K), body, epilogue)

    with k.at(body):
        k.fill("A", a, k_offset=kk, src_layout="mn_k", src_ld=K, k_size=K)
        k.fill("B", b, k_offset=kk, src_layout="k_mn", src_ld=256, k_size=K)
        not_first = k.cmp("ne", kk, 0)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(acc, a, b, not_first if i == 0 else True, kind="f16", k_offset=k_offset)
        k.br(loop, k.add(kk, 64))

    with k.at(epilogue):
        with k.loop(0, 256, 32) as col:
            k.store_fragment(k.ld(acc, col, 32), "C", col, ld=256)
    return k


if __name__ == "__main__":
    print(build().text())
