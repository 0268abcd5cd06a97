"""Twin of examples/persistent_gemm_bf16.mlir: four N tiles, two at a time, the
epilogue of one accumulator between the K loops of the other."""

from tcgen05_lower.builder import KernelBuilder


def k_loop(k: KernelBuilder, acc, a, b, b_tile) -> None:
    """The tile's K loop: fill both operands, four MMAs of K = 16."""
    with k.loop(0, 128, 64) as kk:
        k.fill("A", a, k_offset=kk, src_layout="mn_k", src_ld=128)
        k.fill(b_tile, b, k_offset=kk, src_layout="k_mn", src_ld=1024)
        not_first = k.cmp("ne", kk, 0)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(acc, a, b, not_first if i == 0 else True, kind="f16", k_offset=k_offset)


def epilogue(k: KernelBuilder, acc, n) -> None:
    with k.loop(0, 256, 32) as col:
        frag = k.ld(acc, col, 32)
        k.store_fragment(frag, "C", k.add(n, col), ld=1024)


def build() -> KernelBuilder:
    k = KernelBuilder("persistent_gemm_bf16",
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc0 = k.tmem([128, 256], "f32", name="acc0")
    acc1 = k.tmem([128, 256], "f32", name="acc1")

    with k.loop(0, 4, 2) as t:
        n0 = k.mul(t, 256)
        k_loop(k, acc0, a, b, k.gep("B", n0, "bf16"))
        with k.if_(k.cmp("ugt", t, 0)):  # the previous pair's second tile
            epilogue(k, acc1, k.mul(k.sub(t, 1), 256))
        n1 = k.mul(k.add(t, 1), 256)
        k_loop(k, acc1, a, b, k.gep("B", n1, "bf16"))
        epilogue(k, acc0, n0)

    epilogue(k, acc1, 768)
    return k


if __name__ == "__main__":
    print(build().text())
