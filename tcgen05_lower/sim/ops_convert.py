"""The conversions and floating-point functions of the simulator's instruction set
(``ops``): cvt (PTX ISA 9.7.9.21) between integer and float types, to bf16, to packed
fp8 with .satfinite and to f16x2 / bf16x2, and ex2, copysign, fma, sqrt (9.7.3).
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import fused_plans
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_arith import _fusible, _reader, _type_of
from tcgen05_lower.sim.ops_support import _unknown
from tcgen05_lower.sim.words import (MASK, from_float, from_signed, parse_type, to_float,
                                     to_signed)


def _cvt(ins: P.Instr):
    parts = ins.parts
    if parts[-2] == "bf16" or parts[-2] in _F8X2:
        return _cvt_narrow(ins)
    if parts[-2] in ("f16x2", "bf16x2"):
        return _cvt_pair16(ins)
    dst, src = parse_type(parts[-2]), parse_type(parts[-1])
    mods = set(parts[1:-2])
    if dst is None or src is None:
        raise _unknown(ins)
    int_kinds = ("u", "s", "b")
    if dst[0] in int_kinds and src[0] in int_kinds:
        if mods:
            raise _unknown(ins, "saturating integer conversions")
    elif dst[0] == "f" and src[0] == "f":
        if mods - {"rn", "rz", "rm", "rp", "ftz"}:
            raise _unknown(ins)
    elif dst[0] == "f" or src[0] == "f":
        if mods - {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "ftz", "sat"} or \
                "sat" in mods:
            raise _unknown(ins)
    else:
        raise _unknown(ins)

    def make(m, ins):
        d, a = ins.operands
        read_a = _reader(m, a, src[1], ins)

        def apply(act):
            m.write(d.name, act, _convert(read_a(act), dst, src, mods), dst[1], ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        if dst[0] != "f" and src[0] != "f" and not (src[0] == "s" and dst[1] > src[1]) \
                and dst[1] in MASK and src[1] in MASK:
            # truncation or zero extension: the source's low bits, as a mov of them
            low = min(dst[1], src[1])
            apply.plan_for = lambda at: fused_plans.mov_plan(m, low, a, d, read_a, at)
        return _fusible(run, ins, apply)   # (a body for the fused stretches)
    return make


def _convert(x, dst, src, mods):
    (dk, db), (sk, sb) = dst, src
    if dk != "f" and sk != "f":  # integer: truncate, or extend by the source's signedness
        if sk == "s" and db > sb:
            return from_signed(to_signed(x, sb), db)
        return np.asarray(x, np.uint64) & MASK[db]
    if dk == "f" and sk == "f":
        return from_float(to_float(x, sb).astype({16: np.float16, 32: np.float32,
                                                   64: np.float64}[db]), db)
    if dk == "f":
        v = to_signed(x, sb) if sk == "s" else np.asarray(x, np.uint64)
        return from_float(np.asarray(v).astype({32: np.float32, 64: np.float64}[db]), db)
    f = to_float(x, sb).astype(np.float64)
    rnd = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}
    f = next((fn(f) for key, fn in rnd.items() if key in mods), np.trunc(f))
    if dk == "s":
        lim = 2.0 ** (db - 1)
        f = np.nan_to_num(np.clip(f, -lim, lim - 1), nan=0.0)
        return from_signed(f.astype(np.int64), db)
    f = np.nan_to_num(np.clip(f, 0, 2.0 ** db - 1), nan=0.0)
    return f.astype(np.uint64) & MASK[db]


# -- conversions to bf16 and fp8 (9.7.9.21 cvt) -------------------------------------------

#: cvt's packed fp8 destination types -> (NumPy dtype name in ml_dtypes, largest finite).
_F8X2 = MappingProxyType({"e4m3x2": ("float8_e4m3fn", 448.0),
                          "e5m2x2": ("float8_e5m2", 57344.0)})


def bf16_round(bits32: np.ndarray) -> np.ndarray:
    """The bf16 bits (uint64) of f32 values (their bits) rounded to nearest even: the
    upper 16 bits plus a carry from the lower 16 by round-half-to-even; a NaN stays a
    (quiet) NaN of the same sign."""
    b = np.asarray(bits32, np.uint64) & MASK[32]
    nan = (b & np.uint64(0x7FFFFFFF)) > np.uint64(0x7F800000)
    rounded = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    quiet = (b >> np.uint64(16)) | np.uint64(0x40)
    return np.where(nan, quiet, rounded) & MASK[16]


def f8_satfinite(values: np.ndarray, kind: str) -> np.ndarray:
    """The fp8 bits (uint64) of float values converted with .rn.satfinite: round to
    nearest even, a finite or infinite value beyond the largest finite (MAX_NORM)
    becomes MAX_NORM of its sign, NaN stays NaN."""
    import ml_dtypes

    name, top = _F8X2[kind]
    clipped = np.clip(np.asarray(values, np.float32), -top, top)  # NaN passes through
    return clipped.astype(getattr(ml_dtypes, name)).view(np.uint8).astype(np.uint64)


def _cvt_narrow(ins: P.Instr):
    """``cvt.rn.bf16.{f32,f16} d, a`` (d .b16) and ``cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32
    d, a, b`` (d .b16: a converted into the upper byte, b into the lower)."""
    parts = ins.parts
    mods = set(parts[1:-2])
    dst, src = parts[-2], parts[-1]
    if src != "f32" and not (dst == "bf16" and src == "f16"):
        raise _unknown(ins)
    if dst == "bf16" and mods != {"rn"}:
        raise _unknown(ins, "only .rn conversions to bf16")
    if dst in _F8X2 and mods != {"rn", "satfinite"}:
        raise _unknown(ins, "only .rn.satfinite conversions to fp8")

    def make(m, ins):
        if dst == "bf16":
            d, a = ins.operands
        else:
            d, a, b = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = m.read(a, act, 16 if src == "f16" else 32, ins)
            if src == "f16":  # exact in f32, then rounded once (9.7.9.21)
                x = from_float(to_float(x, 16).astype(np.float32), 32)
            if dst == "bf16":
                r = bf16_round(x)
            else:
                hi = f8_satfinite(to_float(x, 32), dst)
                lo = f8_satfinite(to_float(m.read(b, act, 32, ins), 32), dst)
                r = (hi << np.uint64(8)) | lo
            m.write(d.name, act, r, 16, ins)
            m.advance(idx)
        return run
    return make


def _cvt_pair16(ins: P.Instr):
    """``cvt.rn.{f16x2,bf16x2}.f32 d, a, b`` (PTX ISA 9.7.9.21, cvt): d (.b32) holds a
    converted into its upper half and b into its lower half, each rounded to nearest
    even."""
    parts = ins.parts
    if set(parts[1:-2]) != {"rn"} or parts[-1] != "f32":
        raise _unknown(ins, "only .rn conversions of two f32 to f16x2 / bf16x2")
    half = parts[-2][:-2]

    def convert(bits):
        if half == "bf16":
            return bf16_round(bits)
        return to_float(bits, 32).astype(np.float16).view(np.uint16).astype(np.uint64)

    def make(m, ins):
        d, a, b = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            hi = convert(np.asarray(m.read(a, act, 32, ins), np.uint64))
            lo = convert(np.asarray(m.read(b, act, 32, ins), np.uint64))
            m.write(d.name, act, (hi << np.uint64(16)) | lo, 32, ins)
            m.advance(idx)
        return run
    return make


# -- ex2, copysign, fma, sqrt (9.7.3 floating-point instructions) ----------------------------

def _float_only(ins: P.Instr, allowed: set) -> int:
    kind, bits = _type_of(ins)
    if kind != "f" or bits != 32 or set(ins.parts[1:-1]) - allowed:
        raise _unknown(ins)
    return bits


def _flush(f: np.ndarray, ftz: bool) -> np.ndarray:
    """.ftz: subnormal f32 values become zero of the same sign."""
    if not ftz:
        return f
    tiny = np.abs(f) < np.float32(2.0 ** -126)
    return np.where(tiny & (f != 0), np.copysign(np.float32(0), f), f).astype(np.float32)


def _ex2(ins: P.Instr):
    """ex2.approx{.ftz}.f32 d, a: 2^a. The hardware approximates (a maximum relative
    error of about 2^-22 in the ISA's table); the model rounds the exact value to f32,
    which is within that error of what the hardware gives."""
    if "approx" not in ins.parts:
        raise _unknown(ins, "only ex2.approx")
    _float_only(ins, {"approx", "ftz"})
    ftz = "ftz" in ins.parts

    def make(m, ins):
        d, a = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = _flush(to_float(m.read(a, act, 32, ins), 32), ftz)
            with np.errstate(over="ignore"):
                r = _flush(np.exp2(x.astype(np.float64)).astype(np.float32), ftz)
            m.write(d.name, act, from_float(r, 32), 32, ins)
            m.advance(idx)
        return run
    return make


def _copysign(ins: P.Instr):
    """copysign.f32 d, a, b: b with the sign of a."""
    _float_only(ins, set())

    def make(m, ins):
        d, a, b = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            sign = m.read(a, act, 32, ins) & np.uint64(0x80000000)
            magnitude = m.read(b, act, 32, ins) & np.uint64(0x7FFFFFFF)
            m.write(d.name, act, sign | magnitude, 32, ins)
            m.advance(idx)
        return run
    return make


def _fma(ins: P.Instr):
    """fma.rn{.ftz}.f32 d, a, b, c: a * b + c rounded once (the product of two f32 is
    exact in float64; the float64 sum is rounded to f32, which can differ from a single
    rounding only when that sum is itself inexact, and the model accepts that)."""
    _float_only(ins, {"rn", "ftz"})
    if "rn" not in ins.parts:
        raise _unknown(ins, "only fma.rn")

    def make(m, ins):
        d, a, b, c = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x, y, z = (to_float(m.read(v, act, 32, ins), 32).astype(np.float64)
                       for v in (a, b, c))
            m.write(d.name, act, from_float((x * y + z).astype(np.float32), 32), 32, ins)
            m.advance(idx)
        return run
    return make


def _sqrt(ins: P.Instr):
    """sqrt.rn{.ftz}.f32 d, a: the correctly rounded square root."""
    _float_only(ins, {"rn", "ftz"})
    if "rn" not in ins.parts:
        raise _unknown(ins, "only sqrt.rn")

    def make(m, ins):
        d, a = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = to_float(m.read(a, act, 32, ins), 32)
            with np.errstate(invalid="ignore"):
                r = np.sqrt(x)
            m.write(d.name, act, from_float(r, 32), 32, ins)
            m.advance(idx)
        return run
    return make
