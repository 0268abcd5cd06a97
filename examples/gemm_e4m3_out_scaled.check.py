"""Reference for tcgen05-sim --check: gemm_e4m3_out_scaled.mlir computes
C = e4m3(scale[0] * (A x B)), all row-major, with cvt.rn.satfinite semantics (values
beyond the largest finite e4m3, 448, saturate to it).

Tolerance: e4m3 keeps 4 significant bits, so rounding to nearest moves a normal value by
at most 2^-4 of itself, and a subnormal one (below 2^-6, spacing 2^-9) by at most 2^-10;
before that, f32 accumulation of K = 64 exact products of inputs in [-1, 1) is off by at
most 64 * 2^-24 * 64 = 2^-12 (the GEMM bound), scaled by |scale| < 1, and the product
with the scale by one f32 rounding. So |C - ref| <= 2^-4 |ref| + 2^-9."""

import numpy as np

BUFFERS = {
    "A": ("bfloat16", (128, 64)),
    "B": ("bfloat16", (64, 256)),
    "scale": ("float32", (1,)),
    "C": ("float8_e4m3fn", (128, 256)),
}
TOLERANCE = (2.0 ** -4, 2.0 ** -9)
#: The largest finite e4m3 value (cvt .satfinite clamps to it).
E4M3_MAX = 448.0


def reference(inputs):
    acc = inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)
    return {"C": np.clip(acc * float(inputs["scale"][0]), -E4M3_MAX, E4M3_MAX)}
