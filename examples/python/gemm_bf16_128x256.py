"""Twin of examples/gemm_bf16_128x256.mlir: one 128 x 256 tile, K = 64, from Python."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_128x256",
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=256)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)  # the first overwrites D
    with k.loop(0, 256, 32) as col:
        k.store_fragment(k.ld(acc, col, 32), "C", col, ld=256)
    return k


if __name__ == "__main__":
    print(build().text())
