"""Reference for tcgen05-sim --check: persistent_gemm_pingpong.mlir computes
C = A x B (all row-major) in four 128 x 128 tiles."""

import numpy as np

BUFFERS = {
    "A": ("bfloat16", (128, 64)),
    "B": ("bfloat16", (64, 512)),
    "C": ("float32", (128, 512)),
}
# f32 accumulation of K = 64 exact bf16 products: |error| <= 64 * 2^-24 * sum |a||b|,
# and sum |a||b| <= 64 for inputs in [-1, 1): an absolute bound of 2^-12.
TOLERANCE = (0.0, 64 * 64 * 2.0 ** -24)


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}
