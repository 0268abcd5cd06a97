"""Twin of examples/persistent_gemm_pingpong.mlir: four N tiles in one CTA, two
accumulators swapped through the loop's iteration arguments, so that the epilogue of a
tile overlaps the MMAs of the next."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("persistent_gemm_pingpong",
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([128, 64], "bf16")
    acc0 = k.tmem([128, 128], "f32", name="acc0")
    acc1 = k.tmem([128, 128], "f32", name="acc1")

    with k.loop(0, 4, 1, iter_args=[acc0, acc1]) as tiles:
        cur, prev = tiles.args
        n = k.mul(tiles.index, 128)
        b_tile = k.gep("B", n, "bf16")
        k.fill("A", a, src_layout="mn_k", src_ld=64)
        k.fill(b_tile, b, src_layout="k_mn", src_ld=512)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(cur, a, b, i > 0, kind="f16", k_offset=k_offset)
        with k.if_(k.cmp("ugt", tiles.index, 0)):  # the previous tile's epilogue
            n_prev = k.sub(n, 128)
            with k.loop(0, 128, 32) as col:
                frag = k.ld(prev, col, 32)
                k.store_fragment(frag, "C", k.add(n_prev, col), ld=512)
        k.yield_(prev, cur)

    with k.loop(0, 128, 32) as col:
        frag = k.ld(tiles.results[1], col, 32)
        k.store_fragment(frag, "C", k.add(384, col), ld=512)
    return k


if __name__ == "__main__":
    print(build().text())
