"""Twin of examples/gemm_bf16_tma.mlir: the K loop's tiles loaded by TMA through tensor
maps, on an mbarrier the loop waits for."""

from tcgen05_lower.builder import KernelBuilder, tensor_map


def build() -> KernelBuilder:
    k = KernelBuilder("gemm_bf16_tma", params={
        "A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>",
        "tmA": tensor_map("A", box=[64, 128]), "tmB": tensor_map("B", box=[64, 256])})
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    full = k.mbarrier()
    with k.loop(0, 512, 64) as kk:
        k.mbarrier_expect_tx(full)
        k.tma_load("tmA", a, [kk, 0], barrier=full)
        k.tma_load("tmB", b, [kk, 0], barrier=full)
        k.mbarrier_wait(full)
        k.barrier()
        not_first = k.cmp("ne", kk, 0)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(acc, a, b, not_first if i == 0 else True, kind="f16", k_offset=k_offset)
    with k.loop(0, 256, 32) as col:
        k.store_fragment(k.ld(acc, col, 32), "C", col, ld=256)
    return k


if __name__ == "__main__":
    print(build().text())
