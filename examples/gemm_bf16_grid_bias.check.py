"""Reference for tcgen05-sim --check: gemm_bf16_grid_bias.mlir, the whole GEMM with a
fused epilogue C (M x N, bf16) = bf16(A (M x K, bf16) x B (K x N, bf16) + bias (N, f32)),
all row-major, on its grid of ceildiv(N, 128) x ceildiv(M, 128) CTAs. Sizes from SCALARS
or the command line:

    tcgen05-sim examples/gemm_bf16_grid_bias.mlir --check examples/gemm_bf16_grid_bias.check.py \\
        --set M=256 --set N=128 --set K=128

lda and ldb default to K and N (larger ones leave columns the reference does not use).
C has ldc = N: its every element is checked, and one the kernel leaves unwritten stays
NaN, as does one a CTA writes in another CTA's tile and then leaves its own unwritten.

Bound (hand derivation): the f32 accumulation of K exact bf16 x bf16 products is off by
at most e = K * 2^-24 * (|A| @ |B|) (the gamma_K bound of floating-point summation); the
f32 bias add rounds once more, by at most 2^-24 |acc + bias| <= 2^-24 (|ref| + e); the
conversion to bf16 rounds to nearest (8 significant bits), by at most 2^-8 of what it
converts. So |C - ref| <= 2^-8 |ref| + (1 + 2^-8) (e + 2^-24 (|ref| + e)), below
2^-8 |ref| + 2^-23 |ref| + 2 e."""

import numpy as np

SCALARS = {"M": 200, "N": 136, "K": 192}


def derived(scalars):
    return {"lda": scalars["K"], "ldb": scalars["N"], "ldc": scalars["N"]}


def BUFFERS(s):
    return {"A": ("bfloat16", (s["M"], s["lda"])), "B": ("bfloat16", (s["K"], s["ldb"])),
            "bias": ("float32", (s["N"],)), "C": ("bfloat16", (s["M"], s["ldc"]))}


def _operands(inputs):
    k, n = inputs["K"], inputs["N"]
    return (inputs["A"][:, :k].astype(np.float64), inputs["B"][:, :n].astype(np.float64))


def reference(inputs):
    if inputs["ldc"] != inputs["N"]:
        raise ValueError("this check compares all of C: ldc must be N")
    a, b = _operands(inputs)
    return {"C": a @ b + inputs["bias"].astype(np.float64)[None, :]}


def bound(name, inputs):
    a, b = _operands(inputs)
    ref = np.abs(reference(inputs)["C"])
    e = inputs["K"] * 2.0 ** -24 * (np.abs(a) @ np.abs(b))
    return (2.0 ** -8 + 2.0 ** -23) * ref + 2 * e + 1e-30, \
        "2^-8 |ref| + 2^-23 |ref| + 2 K 2^-24 (|A||B|)"
