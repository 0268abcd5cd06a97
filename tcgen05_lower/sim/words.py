"""Machine words of the simulator: thread status codes, the base of the kernel's shared
memory, bit masks and unsigned dtypes by width, and the conversions between raw register
bits and signed or floating-point numbers. The executor (``Machine``) and the instruction
handlers (``ops``, ``tcgen05_ops``) share them; this module imports neither.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim.state import SimError

#: What a thread is doing: running, or waiting at a barrier, an mbarrier, a cluster
#: barrier, or exited.
RUN, BAR, MBAR, CBAR, EXIT = 0, 1, 2, 3, 4

#: Shared memory below this address is not handed to the kernel (CUDA reserves 1 KB of
#: each block's shared memory for the system on sm_80 and later); starting the kernel's
#: variables above 0 catches a kernel that assumes its shared memory starts at address 0.
SMEM_BASE = 1024

MASK = MappingProxyType({8: np.uint64(0xFF), 16: np.uint64(0xFFFF), 32: np.uint64(0xFFFFFFFF),
                         64: np.uint64(0xFFFFFFFFFFFFFFFF)})
UINT = MappingProxyType({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64})
ALL = slice(None)


def parse_type(part: str) -> tuple[str, int] | None:
    """``"u32"`` -> ("u", 32); ``"pred"`` -> ("pred", 1); else None."""
    if part == "pred":
        return ("pred", 1)
    if len(part) >= 2 and part[0] in "bsuf" and part[1:].isdigit():
        return (part[0], int(part[1:]))
    return None


def to_signed(v: np.ndarray, bits: int) -> np.ndarray:
    """The two's-complement value of the low ``bits`` bits, as int64."""
    v = np.asarray(v, dtype=np.uint64) & MASK[bits]
    if bits == 64:
        return v.view(np.int64) if v.ndim else np.int64(v.astype(np.int64))
    s = v.astype(np.int64)
    sign = np.int64(1 << (bits - 1))
    return (s ^ sign) - sign


def from_signed(v, bits: int) -> np.ndarray:
    return np.asarray(v, dtype=np.int64).astype(np.uint64) & MASK[bits]


def to_float(v: np.ndarray, bits: int) -> np.ndarray:
    v = np.asarray(v, dtype=np.uint64)
    if bits == 32:
        return (v & MASK[32]).astype(np.uint32).view(np.float32)
    if bits == 64:
        return v.view(np.float64)
    if bits == 16:
        return (v & MASK[16]).astype(np.uint16).view(np.float16)
    raise SimError(f".f{bits} is not supported")


def from_float(f: np.ndarray, bits: int) -> np.ndarray:
    if bits == 32:
        return np.asarray(f, dtype=np.float32).view(np.uint32).astype(np.uint64)
    if bits == 64:
        return np.asarray(f, dtype=np.float64).view(np.uint64).copy()
    if bits == 16:
        return np.asarray(f, dtype=np.float16).view(np.uint16).astype(np.uint64)
    raise SimError(f".f{bits} is not supported")


def mul_hi_u64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The high 64 bits of the 128-bit product of two uint64 arrays (32-bit halves)."""
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a_lo, a_hi = a & m32, a >> s32
    b_lo, b_hi = b & m32, b >> s32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> s32) + (hi_lo & m32) + lo_hi
    return hi_hi + (hi_lo >> s32) + (cross >> s32)
