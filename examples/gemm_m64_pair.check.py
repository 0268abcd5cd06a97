"""Reference for tcgen05-sim --check: gemm_m64_pair.mlir computes two M = 64 tiles that
share B (all row-major): C0 = A0 x B, C1 = A1 x B."""

import numpy as np

BUFFERS = {
    "A0": ("bfloat16", (64, 64)),
    "A1": ("bfloat16", (64, 64)),
    "B": ("bfloat16", (64, 128)),
    "C0": ("float32", (64, 128)),
    "C1": ("float32", (64, 128)),
}
# f32 accumulation of K = 64 exact bf16 products: |error| <= 64 * 2^-24 * sum |a||b|,
# and sum |a||b| <= 64 for inputs in [-1, 1): an absolute bound of 2^-12.
TOLERANCE = (0.0, 64 * 64 * 2.0 ** -24)


def reference(inputs):
    b = inputs["B"].astype(np.float64)
    return {"C0": inputs["A0"].astype(np.float64) @ b,
            "C1": inputs["A1"].astype(np.float64) @ b}
