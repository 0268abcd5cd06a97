"""Reference for tcgen05-sim --check: ws_gemm_bf16_auto.mlir computes C = A x B (all
row-major), one 128 x 128 tile with K = 256, in three warp roles."""

import numpy as np

BUFFERS = {
    "A": ("bfloat16", (128, 256)),
    "B": ("bfloat16", (256, 128)),
    "C": ("float32", (128, 128)),
}
# f32 accumulation of K = 256 exact bf16 products: |error| <= 256 * 2^-24 * sum |a||b|,
# and sum |a||b| <= 256 for inputs in [-1, 1): an absolute bound of 256 * 256 * 2^-24.
TOLERANCE = (0.0, 256 * 256 * 2.0 ** -24)


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}
