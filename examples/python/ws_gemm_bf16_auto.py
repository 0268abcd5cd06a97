"""Twin of examples/ws_gemm_bf16_auto.mlir: load, MMA and epilogue warp roles over a
two-stage K loop, no synchronization written (tcgen05-insert-sync writes it)."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("ws_gemm_bf16_auto", threads=256,
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a0, a1, b0, b1 = (k.smem([128, 64], "bf16") for _ in range(4))
    acc = k.tmem([128, 128], "f32", name="acc")
    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, 256, 128) as kk:
            k1 = k.add(kk, 64)
            k.fill("A", a0, k_offset=kk, src_layout="mn_k", src_ld=256)
            k.fill("B", b0, k_offset=kk, src_layout="k_mn", src_ld=128)
            k.fill("A", a1, k_offset=k1, src_layout="mn_k", src_ld=256)
            k.fill("B", b1, k_offset=k1, src_layout="k_mn", src_ld=128)
    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, 256, 128) as kk:
            not_first = k.cmp("ne", kk, 0)
            for stage, (a, b) in enumerate(((a0, b0), (a1, b1))):
                for k_offset in range(0, 64, 16):
                    first = stage == 0 and k_offset == 0
                    k.mma(acc, a, b, not_first if first else True, kind="f16",
                          k_offset=k_offset)
    with k.role("epilogue", first_warp=4, warps=4):
        with k.loop(0, 128, 32) as col:
            k.store_fragment(k.ld(acc, col, 32), "C", col, ld=128)
    return k


if __name__ == "__main__":
    print(build().text())
