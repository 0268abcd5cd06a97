"""Reference for tcgen05-sim --check: ws_gemm_mxf8_blockscaled_2cta.mlir, the MXFP8 GEMM
C (M x N, bf16) = (A * SFA) x (B * SFB)^T on CTA pairs, A (M x K) and B (N x K) e4m3,
row-major (K contiguous), one ue8m0 scale factor per 32 consecutive K elements of a row
(kind::mxf8f6f4, block 32). Sizes from SCALARS or the command line:

    tcgen05-sim examples/ws_gemm_mxf8_blockscaled_2cta.mlir \\
        --check examples/ws_gemm_mxf8_blockscaled_2cta.check.py --set M=300 --set N=136

The scale factors are in the blocked layouts the kernel documents: SFA's 32 rows from
((p * ceildiv(K, 128) + kb) * 2 + r) * 32 hold K block kb (128 elements) of rows
256 p + 128 r .. + 127 of A (the pair tile p, the CTA r of the pair), row m at line
+ m % 32, byte 4 * ((m % 128) // 32) + j for the factor of elements 128 kb + 32 j .. + 31;
SFB is the one-CTA example's, tile t = n // 128: line (t * ceildiv(K, 128) + kb) * 32
+ n % 32, the same bytes. The reference reads those layouts back into one factor per
(row, 32-element block) and decodes codes and elements with ml_dtypes (float8_e8m0fnu,
float8_e4m3fn), independently of the compiler and the simulator. K must be a multiple
of 16 (TMA's 16-byte row stride of A and B).

Tolerance (as the one-CTA example's): each MMA's products summed exactly and rounded to
f32 once per MMA, then to bf16 by the epilogue: |C - ref| <= 2^-8 |ref|
+ (1 + 2^-8) K 2^-24 (|A * SFA| @ |B * SFB|^T).
"""

import ml_dtypes
import numpy as np

#: One pair (M < 256, both CTAs' rows in use: M > 128), one N tile, four K blocks (the
#: last one partial), so the 2-stage ring wraps; no size is a multiple of the tile.
SCALARS = {"M": 150, "N": 72, "K": 400}
PAIR_M, TILE_N, KBLOCK, BLOCK = 256, 128, 128, 32
#: ue8m0 codes 120..133: factors 2^-7 .. 2^6 (code 255 would be NaN, 9.7.16.10.9.1).
INPUT_RANGES = {"SFA": (120, 134), "SFB": (120, 134)}


def _cdiv(a, b):
    return -(-a // b)


def BUFFERS(s):
    m, n, k = s["M"], s["N"], s["K"]
    kb = _cdiv(k, KBLOCK)
    return {"A": ("float8_e4m3fn", (m, k)), "B": ("float8_e4m3fn", (n, k)),
            "SFA": ("uint8", (_cdiv(m, PAIR_M) * kb * 64, 16)),
            "SFB": ("uint8", (_cdiv(n, TILE_N) * kb * 32, 16)),
            "C": ("bfloat16", (m, n))}


def _decode(blocked, line, byte):
    codes = np.ascontiguousarray(blocked[line, byte]).astype(np.uint8)
    return codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float64)


def factors_a(blocked, rows, k):
    """The (rows x K) factor of every element of A (SFA's pair layout)."""
    r = np.arange(rows)[:, None]
    kk = np.arange(k)[None, :]
    kblocks = _cdiv(k, KBLOCK)
    pair, cta = r // PAIR_M, (r % PAIR_M) // 128
    line = ((pair * kblocks + kk // KBLOCK) * 2 + cta) * 32 + r % 32
    byte = 4 * ((r % 128) // 32) + (kk % KBLOCK) // BLOCK
    return _decode(blocked, line, byte)


def factors_b(blocked, rows, k):
    """The (rows x K) factor of every element of B (SFB's one-CTA layout)."""
    r = np.arange(rows)[:, None]
    kk = np.arange(k)[None, :]
    kblocks = _cdiv(k, KBLOCK)
    line = ((r // TILE_N) * kblocks + kk // KBLOCK) * 32 + r % 32
    byte = 4 * ((r % TILE_N) // 32) + (kk % KBLOCK) // BLOCK
    return _decode(blocked, line, byte)


def _scaled(inputs):
    m, n, k = inputs["M"], inputs["N"], inputs["K"]
    a = inputs["A"].astype(np.float64) * factors_a(inputs["SFA"], m, k)
    b = inputs["B"].astype(np.float64) * factors_b(inputs["SFB"], n, k)
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
