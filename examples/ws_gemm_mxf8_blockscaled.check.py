"""Reference for tcgen05-sim --check: ws_gemm_mxf8_blockscaled.mlir, the MXFP8 GEMM
C (M x N, bf16) = (A * SFA) x (B * SFB)^T with A (M x K) and B (N x K) e4m3, row-major
(K contiguous), and one ue8m0 scale factor per 32 consecutive K elements of a row
(kind::mxf8f6f4, block 32). Sizes from SCALARS or the command line:

    tcgen05-sim examples/ws_gemm_mxf8_blockscaled.mlir \\
        --check examples/ws_gemm_mxf8_blockscaled.check.py --set M=200 --set N=136 --set K=400

The scale factors are stored in the blocked layout the kernel's TMA loads and
tcgen05.cp.32x128b.warpx4 copies read (documented in the kernel): for row r of tile
t = r // 128 and K block kb = k // 128 (128 elements), the 16 bytes of row
(t * ceildiv(K, 128) + kb) * 32 + r % 32 hold, at byte 4 * ((r % 128) // 32) + j, the
factor of elements 128 kb + 32 j .. + 31 (tmem-facts section 3: entry i at lane i mod 32,
column i div 32, byte j). The reference reads that layout back into one factor per
(row, 32-element block) and decodes codes and elements with ml_dtypes (float8_e8m0fnu,
float8_e4m3fn), independently of the compiler and the simulator. K must be a multiple
of 16 (TMA's 16-byte row stride of A and B).

Tolerance: the simulator sums each MMA's products exactly and rounds to f32 once per
MMA (K / 32 roundings, at most K of them), then the epilogue rounds to bf16 (round to
nearest even, unit roundoff 2^-8): |C - ref| <= 2^-8 |ref| + (1 + 2^-8) K 2^-24
(|A * SFA| @ |B * SFB|^T), the gamma_K bound of floating-point summation plus one
rounding.
"""

import ml_dtypes
import numpy as np

#: One CTA (M, N < 128) and four K blocks (the last one partial), so the 2-stage ring
#: wraps; none of the sizes is a multiple of the tile.
SCALARS = {"M": 100, "N": 120, "K": 400}
TILE, KBLOCK, BLOCK = 128, 128, 32
#: ue8m0 codes 120..133: factors 2^-7 .. 2^6 (code 255 would be NaN, 9.7.16.10.9.1).
INPUT_RANGES = {"SFA": (120, 134), "SFB": (120, 134)}


def _cdiv(a, b):
    return -(-a // b)


def BUFFERS(s):
    m, n, k = s["M"], s["N"], s["K"]
    kb = _cdiv(k, KBLOCK)
    return {"A": ("float8_e4m3fn", (m, k)), "B": ("float8_e4m3fn", (n, k)),
            "SFA": ("uint8", (_cdiv(m, TILE) * kb * 32, 16)),
            "SFB": ("uint8", (_cdiv(n, TILE) * kb * 32, 16)),
            "C": ("bfloat16", (m, n))}


def factors(blocked, rows, k):
    """The (rows x K) factor of every element from the blocked layout (module docstring),
    decoded as ue8m0 with ml_dtypes."""
    r = np.arange(rows)[:, None]
    kk = np.arange(k)[None, :]
    kblocks = _cdiv(k, KBLOCK)
    line = ((r // TILE) * kblocks + kk // KBLOCK) * 32 + r % 32
    byte = 4 * ((r % TILE) // 32) + (kk % KBLOCK) // BLOCK
    codes = np.ascontiguousarray(blocked[line, byte]).astype(np.uint8)
    return codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)


def _scaled(inputs):
    m, n, k = inputs["M"], inputs["N"], inputs["K"]
    a = inputs["A"].astype(np.float64) * factors(inputs["SFA"], m, k)
    b = inputs["B"].astype(np.float64) * factors(inputs["SFB"], n, k)
    return a, b


def reference(inputs):
    a, b = _scaled(inputs)
    return {"C": a @ b.T}


def bound(name, inputs):
    a, b = _scaled(inputs)
    k = inputs["K"]
    ref = np.abs(a @ b.T)
    return (2.0 ** -8 * ref + (1 + 2.0 ** -8) * k * 2.0 ** -24 * (np.abs(a) @ np.abs(b).T)
            + 1e-30, f"2^-8|ref| + (1+2^-8) K 2^-24 (|A SFA||B SFB|^T), K = {k}")
