"""Twin of examples/gemm_bf16_kloop.mlir: a K loop over one single-buffered stage."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_kloop",
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    with k.loop(0, 512, 64) as kk:
        k.fill("A", a, k_offset=kk, src_layout="mn_k", src_ld=512)
        k.fill("B", b, k_offset=kk, src_layout="k_mn", src_ld=256)
        not_first = k.cmp("ne", kk, 0)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(acc, a, b, not_first if i == 0 else True, kind="f16", k_offset=k_offset)
    with k.loop(0, 256, 32) as col:
        k.store_fragment(k.ld(acc, col, 32), "C", col, ld=256)
    return k


if __name__ == "__main__":
    print(build().text())
