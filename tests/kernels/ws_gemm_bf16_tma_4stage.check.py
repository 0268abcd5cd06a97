"""Reference for tcgen05-sim --check: ws_gemm_bf16_tma_4stage.mlir, C (128 x 256, f32) =
A x B^T, A (128 x K, bf16) and B (256 x K, bf16) row-major; the tensor maps tmA and tmB
are bound by the simulator to A and B:

    tcgen05-sim tests/kernels/ws_gemm_bf16_tma_4stage.mlir \\
        --check tests/kernels/ws_gemm_bf16_tma_4stage.check.py \\
        --pass-option 'tcgen05-insert-sync{strategy=none}'
"""

import numpy as np

K = 512
BUFFERS = {"A": ("bfloat16", (128, K)), "B": ("bfloat16", (256, K)),
           "C": ("float32", (128, 256))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}


def bound(name, inputs):
    # Summing K exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24 *
    # (|A| @ |B^T|) (the gamma_K bound of floating-point summation).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    k = inputs["A"].shape[1]
    return k * 2.0 ** -24 * (a @ b.T) + 1e-30, f"K*2^-24*(|A||B^T|), K = {k}"
