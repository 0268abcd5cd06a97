"""Twin of examples/ws_persistent_gemm_bf16.mlir: a persistent warp-specialized GEMM,
four N tiles through a 4-stage TMA ring and a 2-stage accumulator; the compiler writes
the synchronization. RING, ACC_STAGES and TILE_N are its parameters (the same kernel as
examples/sweep_ws_gemm.py builds from text)."""

from tcgen05_lower.builder import KernelBuilder, pointer, tensor_map

TILES, K_BLOCKS, RING, ACC_STAGES, TILE_N = 4, 4, 4, 2, 256


def build(name: str = "ws_persistent_gemm_bf16", *, ring: int = RING,
          acc_stages: int = ACC_STAGES, tile_n: int = TILE_N) -> KernelBuilder:
    k = KernelBuilder(name, threads=256, params={
        "A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": pointer(align=16),
        "tmA": tensor_map("A", box=[64, 128]), "tmB": tensor_map("B", box=[64, tile_n])})
    a = k.smem([128, 64], "bf16", stages=ring)
    b = k.smem([tile_n, 64], "bf16", stages=ring)
    acc = k.tmem([128, tile_n], "f32", name="acc", stages=acc_stages)

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, TILES, 1) as t:
            n = k.mul(t, tile_n)
            base = k.mul(t, K_BLOCKS)
            with k.loop(0, K_BLOCKS, 1) as kb:
                s = k.rem(k.add(base, kb), ring)
                kk = k.mul(kb, 64)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                k.tma_load("tmA", a_s, [kk, 0])
                k.tma_load("tmB", b_s, [kk, n])

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, TILES, 1) as t:
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
        with k.loop(0, TILES, 1) as t:
            n = k.mul(t, tile_n)
            d = k.stage(acc, k.rem(t, acc_stages))
            with k.loop(0, tile_n, 32) as col:
                frag = k.ld(d, col, 32)
                k.store_fragment(frag, "C", k.add(n, col), ld=TILES * tile_n)
    return k


if __name__ == "__main__":
    print(build().text())
