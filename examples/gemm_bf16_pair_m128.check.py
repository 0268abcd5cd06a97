"""Reference for tcgen05-sim --check: gemm_bf16_pair_m128.mlir, a CTA pair computing
C = A x B (all row-major) for the whole pair: C (128 x 128, f32) = A (128 x 64, bf16) x
B (64 x 128, bf16). Each CTA fills and stores its own slice (docs/cta-pairs.md), so a
split that disagreed with the MMA's would leave wrong rows or columns of C."""

import numpy as np

BUFFERS = {
    "A": ("bfloat16", (128, 64)),
    "B": ("bfloat16", (64, 128)),
    "C": ("float32", (128, 128)),
}
# f32 accumulation of K = 64 exact bf16 products: |error| <= 64 * 2^-24 * sum |a||b|,
# and sum |a||b| <= 64 for inputs in [-1, 1): an absolute bound of 2^-12.
TOLERANCE = (0.0, 64 * 64 * 2.0 ** -24)


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}
