"""Examples rebuilt from Python (tcgen05_lower.builder) compile to the same PTX as their
.mlir files: the expected PTX is the compiler's output for the hand-written .mlir text
(an input the builder does not touch), compared as whole text."""

from pathlib import Path

import pytest

from tcgen05_lower.builder import KernelBuilder
from tcgen05_lower.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent
PTRS = {"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"}


def gemm_bf16_kloop() -> KernelBuilder:
    """examples/gemm_bf16_kloop.mlir: a K loop over one single-buffered stage."""
    k = KernelBuilder("gemm_bf16_kloop", params=PTRS)
    for value in (0, 32, 64, 256, 512):  # the constants in the order the .mlir writes them
        k.constant(value)
    accumulate = k.constant(True, "i1")
    a = k.smem([128, 64], "bf16")
    b = k.smem([256, 64], "bf16")
    acc = k.tmem([128, 256], "f32", name="acc")
    with k.loop(0, 512, 64) as kk:
        k.fill("A", a, k_offset=kk, src_layout="mn_k", src_ld=512)
        k.fill("B", b, k_offset=kk, src_layout="k_mn", src_ld=256)
        not_first = k.cmp("ne", kk, 0)
        for i, k_offset in enumerate(range(0, 64, 16)):
            k.mma(acc, a, b, accumulate if i else not_first, kind="f16", k_offset=k_offset)
    with k.loop(0, 256, 32) as col:
        k.store_fragment(k.ld(acc, col, 32), "C", col, ld=256)
    return k


def ws_gemm_bf16_auto() -> KernelBuilder:
    """examples/ws_gemm_bf16_auto.mlir: load, MMA and epilogue roles, no synchronization
    written (tcgen05-insert-sync writes it)."""
    k = KernelBuilder("ws_gemm_bf16_auto", params=PTRS, threads=256)
    for value in (0, 1, 32, 64, 128, 256):
        k.constant(value)
    true = k.constant(True, "i1")
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
                    k.mma(acc, a, b, not_first if first else true, kind="f16",
                          k_offset=k_offset)
    with k.role("epilogue", first_warp=4, warps=4):
        with k.loop(0, 128, 32) as col:
            k.store_fragment(k.ld(acc, col, 32), "C", col, ld=128)
    return k


TWINS = {"gemm_bf16_kloop": gemm_bf16_kloop, "ws_gemm_bf16_auto": ws_gemm_bf16_auto}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_the_python_twin_compiles_to_the_ptx_of_the_mlir_example(name):
    path = ROOT / "examples" / f"{name}.mlir"
    expected = compile_source(path.read_text(), str(path), arch="sm_100a").ptx
    built = TWINS[name]().compile(arch="sm_100a").ptx
    assert built == expected
