"""Twin of examples/gemm_bf16_grid_bias.mlir: the run-time-shaped grid GEMM with a bias
added per column and the result converted to bf16 by a frag_map body written in Python."""

from tcgen05_lower.builder import KernelBuilder

PARAMS = {"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "bias": "!llvm.ptr<1>",
          "C": "!llvm.ptr<1>", **{name: "i32" for name in ("M", "N", "K", "lda", "ldb", "ldc")}}


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_grid_bias", params=PARAMS,
                      grid=["ceildiv(N, 128)", "ceildiv(M, 128)"])
    m, n, k_size = k.size("M"), k.size("N"), k.size("K")
    a_ld, b_ld, c_ld = k.size("lda"), k.size("ldb"), k.size("ldc")
    n_last = k.sub(n, 1)
    tile_n, tile_m = k.block_id("x"), k.block_id("y")
    m0, n0 = k.mul(tile_m, 128), k.mul(tile_n, 128)
    a = k.smem([128, 64], "bf16")
    b = k.smem([128, 64], "bf16")
    acc = k.tmem([128, 128], "f32", name="acc")
    with k.loop(0, k_size, 64) as kk:
        k.fill("A", a, k_offset=kk, src_layout="mn_k", src_ld=a_ld, row_offset=m0, rows=m,
               k_size=k_size)
        k.fill("B", b, k_offset=kk, src_layout="k_mn", src_ld=b_ld, row_offset=n0, rows=n,
               k_size=k_size)
        not_first = k.cmp("ne", kk, 0)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(acc, a, b, not_first if i == 0 else True, kind="f16", k_offset=k_offset)

    with k.loop(0, 128, 32) as col:
        def add_bias(x, row, c):
            # The bias of column n0 + col + c, clamped to the last column (an edge tile's
            # columns past N are computed but not stored).
            j = k.min(k.add(k.add(n0, col), c), n_last)
            return k.convert(k.add(x, k.load(k.gep("bias", j, "f32"), "f32")), "bf16")

        out = k.frag_map(add_bias, k.ld(acc, col, 32), element="bf16")
        k.store_fragment(out, "C", col, ld=c_ld, row_offset=m0, column_offset=n0, rows=m,
                         columns=n)
    return k


if __name__ == "__main__":
    print(build().text())
