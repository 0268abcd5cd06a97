"""Twin of examples/gemm_m64_pair.mlir: two M = 64 accumulators sharing B, their MMAs
interleaved."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_m64_pair", params={
        name: "!llvm.ptr<1>" for name in ("A0", "A1", "B", "C0", "C1")})
    a0 = k.smem([64, 64], "bf16")
    a1 = k.smem([64, 64], "bf16")
    b = k.smem([128, 64], "bf16")
    acc0 = k.tmem([64, 128], "f32", name="acc0")
    acc1 = k.tmem([64, 128], "f32", name="acc1")
    k.fill("A0", a0, src_layout="mn_k", src_ld=64)
    k.fill("A1", a1, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=128)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc0, a0, b, i > 0, kind="f16", k_offset=k_offset)
        k.mma(acc1, a1, b, i > 0, kind="f16", k_offset=k_offset)
    with k.loop(0, 128, 32) as col:
        k.store_fragment(k.ld(acc0, col, 32), "C0", col, ld=128)
        k.store_fragment(k.ld(acc1, col, 32), "C1", col, ld=128)
    return k


if __name__ == "__main__":
    print(build().text())
