"""Twin of examples/gemm_bf16_out_bias_gelu.mlir: C = gelu(A x B + bias) in bf16, the
epilogue a frag_map body written in Python (the tanh approximation of GELU)."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_out_bias_gelu", params={
        "A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "bias": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=256)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)

    with k.loop(0, 256, 32) as col:
        def bias_gelu(x, row, c):
            h = k.add(x, k.load(k.gep("bias", k.add(col, c), "f32"), "f32"))
            h3 = k.mul(k.mul(h, h), h)
            inner = k.mul(k.add(h, k.mul(h3, 0.044715)), 0.7978845608028654)  # sqrt(2/pi)
            t = k.add(k.tanh(inner), 1.0)
            return k.convert(k.mul(k.mul(h, 0.5), t), "bf16")

        out = k.frag_map(bias_gelu, k.ld(acc, col, 32), element="bf16")
        k.store_fragment(out, "C", col, ld=256)
    return k


if __name__ == "__main__":
    print(build().text())
