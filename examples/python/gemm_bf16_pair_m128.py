"""Twin of examples/gemm_bf16_pair_m128.mlir: a CTA pair (cta_group 2) computing one
M = 128 tile, each CTA holding half of A and of B."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_pair_m128", cta_group=2,
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([64, 64], "bf16")
    b = k.smem([64, 64], "bf16")
    acc = k.tmem([128, 128], "f32", name="acc")
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=128)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)
    with k.loop(0, 128, 32) as col:
        k.store_fragment(k.ld(acc, col, 32), "C", col, ld=128)
    return k


if __name__ == "__main__":
    print(build().text())
