"""The tile of gemm_bf16_128x256.mlir built from Python: no MLIR text is written.
Run it: python examples/gemm_from_python.py"""

from tcgen05_lower.builder import KernelBuilder
from tcgen05_lower.planning.report import format_table

# C (128 x 256, f32) = A (128 x 64, bf16, row-major) x B (64 x 256, bf16, row-major)
k = KernelBuilder("gemm_bf16_128x256", params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>",
                                               "C": "!llvm.ptr<1>"})
a = k.smem([128, 64], "bf16", swizzle="128B")
b = k.smem([256, 64], "bf16", swizzle="128B")
acc = k.tmem([128, 256], "f32", name="acc")
k.fill("A", a, src_layout="mn_k", src_ld=64)   # A has K contiguous
k.fill("B", b, src_layout="k_mn", src_ld=256)  # B has N contiguous: the fill transposes
for i, k_offset in enumerate(range(0, 64, 16)):
    k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)  # the first one overwrites D
with k.loop(0, 256, 32) as column:
    k.store_fragment(k.ld(acc, column, 32), "C", column, ld=256)

result = k.compile(arch="sm_100a")
plan = next(r for r in result.pass_results if r.name == "tcgen05-plan-tmem").plans[0]
print(format_table(plan))
print(f"{result.ptx.count('tcgen05.mma')} MMAs in {len(result.ptx.splitlines())} lines of PTX")
