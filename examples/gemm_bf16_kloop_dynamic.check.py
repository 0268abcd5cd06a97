"""Reference for tcgen05-sim --check: gemm_bf16_kloop_dynamic.mlir, C (128 x 256, f32) =
A (128 x K, bf16) x B (K x 256, bf16), all row-major, K a kernel argument (A's row
stride). K from SCALARS or the command line:

    tcgen05-sim examples/gemm_bf16_kloop_dynamic.mlir \\
        --check examples/gemm_bf16_kloop_dynamic.check.py --set K=192
"""

import numpy as np

SCALARS = {"K": 512}


def BUFFERS(s):
    return {"A": ("bfloat16", (128, s["K"])), "B": ("bfloat16", (s["K"], 256)),
            "C": ("float32", (128, 256))}


def reference(inputs):
    return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}


def bound(name, inputs):
    # Summing K exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24 *
    # (|A| @ |B|) (the gamma_K bound of floating-point summation).
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    k = inputs["K"]
    return k * 2.0 ** -24 * (a @ b) + 1e-30, f"K*2^-24*(|A||B|), K = {k}"
