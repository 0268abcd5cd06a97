"""Reference for tcgen05-sim --check: gemm_bf16_grid.mlir, the whole GEMM
C (M x N, f32) = A (M x K, bf16) x B (K x N, bf16), all row-major, on its grid of
ceildiv(N, 256) x ceildiv(M, 128) CTAs. Sizes from SCALARS or the command line:

    tcgen05-sim examples/gemm_bf16_grid.mlir --check examples/gemm_bf16_grid.check.py \\
        --set M=200 --set N=300 --set K=72

lda and ldb default to K and N (a K that is not a multiple of 8 leaves A's rows
unaligned to 16 bytes: the fill then reads A element by element); larger ones
(--set lda=...) leave columns of A and B that the reference does not use, so a kernel
that read them would get a wrong C. C has ldc = N: its every element is
checked, and one the kernel leaves unwritten stays NaN."""

import numpy as np

SCALARS = {"M": 256, "N": 512, "K": 128}


def derived(scalars):
    return {"lda": scalars["K"], "ldb": scalars["N"], "ldc": scalars["N"]}


def BUFFERS(s):
    return {"A": ("bfloat16", (s["M"], s["lda"])), "B": ("bfloat16", (s["K"], s["ldb"])),
            "C": ("float32", (s["M"], s["ldc"]))}


def _operands(inputs):
    k, n = inputs["K"], inputs["N"]
    return (inputs["A"][:, :k].astype(np.float64), inputs["B"][:, :n].astype(np.float64))


def reference(inputs):
    if inputs["ldc"] != inputs["N"]:
        raise ValueError("this check compares all of C: ldc must be N")
    a, b = _operands(inputs)
    return {"C": a @ b}


def bound(name, inputs):
    # Summing K exact bf16 x bf16 products in f32 in any order: |error| <= K * 2^-24 *
    # (|A| @ |B|) (the gamma_K bound of floating-point summation).
    a, b = _operands(inputs)
    k = inputs["K"]
    return k * 2.0 ** -24 * (np.abs(a) @ np.abs(b)) + 1e-30, f"K*2^-24*(|A||B|), K = {k}"
