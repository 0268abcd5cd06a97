"""Twin of examples/gemm_e4m3_out_scaled.mlir: the accumulator scaled by a run-time
factor and stored as e4m3 (f8E4M3FN)."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_e4m3_out_scaled", params={
        "A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "scale": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    s = k.load("scale", "f32")
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=256)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)
    with k.loop(0, 256, 32) as col:
        out = k.frag_map(lambda x, row, c: k.convert(k.mul(x, s), "f8E4M3FN"),
                         k.ld(acc, col, 32), element="f8E4M3FN")
        k.store_fragment(out, "C", col, ld=256)
    return k


if __name__ == "__main__":
    print(build().text())
