"""Twin of examples/ws_gemm_bf16.mlir: the warp-specialized GEMM with its
synchronization written out: full/empty mbarriers per stage with explicit phase
parities, commits, fences and the epilogue's wait."""

from tcgen05_lower.builder import KernelBuilder


def build() -> KernelBuilder:
    k = KernelBuilder("ws_gemm_bf16", threads=256,
                      params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    a0, a1, b0, b1 = (k.smem([128, 64], "bf16") for _ in range(4))
    acc = k.tmem([128, 128], "f32", name="acc")
    full0, full1 = k.mbarrier(count=32), k.mbarrier(count=32)  # the load warp's 32 threads
    empty0, empty1 = k.mbarrier(count=1), k.mbarrier(count=1)  # one commit
    acc_ready = k.mbarrier(count=1)

    with k.role("load", first_warp=0, warps=1):
        with k.loop(0, 256, 128) as kk:
            i = k.div(kk, 128)
            previous = k.and_(k.add(i, 1), 1)  # the parity of the stage's last release
            empty_parity = k.index_cast(previous, "i32")
            k1 = k.add(kk, 64)
            for empty, full, a, b, k_offset in ((empty0, full0, a0, b0, kk),
                                                (empty1, full1, a1, b1, k1)):
                k.mbarrier_wait(empty, empty_parity)
                k.fill("A", a, k_offset=k_offset, src_layout="mn_k", src_ld=256)
                k.fill("B", b, k_offset=k_offset, src_layout="k_mn", src_ld=128)
                k.fence_proxy_async()
                k.mbarrier_arrive(full)
        k.mbarrier_wait(empty0, 1)
        k.mbarrier_wait(empty1, 1)

    with k.role("mma", first_warp=1, warps=1):
        with k.loop(0, 256, 128) as kk:
            current = k.and_(k.div(kk, 128), 1)
            full_parity = k.index_cast(current, "i32")
            not_first = k.cmp("ne", kk, 0)
            for stage, (full, empty, a, b) in enumerate(((full0, empty0, a0, b0),
                                                         (full1, empty1, a1, b1))):
                k.mbarrier_wait(full, full_parity)
                for k_offset in range(0, 64, 16):
                    first = stage == 0 and k_offset == 0
                    k.mma(acc, a, b, not_first if first else True, kind="f16",
                          k_offset=k_offset)
                k.commit(empty)
        k.commit(acc_ready)

    with k.role("epilogue", first_warp=4, warps=4):
        k.mbarrier_wait(acc_ready, 0)
        k.fence("after_thread_sync")
        with k.loop(0, 128, 32) as col:
            k.store_fragment(k.ld(acc, col, 32), "C", col, ld=128)
        k.wait("ld")
        k.fence("before_thread_sync")
    k.fence("after_thread_sync")
    return k


if __name__ == "__main__":
    print(build().text())
