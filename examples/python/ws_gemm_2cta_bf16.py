"""Twin of examples/ws_gemm_2cta_bf16.mlir: the persistent warp-specialized GEMM on a
CTA pair (cta_group 2): M = 256 per pair, each CTA loading half of A and of B by TMA
into 2-stage rings, a 2-stage accumulator; the compiler writes the synchronization."""

from tcgen05_lower.builder import KernelBuilder, tensor_map

TILES, K_BLOCKS, RING, ACC_STAGES = 4, 4, 2, 2


def build() -> KernelBuilder:
    k = KernelBuilder("ws_gemm_2cta_bf16", threads=256, cta_group=2, params={
        "A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>",
        "tmA": tensor_map("A", box=[64, 128]), "tmB": tensor_map("B", box=[64, 64])})
    a = k.smem([128, 64], "bf16", stages=RING)
    b = k.smem([64, 64], "bf16", stages=RING)
    acc = k.tmem([256, 128], "f32", name="acc", stages=ACC_STAGES)

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, TILES, 1) as t:
            n = k.mul(t, 128)
            base = k.mul(t, K_BLOCKS)
            with k.loop(0, K_BLOCKS, 1) as kb:
                s = k.rem(k.add(base, kb), RING)
                kk = k.mul(kb, 64)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                k.tma_load("tmA", a_s, [kk, 0])
                k.tma_load("tmB", b_s, [kk, n])

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, TILES, 1) as t:
            base = k.mul(t, K_BLOCKS)
            d = k.stage(acc, k.rem(t, ACC_STAGES))
            with k.loop(0, K_BLOCKS, 1) as kb:
                s = k.rem(k.add(base, kb), RING)
                a_s, b_s = k.stage(a, s), k.stage(b, s)
                accumulate = k.cmp("ne", kb, 0)
                for i, k_offset in enumerate(range(0, 64, 16)):
                    k.mma(d, a_s, b_s, accumulate if i == 0 else True, kind="f16",
                          k_offset=k_offset)

    with k.role("epilogue", first_warp=4, warps=4):
        with k.loop(0, TILES, 1) as t:
            n = k.mul(t, 128)
            d = k.stage(acc, k.rem(t, ACC_STAGES))
            with k.loop(0, 128, 32) as col:
                frag = k.ld(d, col, 32)
                k.store_fragment(frag, "C", k.add(n, col), ld=TILES * 128)
    return k


if __name__ == "__main__":
    print(build().text())
