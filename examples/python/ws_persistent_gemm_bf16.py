"""Twin of examples/ws_persistent_gemm_bf16.mlir: a persistent warp-specialized GEMM,
C (128 x 1024) = A (128 x 256) x B^T, four N tiles of 256 through a 4-stage TMA ring and
a 2-stage accumulator; the compiler writes the synchronization.

Its parameters are those examples/sweep_ws_gemm.py sweeps: the tile's N, 1 or 2 CTAs (on
a pair, docs/cta-pairs.md, C is 256 x 512 and a tile 256 x N, each CTA loading N/2 rows of
B), the ring's and the accumulator's stages. The defaults give the example."""

from tcgen05_lower.builder import KernelBuilder, pointer, tensor_map

#: K = 256 in four blocks of 64; C has 1024 columns on one CTA (512 on a pair).
K_BLOCKS, C_COLUMNS = 4, 1024


def build(name: str = "ws_persistent_gemm_bf16", *, tile_n: int = 256, ctas: int = 1,
          ring: int = 4, acc_stages: int = 2) -> KernelBuilder:
    total_n = C_COLUMNS // ctas  # a pair computes 256 rows of C at a time
    if ctas not in (1, 2) or total_n % tile_n:
        raise ValueError(f"tile N = {tile_n} on {ctas} CTAs: 1 or 2 CTAs, and N must "
                         f"divide the {total_n} columns of C")
    tiles, b_rows = total_n // tile_n, tile_n // ctas
    k = KernelBuilder(name, threads=256, cta_group=ctas, params={
        "A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": pointer(align=16),
        "tmA": tensor_map("A", box=[64, 128]), "tmB": tensor_map("B", box=[64, b_rows])})
    a = k.smem([128, 64], "bf16", stages=ring)
    b = k.smem([b_rows, 64], "bf16", stages=ring)
    acc = k.tmem([128 * ctas, tile_n], "f32", name="acc", stages=acc_stages)

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, tiles, 1) as t:
            n = k.mul(t, tile_n)
            base = k.mul(t, K_BLOCKS)
            with k.loop(0, K_BLOCKS, 1) as kb:
                s = k.rem(k.add(base, kb), ring)
                kk = k.mul(kb, 64)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                k.tma_load("tmA", a_s, [kk, 0])
                k.tma_load("tmB", b_s, [kk, n])

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, tiles, 1) as t:
            base = k.mul(t, K_BLOCKS)
            d = k.stage(acc, k.rem(t, acc_stages))
            with k.loop(0, K_BLOCKS, 1) as kb:
                s = k.rem(k.add(base, kb), ring)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                accumulate = k.cmp("ne", kb, 0)
                for i, k_offset in enumerate(range(0, 64, 16)):
                    k.mma(d, a_s, b_s, accumulate if i == 0 else True, kind="f16",
                          k_offset=k_offset)

    with k.role("epilogue", first_warp=4, warps=4):
        with k.loop(0, tiles, 1) as t:
            n = k.mul(t, tile_n)
            d = k.stage(acc, k.rem(t, acc_stages))
            with k.loop(0, tile_n, 32) as col:
                frag = k.ld(d, col, 32)
                k.store_fragment(frag, "C", k.add(n, col), ld=total_n)
    return k


if __name__ == "__main__":
    print(build().text())
