"""The instructions the simulator executes, with their semantics from the PTX ISA
(chapter 9: integer 9.7.1, bit manipulation 9.7.2, logic and shift 9.7.8, comparison
9.7.7, conversion 9.7.9, data movement 9.7.10 (mov, ld, st, shfl), control flow 9.7.13,
parallel synchronization 9.7.14 (barrier, mbarrier, fence), tcgen05 9.7.16), and what
other front ends emit around tcgen05 (Triton, Gluon): ldmatrix / stmatrix
(sim/warp_matrix.py), brx.idx, bar.warp.sync, mbarrier.inval, cvt to f16x2 / bf16x2,
cvta.param of by-value tensor maps (sim/param_space.py), TMA stores and cp.async with
their groups (sim/bulk.py).

``decode(machine, ins)`` returns the handler of one instruction, or raises SimError for an
opcode or modifier outside this set: an unknown instruction is never a silent no-op.
``known(opcode)`` answers the same question for an opcode string (the census test uses it).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import minmax3
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_support import (CLUSTER_RANK_SHIFT, MemoryAccess, Unknown,
                                           _check_mbarrier_address, _shared_target, _unknown)
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import (ALL, BAR, CBAR, EXIT, MASK, MBAR, UINT, from_float,
                                     from_signed, mul_hi_u64, parse_type, to_float, to_signed)

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine

# Modifiers that change nothing in a single-launch functional model: caching and eviction
# hints (9.7.10.9), the default .weak memory semantics.
_CACHE_HINTS = frozenset({"ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "weak"})
_INT_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"})
_FLOAT_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu",
                        "geu", "num", "nan"})


def known(opcode: str) -> bool:
    """Whether ``decode`` accepts an instruction with this opcode (operands aside)."""
    ins = P.Instr(opcode, [], 0, opcode)
    try:
        _handler_for(ins)
    except Unknown:
        return False
    return True


def decode(m: Machine, ins: P.Instr):
    """The handler ``run(ins, idx)`` of one instruction; ``run.straight`` tells the
    executor that it only advances the threads that run it."""
    make = _handler_for(ins)
    run = make(m, ins)
    run.straight = ins.parts[0] in STRAIGHT
    return run


def _type_of(ins: P.Instr, position: int = -1) -> tuple[str, int]:
    t = parse_type(ins.parts[position])
    if t is None:
        raise _unknown(ins, "no operand type")
    return t


def _handler_for(ins: P.Instr):
    parts = ins.parts
    base = parts[0]
    if base in _ALU2:
        return _check_alu(ins)
    table = {
        "mov": _mov, "setp": _setp, "selp": _selp, "not": _not, "cvt": _cvt, "bfe": _bfe,
        "bfi": _bfi, "neg": _neg, "abs": _abs, "mad": _mad, "ld": _ld, "st": _st,
        "bra": _bra, "ret": _ret, "exit": _ret, "barrier": _barrier, "bar": _barrier,
        "mbarrier": _mbarrier, "fence": _fence, "shfl": _shfl, "tcgen05": _tcgen05,
        "mapa": _mapa, "cvta": _cvta, "ex2": _ex2, "copysign": _copysign, "fma": _fma,
        "sqrt": _sqrt, "cp": _cp, "elect": _elect, "setmaxnreg": _setmaxnreg,
        "ldmatrix": _warp_matrix, "stmatrix": _warp_matrix, "brx": _brx,
    }
    if base not in table:
        raise _unknown(ins)
    return table[base](ins)


# -- integer and float arithmetic ----------------------------------------------------------
def _binop(name: str, kind: str, bits: int, a, b, ins: P.Instr):
    if kind == "f":
        fa, fb = to_float(a, bits), to_float(b, bits)
        if name == "add":
            return from_float(fa + fb, bits)
        if name == "sub":
            return from_float(fa - fb, bits)
        if name == "mul":
            return from_float(fa * fb, bits)
        if name == "div":
            return from_float(fa / fb, bits)
        if name in ("min", "max"):
            pick = np.fmin if name == "min" else np.fmax
            if "NaN" in ins.parts:  # .NaN: a NaN input gives the canonical NaN
                pick = np.minimum if name == "min" else np.maximum
                r = pick(fa, fb)
                out = from_float(r, bits)
                nan = np.isnan(r)
                canon = np.uint64(0x7FFFFFFF if bits == 32 else 0x7FFFFFFFFFFFFFFF)
                return np.where(nan, canon, out)
            return from_float(pick(fa, fb), bits)
        raise _unknown(ins)
    signed = kind == "s"
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "and":
        return a & b
    if name == "or":
        return a | b
    if name == "xor":
        return a ^ b
    if name in ("min", "max"):
        if signed:
            sa, sb = to_signed(a, bits), to_signed(b, bits)
            return from_signed(np.minimum(sa, sb) if name == "min" else np.maximum(sa, sb),
                               bits)
        return np.minimum(a, b) if name == "min" else np.maximum(a, b)
    if name == "shl":
        sh = np.asarray(b, dtype=np.uint64) & MASK[32]
        return np.where(sh >= bits, np.uint64(0), a << np.minimum(sh, np.uint64(63)))
    if name == "shr":
        sh = np.minimum(np.asarray(b, dtype=np.uint64) & MASK[32], np.uint64(bits - 1 if
                                                                              signed else 63))
        if signed:
            return from_signed(to_signed(a, bits) >> sh.astype(np.int64), bits)
        return np.where((np.asarray(b, dtype=np.uint64) & MASK[32]) >= bits, np.uint64(0),
                        a >> sh)
    if name in ("div", "rem"):
        if signed:
            sa, sb = to_signed(a, bits), to_signed(b, bits)
            if np.any(sb == 0):
                raise SimError(f"{ins.opcode}: division by zero")
            q = np.trunc(sa / sb).astype(np.int64) if bits < 64 else \
                np.sign(sa) * np.sign(sb) * (np.abs(sa) // np.abs(sb))
            return from_signed(q if name == "div" else sa - q * sb, bits)
        if np.any(np.asarray(b) == 0):
            raise SimError(f"{ins.opcode}: division by zero")
        return a // b if name == "div" else a % b
    raise _unknown(ins)


_ALU2 = frozenset({"add", "sub", "and", "or", "xor", "min", "max", "shl", "shr", "mul", "div",
                   "rem"})
STRAIGHT = _ALU2 | {"mov", "setp", "selp", "not", "cvt", "bfe", "bfi", "neg", "abs", "mad",
                    "ld", "st", "mapa", "ex2", "copysign", "fma", "sqrt"}


def _check_alu(ins: P.Instr):
    parts = ins.parts
    base = parts[0]
    kind, bits = _type_of(ins)
    mods = set(parts[1:-1])
    if base == "mul":
        mode = mods & {"lo", "hi", "wide"}
        if kind != "f" and len(mode) != 1:
            raise _unknown(ins, "mul needs .lo, .hi or .wide")
        extra = mods - {"lo", "hi", "wide", "rn", "rz", "rm", "rp", "ftz"}
        if extra:
            raise _unknown(ins, "modifiers " + ", ".join(sorted(extra)))
        return lambda m, ins: _mul_handler(m, ins, kind, bits, mode)
    # float add/sub/mul round to nearest (.rn, the default); min/max may carry .NaN
    allowed = ({"NaN", "ftz"} if base in ("min", "max") else {"rn", "ftz"}) \
        if kind == "f" else set()
    if mods - allowed:
        raise _unknown(ins, "modifiers " + ", ".join(sorted(mods - allowed)))
    if kind == "f" and base in ("and", "or", "xor", "shl", "shr", "rem"):
        raise _unknown(ins)
    if kind == "pred":
        return lambda m, ins: _pred_logic(m, ins, base)
    return lambda m, ins: _alu_handler(m, ins, base, kind, bits)


def _alu_handler(m: Machine, ins: P.Instr, base: str, kind: str, bits: int):
    if minmax3.is_three_input(ins, base):  # max.f32 d, a, b, c (sim/minmax3.py)
        return minmax3.handler(m, ins, base, kind, bits)
    d, a, b = ins.operands
    rbits = 32 if base in ("shl", "shr") else bits
    read_a, read_b = _reader(m, a, bits, ins), _reader(m, b, rbits, ins)

    def run(ins, idx):
        act = m.guarded(ins, idx)
        if act is ALL or len(act):
            m.write(d.name, act, _binop(base, kind, bits, read_a(act), read_b(act), ins),
                    bits, ins)
        m.advance(idx)
    return run


def _reader(m: Machine, op, bits: int, ins: P.Instr):
    """``m.read(op, act, bits, ins)`` as a function of ``act`` for the hot ALU handlers:
    a register's array and mask, or an immediate's bits, looked up at the first read
    (where m.read would report an undeclared register) and kept (a register's array is
    created once and written in place)."""
    if isinstance(op, P.Imm):
        cache = []

        def immediate(act):
            if not cache:
                cache.append(m.read(op, act, bits, ins))
            return cache[0]
        return immediate
    if not isinstance(op, P.Reg):
        return lambda act: m.read(op, act, bits, ins)
    mask, found = MASK[bits], []

    def register(act):
        if not found:
            found.append(m.reg(op.name, ins))
        arr = found[0]
        return arr[act].astype(np.uint64) if arr.dtype == bool else arr[act] & mask
    return register


def _pred_logic(m: Machine, ins: P.Instr, base: str):
    d, a, b = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        x = m.read(a, act, 1, ins).astype(bool)
        y = m.read(b, act, 1, ins).astype(bool)
        r = {"and": x & y, "or": x | y, "xor": x ^ y}[base]
        m.write(d.name, act, r, 1, ins)
        m.advance(idx)
    return run


def _mul_handler(m: Machine, ins: P.Instr, kind: str, bits: int, mode: set):
    d, a, b = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        x, y = m.read(a, act, bits, ins), m.read(b, act, bits, ins)
        m.write(d.name, act, _mul(kind, bits, mode, x, y, ins),
                2 * bits if "wide" in mode else bits, ins)
        m.advance(idx)
    return run


def _mul(kind: str, bits: int, mode: set, x, y, ins: P.Instr):
    if kind == "f":
        return from_float(to_float(x, bits) * to_float(y, bits), bits)
    signed = kind == "s"
    if "wide" in mode:
        if bits > 32:
            raise _unknown(ins, "mul.wide of 64-bit operands")
        if signed:
            return from_signed(to_signed(x, bits) * to_signed(y, bits), 2 * bits)
        return np.asarray(x, np.uint64) * np.asarray(y, np.uint64)
    if "lo" in mode:
        return np.asarray(x, np.uint64) * np.asarray(y, np.uint64)
    # .hi
    if bits < 64:
        if signed:
            return from_signed((to_signed(x, bits) * to_signed(y, bits)) >> bits, bits)
        return (np.asarray(x, np.uint64) * np.asarray(y, np.uint64)) >> np.uint64(bits)
    x = np.asarray(x, np.uint64) * np.ones(1, np.uint64)
    y = np.asarray(y, np.uint64) * np.ones(1, np.uint64)
    hi = mul_hi_u64(x, y)
    if signed:  # signed high part from the unsigned one
        hi = hi - np.where(x >> np.uint64(63), y, 0) - np.where(y >> np.uint64(63), x, 0)
    return hi


def _mad(ins: P.Instr):
    kind, bits = _type_of(ins)
    mode = set(ins.parts[1:-1])
    if kind == "f":
        if mode - {"rn", "ftz"}:
            raise _unknown(ins)
    elif len(mode & {"lo", "hi", "wide"}) != 1 or mode - {"lo", "hi", "wide"}:
        raise _unknown(ins, "mad needs .lo, .hi or .wide")

    def make(m: Machine, ins: P.Instr):
        d, a, b, c = ins.operands
        wbits = 2 * bits if "wide" in mode else bits

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x, y = m.read(a, act, bits, ins), m.read(b, act, bits, ins)
            z = m.read(c, act, wbits, ins)
            if kind == "f":  # mad.f32 is fused (fma), computed in float64 then rounded
                r = from_float((to_float(x, bits).astype(np.float64) *
                                to_float(y, bits) + to_float(z, bits)), bits)
            else:
                r = _mul(kind, bits, mode, x, y, ins) + z
            m.write(d.name, act, r, wbits, ins)
            m.advance(idx)
        return run
    return make


def _unary(apply):
    """neg / abs: ``apply`` on the float value (.f types) or the signed value (.s types)."""
    def handler(ins: P.Instr):
        kind, bits = _type_of(ins)

        def make(m, ins):
            d, a = ins.operands

            def run(ins, idx):
                act = m.guarded(ins, idx)
                x = m.read(a, act, bits, ins)
                r = from_float(apply(to_float(x, bits)), bits) if kind == "f" else \
                    from_signed(apply(to_signed(x, bits)), bits)
                m.write(d.name, act, r, bits, ins)
                m.advance(idx)
            return run
        return make
    return handler


_neg = _unary(np.negative)
_abs = _unary(np.abs)


def _not(ins: P.Instr):
    kind, bits = _type_of(ins)
    if len(ins.parts) != 2 or kind not in ("b", "pred"):
        raise _unknown(ins)

    def make(m, ins):
        d, a = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = m.read(a, act, bits, ins)
            r = (x == 0) if kind == "pred" else ~np.asarray(x, np.uint64)
            m.write(d.name, act, r, bits, ins)
            m.advance(idx)
        return run
    return make


def _mov(ins: P.Instr):
    kind, bits = _type_of(ins)
    if len(ins.parts) != 2:
        raise _unknown(ins)

    def make(m, ins):
        d, a = ins.operands
        if isinstance(d, P.Vec) and isinstance(a, (P.Reg, P.Imm)) or \
                isinstance(a, P.Vec) and isinstance(d, P.Reg):
            return _mov_vector(m, ins, d, a, kind, bits)
        if not isinstance(d, P.Reg) or isinstance(a, (P.Vec, P.Addr)):
            raise _unknown(ins, "only scalar register moves")
        read_a = _reader(m, a, bits, ins)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            m.write(d.name, act, read_a(act), bits, ins)
            m.advance(idx)
        return run
    return make


def _mov_vector(m, ins, d, a, kind, bits: int):
    """The pack and unpack forms of mov (PTX ISA, mov: ``mov.b32 {lo, hi}, %r``
    splits a .b32 into two .b16, ``mov.b32 %r, {lo, hi}`` joins them; likewise .b64 into
    two .b32 or four .b16, and .b16 into two 8-bit halves): element 0 of the vector is the
    least significant part."""
    vector = d if isinstance(d, P.Vec) else a
    count = len(vector.items)
    if kind != "b" or count not in (2, 4) or bits % count:
        raise _unknown(ins, "a vector mov other than .b16/.b32/.b64 into 2 or 4 parts")
    part = bits // count
    mask = np.uint64((1 << part) - 1)

    def unpack(ins, idx):
        act = m.guarded(ins, idx)
        x = np.asarray(m.read(a, act, bits, ins), np.uint64)
        for j, item in enumerate(d.items):
            if isinstance(item, P.Reg) and item.name != "_":  # "_" discards a part
                m.write(item.name, act, (x >> np.uint64(j * part)) & mask, part, ins)
        m.advance(idx)

    def pack(ins, idx):
        act = m.guarded(ins, idx)
        x = np.uint64(0)
        for j, item in enumerate(a.items):
            x = x | ((np.asarray(m.read(item, act, part, ins), np.uint64) & mask)
                     << np.uint64(j * part))
        m.write(d.name, act, x, bits, ins)
        m.advance(idx)
    return unpack if isinstance(d, P.Vec) else pack


def _selp(ins: P.Instr):
    kind, bits = _type_of(ins)

    def make(m, ins):
        d, a, b, c = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            p = m.read(c, act, 1, ins).astype(bool)
            m.write(d.name, act, np.where(p, m.read(a, act, bits, ins),
                                          m.read(b, act, bits, ins)), bits, ins)
            m.advance(idx)
        return run
    return make


def _compare(cmp: str, kind: str, bits: int, x, y):
    if kind == "f":
        fx, fy = to_float(x, bits), to_float(y, bits)
        unordered = np.isnan(fx) | np.isnan(fy)
        base = cmp.rstrip("u") if cmp not in ("num", "nan") else cmp
        if cmp == "num":
            return ~unordered
        if cmp == "nan":
            return unordered
        r = {"eq": fx == fy, "ne": fx != fy, "lt": fx < fy, "le": fx <= fy, "gt": fx > fy,
             "ge": fx >= fy}[base]
        if cmp.endswith("u") and cmp != "ne":
            return r | unordered
        return r & ~unordered
    if kind == "s":
        x, y = to_signed(x, bits), to_signed(y, bits)
    table = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
             "gt": np.greater, "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal,
             "hi": np.greater, "hs": np.greater_equal}
    return table[cmp](x, y)


def _setp(ins: P.Instr):
    parts = ins.parts
    kind, bits = _type_of(ins)
    mods = parts[1:-1]
    cmps = _FLOAT_CMP if kind == "f" else _INT_CMP
    if not mods or mods[0] not in cmps or set(mods[1:]) - {"ftz"}:
        raise _unknown(ins)
    if kind == "b" and mods[0] not in ("eq", "ne"):
        raise _unknown(ins, "bit-size types compare only with eq/ne")
    cmp = mods[0]

    def make(m, ins):
        if len(ins.operands) != 3:
            raise _unknown(ins, "setp with a second destination or a combining predicate")
        d, a, b = ins.operands
        dname = d.name.split("|")[0]
        read_a, read_b = _reader(m, a, bits, ins), _reader(m, b, bits, ins)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            r = _compare(cmp, kind, bits, read_a(act), read_b(act))
            m.write(dname, act, r, 1, ins)
            m.advance(idx)
        return run
    return make


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

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = read_a(act)
            m.write(d.name, act, _convert(x, dst, src, mods), dst[1], ins)
            m.advance(idx)
        return run
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


def _bfe(ins: P.Instr):
    kind, bits = _type_of(ins)
    if len(ins.parts) != 2 or kind not in ("u", "s"):
        raise _unknown(ins)

    def make(m, ins):
        d, a, b, c = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = m.read(a, act, bits, ins)
            pos = m.read(b, act, 32, ins) & np.uint64(0xFF)
            length = m.read(c, act, 32, ins) & np.uint64(0xFF)
            m.write(d.name, act, bit_extract(x, pos, length, bits, kind == "s"), bits, ins)
            m.advance(idx)
        return run
    return make


def bit_extract(x, pos, length, bits: int, signed: bool):
    """bfe (9.7.2.x): bits pos..pos+len-1 of x, zero- or sign-extended."""
    x = np.asarray(x, np.uint64)
    pos = np.asarray(pos, np.uint64)
    length = np.asarray(length, np.uint64)
    avail = np.where(pos >= bits, np.uint64(0), np.uint64(bits) - np.minimum(pos, np.uint64(bits)))
    n = np.minimum(length, avail)
    shifted = x >> np.minimum(pos, np.uint64(63))
    field = np.where(n >= 64, shifted, shifted & ((np.uint64(1) << np.minimum(n, np.uint64(63)))
                                                  - np.uint64(1)))
    field = np.where(n == 0, np.uint64(0), field)
    if not signed:
        return field
    top = np.minimum(pos + length - np.uint64(1), np.uint64(bits - 1))
    sbit = np.where(length == 0, np.uint64(0), (x >> np.minimum(top, np.uint64(63))) & np.uint64(1))
    fill = ~((np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1))
    fill = np.where(n >= 64, np.uint64(0), fill)
    return np.where(sbit == 1, field | fill, field) & MASK[bits]


def _bfi(ins: P.Instr):
    kind, bits = _type_of(ins)
    if len(ins.parts) != 2 or kind != "b":
        raise _unknown(ins)

    def make(m, ins):
        d, a, b, c, e = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x, y = m.read(a, act, bits, ins), m.read(b, act, bits, ins)
            pos = m.read(c, act, 32, ins) & np.uint64(0xFF)
            length = m.read(e, act, 32, ins) & np.uint64(0xFF)
            n = np.minimum(length, np.where(pos >= bits, 0, bits - np.minimum(pos, bits)))
            ones = np.where(n >= 64, MASK[64], (np.uint64(1) << np.minimum(n, np.uint64(63)))
                            - np.uint64(1))
            sh = np.minimum(pos, np.uint64(63))
            r = (y & ~(ones << sh)) | ((x & ones) << sh)
            m.write(d.name, act, r, bits, ins)
            m.advance(idx)
        return run
    return make


# -- memory ------------------------------------------------------------------------------
def _memory_form(ins: P.Instr):
    """(state space, vector count, element bytes) of an ld/st, or Unknown."""
    parts = ins.parts
    kind_bits = parse_type(parts[-1])
    if kind_bits is None or kind_bits[0] == "pred":
        raise _unknown(ins)
    space, vec = None, 1
    for p in parts[1:-1]:
        if p in ("global", "shared", "shared::cta", "param", "shared::cluster"):
            if space is not None:
                raise _unknown(ins)
            space = p
        elif p in ("v2", "v4", "v8"):
            vec = int(p[1:])
        elif p in _CACHE_HINTS or p.startswith("L2::") or p.startswith("L1::"):
            continue
        else:
            raise _unknown(ins, f"modifier .{p}")
    if space is None:
        raise _unknown(ins, "generic addressing")
    if space == "shared":
        space = "shared::cta"
    return space, vec, kind_bits


def _ld(ins: P.Instr):
    space, vec, (kind, bits) = _memory_form(ins)

    def make(m, ins):
        d, a = ins.operands
        dsts = list(d.items) if isinstance(d, P.Vec) else [d]
        if len(dsts) != vec:
            raise SimError("vector width and destination count differ", ins.line, ins.text)
        nbytes = max(bits // 8, 1)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            if act is ALL or len(act):
                addr = None if space == "param" else m.address(a, act, ins)
                values = load(m, space, act, addr, nbytes, vec, ins)
                for j, r in enumerate(dsts):
                    v = values[:, j]
                    if kind == "s" and m.reg_bits(r.name) > bits:  # sign-extend (9.7.10.8)
                        v = from_signed(to_signed(v, bits), m.reg_bits(r.name))
                    m.write(r.name, act, v, m.reg_bits(r.name), ins)
            m.advance(idx)
        return run
    return make


def _st(ins: P.Instr):
    space, vec, (kind, bits) = _memory_form(ins)
    if space == "param":
        raise _unknown(ins)

    def make(m, ins):
        a, s = ins.operands
        srcs = list(s.items) if isinstance(s, P.Vec) else [s]
        if len(srcs) != vec:
            raise SimError("vector width and source count differ", ins.line, ins.text)
        nbytes = max(bits // 8, 1)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            if act is ALL or len(act):
                n = m.nthreads if act is ALL else len(act)
                values = np.empty((n, vec), np.uint64)
                for j, r in enumerate(srcs):
                    values[:, j] = m.read(r, act, bits, ins)
                store(m, space, act, m.address(a, act, ins), nbytes, vec, values, ins)
            m.advance(idx)
        return run
    return make


def _byte_offsets(addr, nbytes: int, vec: int):
    return np.asarray(addr, np.int64).reshape(-1, 1) + np.arange(nbytes * vec)


def _assemble(raw: np.ndarray, nbytes: int, vec: int) -> np.ndarray:
    """(n, nbytes*vec) uint8 -> (n, vec) uint64, little-endian."""
    return np.ascontiguousarray(raw).view(UINT[nbytes]).reshape(-1, vec).astype(np.uint64)


def _split(values: np.ndarray, nbytes: int) -> np.ndarray:
    return np.ascontiguousarray(values.astype(UINT[nbytes])).view(np.uint8).reshape(
        values.shape[0], -1)


def _check_aligned(addr, size: int, what: str) -> None:
    bad = np.asarray(addr, np.uint64) % np.uint64(size)
    if np.any(bad):
        a = int(np.asarray(addr, np.uint64).reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
        raise SimError(f"misaligned {what} of {size} bytes at address {a:#x}")


def _globals(m: Machine, addr, size: int, what: str):
    """(buffer index per thread, byte offset per thread); SimError when out of bounds."""
    addr = np.asarray(addr, np.uint64).reshape(-1)
    if addr.size:   # usually every thread accesses one array: two reductions, no masks
        low, high = int(addr.min()), int(addr.max())
        for i, buf in enumerate(m.buffers):   # (arrays' address windows are disjoint)
            if buf.base <= low and high + size <= buf.base + buf.raw.size:
                return np.full(addr.shape, i, np.int64)
    which = np.full(addr.shape, -1, np.int64)
    for i, buf in enumerate(m.buffers):
        inside = (addr >= np.uint64(buf.base)) & \
            (addr + np.uint64(size) <= np.uint64(buf.base + buf.raw.size))
        which[inside] = i
    if np.any(which < 0):
        a = int(addr[np.flatnonzero(which < 0)[0]])
        bound = ", ".join(f"{b.name} [{b.base:#x}, {b.base + b.raw.size:#x})"
                          for b in m.buffers) or "none"
        raise SimError(f"out-of-bounds global {what} of {size} bytes at address {a:#x}"
                       f"{_nearest_array(m, a)} (bound arrays: {bound})")
    return which


def _distinct(which: np.ndarray):
    """np.unique(which), without its sort when every thread accesses the same array."""
    first = which[0]
    return (first,) if (which == first).all() else np.unique(which)


def _nearest_array(m: Machine, address: int) -> str:
    """Where an out-of-bounds address lies relative to the array below it: each array
    has its own window of fake addresses (executor.GLOBAL_STRIDE), so that is the array
    the kernel indexed past."""
    below = [b for b in m.buffers if b.base <= address]
    if not below:
        return ""
    buf = max(below, key=lambda b: b.base)
    past = address - (buf.base + buf.raw.size)
    if past < 0:
        return f", straddling the end of {buf.name} ({buf.raw.size} bytes)"
    return f", {past} bytes past the end of {buf.name} ({buf.raw.size} bytes)"


def load(m: Machine, space: str, act, addr, nbytes: int, vec: int, ins) -> np.ndarray:
    size = nbytes * vec
    if space == "param":
        return _load_param(m, ins.operands[1], nbytes, vec, ins)
    _check_aligned(addr, size, "load")
    if space == "global":
        which = _globals(m, addr, size, "load")
        addr = np.asarray(addr, np.uint64).reshape(-1)
        out = np.empty((addr.size, size), np.uint8)
        for i in _distinct(which):
            buf = m.buffers[i]
            sel = which == i
            out[sel] = buf.raw[_byte_offsets(addr[sel] - np.uint64(buf.base), nbytes, vec)]
        return _assemble(out, nbytes, vec)
    rank, local = _shared_target(m, space, act, addr, size, "load", ins)
    m.ordering.smem_access(m.threads_of(act), rank, local, size, False, ins.line)
    raw = m.smem[rank.reshape(-1, 1), _byte_offsets(local, nbytes, vec)]
    return _assemble(raw, nbytes, vec)


def store(m: Machine, space: str, act, addr, nbytes, vec, values, ins) -> None:
    size = nbytes * vec
    _check_aligned(addr, size, "store")
    raw = _split(values, nbytes)
    if space == "global":
        which = _globals(m, addr, size, "store")
        addr = np.asarray(addr, np.uint64).reshape(-1)
        for i in _distinct(which):
            buf = m.buffers[i]
            sel = which == i
            buf.raw[_byte_offsets(addr[sel] - np.uint64(buf.base), nbytes, vec)] = raw[sel]
        return
    rank, local = _shared_target(m, space, act, addr, size, "store", ins)
    m.ordering.smem_access(m.threads_of(act), rank, local, size, True, ins.line)
    m.smem[rank.reshape(-1, 1), _byte_offsets(local, nbytes, vec)] = raw


def _load_param(m: Machine, a, nbytes: int, vec: int, ins) -> np.ndarray:
    if not isinstance(a, P.Addr) or not isinstance(a.base, P.Sym):
        raise SimError("ld.param needs [parameter+offset]", ins.line, ins.text)
    data = m.param_bytes.get(a.base.name)
    if data is None:
        raise SimError(f"unknown parameter {a.base.name}", ins.line, ins.text)
    chunk = data[a.offset:a.offset + nbytes * vec]
    if len(chunk) != nbytes * vec:
        raise SimError(f"ld.param reads past the end of {a.base.name}", ins.line, ins.text)
    row = np.frombuffer(chunk, dtype=UINT[nbytes]).astype(np.uint64)
    n = 1
    return np.broadcast_to(row, (n, vec))


def _mapa(ins: P.Instr):
    if ins.parts[1:] not in (["shared::cluster", "u32"], ["shared::cluster", "u64"]):
        raise _unknown(ins)

    def make(m, ins):
        d, a, b = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = m.read(a, act, 32, ins)
            r = m.read(b, act, 32, ins)
            m.write(d.name, act, ((r + np.uint64(1)) << np.uint64(CLUSTER_RANK_SHIFT)) | x,
                    64, ins)
            m.advance(idx)
        return run
    return make


def _cvta(ins: P.Instr):
    """cvta.global.u64 only (the tensor-map operand of cp.async.bulk.tensor is a generic
    address): the simulator's generic window onto global memory is the identity, so the
    generic address of a global address is itself. Ordinary generic loads and stores stay
    unmodelled (``_memory_form``)."""
    if ins.parts[1:] == ["param", "u64"]:
        return _cvta_param
    if ins.parts[1:] != ["global", "u64"]:
        raise _unknown(ins, "generic addresses are not modelled (only cvta.global.u64 and "
                            "cvta.param.u64)")

    def make(m, ins):
        d, a = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            m.write(d.name, act, m.read(a, act, 64, ins), 64, ins)
            m.advance(idx)
        return run
    return make


def _cvta_param(m: Machine, ins: P.Instr):
    """``cvta.param.u64 d, a`` (the data-movement instruction cvta, 9.7.9): the generic
    address of the kernel parameter whose param-space address is a: a by-value tensor
    map's (sim/param_space.py)."""
    from tcgen05_lower.sim import param_space

    d, a = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        values = np.asarray(m.read(a, act, 64, ins), np.uint64).reshape(-1)
        try:
            generic = [param_space.generic_address(m, int(v)) for v in np.unique(values)]
        except SimError as err:
            raise SimError(err.message, ins.line, ins.text) from None
        lookup = dict(zip((int(v) for v in np.unique(values)), generic))
        out = np.array([lookup[int(v)] for v in values], np.uint64)
        m.write(d.name, act, out if out.size > 1 else out[0], 64, ins)
        m.advance(idx)
    return run


def _cp(ins: P.Instr):
    from tcgen05_lower.sim import bulk, tma
    return bulk.handler(ins, _memory_access()) or tma.handler(ins)


# -- control flow --------------------------------------------------------------------------
def _bra(ins: P.Instr):
    if ins.parts[1:] not in ([], ["uni"]):
        raise _unknown(ins)

    def make(m, ins):
        (target,) = ins.operands
        name = target.name
        if name not in m.entry.labels:
            raise SimError(f"unknown label {name}", ins.line, ins.text)
        dest = m.entry.labels[name]

        def run(ins, idx):
            taken = m.guarded(ins, idx)
            if ins.guard is None:
                m.pc[idx] = dest
                return
            threads = m.threads_of(idx)
            go = np.zeros(m.nthreads, bool)
            go[taken] = True
            sel = go[threads]
            m.pc[threads[sel]] = dest
            m.pc[threads[~sel]] += 1
        return run
    return make


def _brx(ins: P.Instr):
    """``brx.idx{.uni} index, tlist`` (PTX ISA 9.7.12.4, brx.idx): each thread
    jumps to the index-th label of the ``.branchtargets`` list tlist; an index past the
    list is undefined behaviour, reported."""
    if ins.parts[1:] not in (["idx"], ["idx", "uni"]):
        raise _unknown(ins)

    def make(m, ins):
        if len(ins.operands) != 2 or not isinstance(ins.operands[1], P.Sym):
            raise _unknown(ins, "brx.idx takes an index and a .branchtargets label")
        index, tlist = ins.operands
        targets = m.entry.branch_targets.get(tlist.name)
        if targets is None:
            raise SimError(f"{tlist.name} names no .branchtargets list", ins.line, ins.text)
        missing = [t for t in targets if t not in m.entry.labels]
        if missing:
            raise SimError(f"unknown label {missing[0]} in {tlist.name}", ins.line, ins.text)
        dests = np.array([m.entry.labels[t] for t in targets], np.int64)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(idx)
            go = np.zeros(m.nthreads, bool)
            go[act] = True
            taken = threads[go[threads]]
            if taken.size:
                k = np.asarray(m.read(index, taken, 32, ins), np.uint64) \
                    * np.ones(taken.size, np.uint64)
                if np.any(k >= np.uint64(len(dests))):
                    raise SimError(f"brx.idx index {int(k.max())} is past the {len(dests)} "
                                   f"targets of {tlist.name}", ins.line, ins.text)
                m.pc[taken] = dests[k.astype(np.int64)]
            m.pc[threads[~go[threads]]] += 1
        return run
    return make


def _ret(ins: P.Instr):
    if len(ins.parts) != 1:
        raise _unknown(ins)

    def make(m, ins):
        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(idx)
            go = np.zeros(m.nthreads, bool)
            go[act] = True
            m.pc[threads[~go[threads]]] += 1
            m.exit_threads(threads[go[threads]], ins.line)
        return run
    return make


# -- thread synchronization ------------------------------------------------------------------
def _barrier(ins: P.Instr):
    parts = ins.parts
    if parts[0] == "bar" and parts[1:] in (["sync"], ["cta", "sync"]) or \
            parts[1:] in (["sync"], ["sync", "aligned"], ["cta", "sync"],
                          ["cta", "sync", "aligned"]):
        # bar{.cta}.sync a{, b} is barrier{.cta}.sync.aligned a{, b} (9.7.13.1): barrier a
        # (0-15) of the CTA, b threads taking part (a multiple of the warp size), every
        # thread of the CTA without b.
        def make(m, ins):
            if not 1 <= len(ins.operands) <= 2:
                raise _unknown(ins, "barrier.sync a{, b}")

            def run(ins, idx):
                if "aligned" in ins.parts or ins.parts[0] == "bar":
                    m.check_warp_converged(ins, idx)
                act = m.guarded(ins, idx)
                threads = m.threads_of(idx)
                skip = np.ones(m.nthreads, bool)
                skip[act] = False
                m.pc[threads[skip[threads]]] += 1
                arriving = m.threads_of(act)
                if arriving.size:
                    barrier = _uniform(m, ins, ins.operands[0], act, "barrier number a")
                    if not 0 <= barrier <= 15:
                        raise SimError(f"barrier number {barrier} is not in 0..15 (9.7.13.1)")
                    count = 0
                    if len(ins.operands) == 2:
                        count = _uniform(m, ins, ins.operands[1], act, "thread count b")
                        if count <= 0 or count % 32:
                            raise SimError(f"barrier.sync {barrier}, {count}: the thread "
                                           f"count must be a positive multiple of the warp "
                                           f"size (9.7.13.1)")
                    m.bar_id[arriving] = barrier
                    m.bar_expected[arriving] = count
                m.status[act] = BAR
                m.release_barriers(ins.line)
            return run
        return make
    if parts[:3] == ["bar", "warp", "sync"] and len(parts) == 3:
        return _bar_warp_sync
    if parts[1] == "cluster" and parts[2] in ("arrive", "wait") and \
            set(parts[3:]) <= {"aligned", "release", "acquire", "relaxed"}:
        arrive = parts[2] == "arrive"

        def make(m, ins):
            def run(ins, idx):
                if "aligned" in ins.parts:
                    m.check_warp_converged(ins, idx)
                act = m.guarded(ins, idx)
                if arrive:
                    live = m.status != EXIT
                    before = m.cluster_arrivals[live].min()
                    m.cluster_arrivals[act] += 1
                    m.advance(idx)
                    if m.cluster_arrivals[live].min() > before:
                        m.ordering.barrier(np.flatnonzero(live), ins.line)
                        m.epoch += 1
                    m.release_cluster_wait()
                    return
                m.advance(idx)
                live = m.status != EXIT
                done = m.cluster_arrivals[live].min()
                mine = m.threads_of(act)
                blocked = mine[m.cluster_arrivals[mine] > done]
                m.pc[blocked] -= 1
                m.status[blocked] = CBAR
            return run
        return make
    raise _unknown(ins)


def _bar_warp_sync(m: Machine, ins: P.Instr):
    """``bar.warp.sync membermask`` (PTX ISA 9.7.13.2): the threads of membermask in the
    warp wait for each other, and the barrier orders their memory accesses. The simulator
    steps a warp's live threads together, so it asks for the converged warp, every
    executing lane in the mask; the ordering is a barrier among those threads."""
    if len(ins.operands) != 1:
        raise _unknown(ins, "bar.warp.sync takes one membermask")

    def run(ins, idx):
        m.check_warp_converged(ins, idx)
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            mask = (m.read(ins.operands[0], act, 32, ins) * np.ones(threads.size, np.uint64)
                    ).astype(np.uint64)
            lanes = (m.tid[threads] % 32).astype(np.uint64)
            if not np.all((mask >> lanes) & np.uint64(1)):
                raise SimError("bar.warp.sync: a thread is not in its own membermask",
                               ins.line, ins.text)
            for warp in m.warps(threads):
                m.ordering.barrier(warp, ins.line)
        m.advance(idx)
    return run


def _uniform(m, ins: P.Instr, operand, act, what: str) -> int:
    """The value of an immediate or register operand that must be the same in every
    thread of `act`."""
    if isinstance(operand, P.Imm):
        return int(operand.value)
    values = np.unique(np.asarray(m.read(operand, act, 32, ins)).reshape(-1))
    if values.size != 1:
        raise SimError(f"the {what} of {ins.opcode} differs between its threads "
                       f"({', '.join(str(int(v)) for v in values[:4])})")
    return int(values[0])


def _mbarrier(ins: P.Instr):
    parts = ins.parts
    op = parts[1]
    mods = set(parts[2:])
    spaces = {"shared::cta", "shared"}
    if op == "init" and mods <= spaces | {"b64"} and "b64" in mods:
        return _mbarrier_init
    if op == "inval" and mods <= spaces | {"b64"} and "b64" in mods:
        return _mbarrier_inval
    if op == "try_wait" and mods <= spaces | {"b64", "parity", "acquire", "cta", "cluster"}:
        return _mbarrier_try_wait
    if op == "arrive" and mods <= spaces | {"b64", "release", "cta", "cluster", "expect_tx"}:
        return _mbarrier_arrive
    if op == "arrive" and mods <= {"shared::cluster", "b64", "release", "cta", "cluster"} \
            and "shared::cluster" in mods:
        return _mbarrier_arrive_cluster
    raise _unknown(ins)


def _mbarrier_arrive_cluster(m: Machine, ins: P.Instr):
    """``mbarrier.arrive{.release}{.cta, .cluster}.shared::cluster.b64 _, [addr]``: one
    arrival on the mbarrier at a shared::cluster address (``mapa``'s, possibly another
    CTA of the cluster; a shared::cta address names the executing CTA's), releasing the
    thread's prior accesses to whoever observes the phase complete (9.7.13.15.13). Only
    the sink ``_`` may take the state of a shared::cluster arrive."""
    ops_ = ins.operands
    if len(ops_) != 2 or getattr(ops_[0], "name", None) != "_":
        raise SimError("mbarrier.arrive.shared::cluster takes the sink _ as its state "
                       "operand and no count here", ins.line, ins.text)

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, ops_[1], act) * np.ones(threads.size, np.uint64)
            ranks, local = _shared_target(m, "shared::cluster", act, addrs, 8,
                                          "mbarrier.arrive", ins)
            ranks = np.asarray(ranks).reshape(-1) * np.ones(threads.size, np.int64)
            local = np.asarray(local).reshape(-1) * np.ones(threads.size, np.int64)
            for g, r, ad in zip(threads, ranks, local):
                _check_mbarrier_address(m, int(ad))
                m.ordering.mbarrier_arrive(int(g), int(r), int(ad), 1, ins.line,
                                           scope=_scope(ins))
            m.epoch += 1
        m.advance(idx)
    return run


def _mbar_operand(m, ins, op, act):
    addr = m.address(op, act, ins)
    return np.asarray(addr, np.uint64).reshape(-1) * np.ones(1, np.uint64)


def _mbarrier_init(m: Machine, ins: P.Instr):
    a, count = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, a, act) * np.ones(threads.size, np.uint64)
            counts = m.read(count, act, 32, ins) * np.ones(threads.size, np.uint64)
            for g, ad, c in zip(threads, addrs, counts):
                _check_mbarrier_address(m, int(ad))
                m.ordering.mbarrier_init(int(g), int(m.rank[g]), int(ad), int(c), ins.line)
            m.epoch += 1
        m.advance(idx)
    return run


def _mbarrier_inval(m: Machine, ins: P.Instr):
    """``mbarrier.inval{.shared{::cta}}.b64 [addr]`` (PTX ISA 9.7.13.15.10, mbarrier.inval):
    the mbarrier object at addr is invalidated, after which its memory may serve another
    purpose; any mbarrier operation on it but mbarrier.init is undefined. So the
    invalidating thread must be ordered after its init (as any use), and no arrival
    (a commit's arrive-on, a TMA load's complete_tx) may still be in flight towards it:
    that is reported, naming the in-flight operation. The object is then forgotten: a
    later use without a new mbarrier.init is reported as a use before init."""
    (a,) = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, a, act) * np.ones(threads.size, np.uint64)
            for g, ad in zip(threads, addrs):
                rank, address = int(m.rank[g]), int(ad)
                _check_mbarrier_address(m, address)
                if (rank, address) not in m.ordering.mbarriers:
                    raise SimError(f"mbarrier.inval of the mbarrier at {address:#x}, which "
                                   f"is not initialized (or already invalidated)",
                                   ins.line, ins.text)
                m.ordering._mbar(rank, address, ins.line, int(g))
                _check_nothing_in_flight(m, rank, address, ins)
                del m.ordering.mbarriers[(rank, address)]
            m.epoch += 1
        m.advance(idx)
    return run


def _check_nothing_in_flight(m: Machine, rank: int, address: int, ins: P.Instr) -> None:
    """SimError if a pending commit or TMA load will still arrive on the mbarrier."""
    for entry in m.ordering.pending_commits:
        if hasattr(entry, "mbarrier"):    # a TMA load
            target = entry.rank if entry.mbarrier_rank is None else entry.mbarrier_rank
            hit, line = entry.mbarrier == address and target == rank, entry.line
        else:                             # (thread, seq, mbarrier, targets, line, ...)
            hit, line = entry[2] == address and rank in entry[3], entry[4]
        if hit:
            raise SimError(f"mbarrier.inval of the mbarrier at {address:#x} of CTA {rank} "
                           f"while the arrival of the operation at PTX line {line} is still "
                           f"in flight (PTX ISA 9.7.13.15.10: an operation on an invalidated "
                           f"mbarrier is undefined)", ins.line, ins.text)


def _scope(ins: P.Instr) -> str:
    """The scope of an mbarrier arrive or wait: .cluster if written, else .cta (the
    default of 9.7.13.15.13 and 9.7.13.15.16)."""
    return "cluster" if "cluster" in ins.parts[2:] else "cta"


def _mbarrier_try_wait(m: Machine, ins: P.Instr):
    parity = "parity" in ins.parts
    if not parity:
        raise _unknown(ins, "only the .parity form")
    d, a, ph = ins.operands[:3]

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, a, act) * np.ones(threads.size, np.uint64)
            phases = m.read(ph, act, 32, ins) * np.ones(threads.size, np.uint64)
            many = getattr(m.ordering, "mbarrier_try_wait_parity_many", None)
            if many is not None:   # the same, per group of threads (ordering.py)
                ok = many(threads, m.rank[threads], addrs, phases & np.uint64(1), ins.line,
                          scope=_scope(ins))
            else:
                ok = np.array([m.ordering.mbarrier_try_wait_parity(
                    int(g), int(m.rank[g]), int(ad), int(p) & 1, ins.line,
                    scope=_scope(ins)) for g, ad, p in zip(threads, addrs, phases)],
                    dtype=bool)
            m.write(d.name, threads, ok, 1, ins)
            # A failed try_wait waits here until some mbarrier changes, then retries.
            waiting = threads[~ok]
            m.status[waiting] = MBAR
            m.wait_epoch[waiting] = m.epoch
            m.pc[threads[ok]] += 1
            if ins.guard is not None:   # threads the guard turns off move on
                skipped = np.setdiff1d(m.threads_of(idx), threads, assume_unique=True)
                m.pc[skipped] += 1
        else:
            m.advance(idx)
    return run


def _mbarrier_arrive(m: Machine, ins: P.Instr):
    expect = "expect_tx" in ins.parts
    ops_ = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        threads = m.threads_of(act)
        if threads.size:
            addrs = _mbar_operand(m, ins, ops_[1], act) * np.ones(threads.size, np.uint64)
            extra = m.read(ops_[2], act, 32, ins) * np.ones(threads.size, np.uint64) \
                if len(ops_) > 2 else np.ones(threads.size, np.uint64)
            tokens = []
            for g, ad, c in zip(threads, addrs, extra):
                rank = int(m.rank[g])
                if expect:
                    m.ordering.mbarrier_expect_tx(int(g), rank, int(ad), int(c), ins.line)
                    c = 1
                tokens.append(m.ordering.mbarrier_arrive(int(g), rank, int(ad), int(c),
                                                         ins.line, scope=_scope(ins)))
            if isinstance(ops_[0], P.Reg) and ops_[0].name != "_":
                m.write(ops_[0].name, threads, np.array(tokens, np.uint64), 64, ins)
            m.epoch += 1
        m.advance(idx)
    return run


def _fence(ins: P.Instr):
    rest = ins.parts[1:]
    if rest in (["proxy", "async", "shared::cta"], ["proxy", "async"],
                ["proxy", "async", "shared::cluster"]):
        kind = "proxy_async"
    elif rest == ["mbarrier_init", "release", "cluster"]:
        kind = "mbarrier_init"  # orders prior mbarrier.init at cluster scope (9.7.13.4)
    else:
        raise _unknown(ins)

    def make(m, ins):
        def run(ins, idx):
            act = m.guarded(ins, idx)
            if kind is not None and (act is ALL or len(act)):
                m.ordering.fence(m.threads_of(act), kind, ins.line)
            m.advance(idx)
        return run
    return make


def _shfl(ins: P.Instr):
    if ins.parts[1:3] != ["sync", "bfly"] and ins.parts[1:3] not in (
            ["sync", "up"], ["sync", "down"], ["sync", "idx"]) or ins.parts[-1] != "b32" \
            or len(ins.parts) != 4:
        raise _unknown(ins)
    mode = ins.parts[2]

    def make(m, ins):
        ops_ = ins.operands
        if len(ops_) != 5:
            raise _unknown(ins, "shfl with a predicate destination")
        d, a, b, c, mask = ops_
        dname = d.name.split("|")[0]

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                membermask = m.read(mask, act, 32, ins) * np.ones(threads.size, np.uint64)
                lanes = m.tid[threads] % 32
                present = np.zeros(m.nthreads, bool)
                present[threads] = True
                need = (membermask >> lanes.astype(np.uint64)) & np.uint64(1)
                if not np.all(need):
                    raise SimError("shfl.sync: a thread is not in its own membermask")
                src_lane = _shfl_source(mode, lanes, m.read(b, act, 32, ins),
                                        m.read(c, act, 32, ins))
                src = threads - lanes + src_lane
                if not np.all(present[src]):
                    raise SimError("shfl.sync reads a lane that does not execute it")
                values = m.read(a, ALL, 32, ins)[src]
                m.write(dname, threads, values, 32, ins)
            m.advance(idx)
        return run
    return make


def _elect(ins: P.Instr):
    """elect.sync d|p, membermask (PTX ISA, parallel synchronization instructions): one
    thread of membermask is elected, d gets its laneid, p is true on it alone. The ISA
    elects "deterministically, i.e. the same leader thread is elected for the same
    membermask every time" without saying which: here the lowest lane of the mask. Every
    live thread of the warp must execute it together (.sync waits for all of membermask;
    the simulator asks for the converged warp) and be in the mask."""
    if ins.parts[1:] != ["sync"]:
        raise _unknown(ins)

    def make(m, ins):
        if len(ins.operands) != 2 or not isinstance(ins.operands[0], P.DestPair):
            raise _unknown(ins, "elect.sync takes d|p, membermask")
        pair, mask = ins.operands

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                membermask = (m.read(mask, act, 32, ins) * np.ones(threads.size, np.uint64)
                              ).astype(np.uint64)
                lanes = (m.tid[threads] % 32).astype(np.uint64)
                if not np.all((membermask >> lanes) & np.uint64(1)):
                    raise SimError("elect.sync: a thread is not in its own membermask",
                                   ins.line, ins.text)
                # The lowest lane of the mask; the warp is converged, so it executes.
                low = np.zeros(threads.size, np.uint64)
                remaining = membermask.copy()
                while np.any((remaining & np.uint64(1)) == 0):
                    step = (remaining & np.uint64(1)) == 0
                    low[step] += np.uint64(1)
                    remaining[step] >>= np.uint64(1)
                m.write(pair.second.name, threads, lanes == low, 1, ins)
                if pair.first is not None:
                    m.write(pair.first.name, threads, low, 32, ins)
            m.advance(idx)
        return run
    return make


def _setmaxnreg(ins: P.Instr):
    """setmaxnreg.{inc,dec}.sync.aligned.u32 n (PTX ISA, setmaxnreg): the warp's register
    budget, which the simulator (registers unbounded) does not model; it checks the
    operand (a multiple of 8 in 24..256) and that the warp executes it converged
    (.sync.aligned). That all warps of a warpgroup execute the same instruction is the
    lowering's to keep (lowering.partitions places it so)."""
    if ins.parts[1:] not in (["inc", "sync", "aligned", "u32"],
                             ["dec", "sync", "aligned", "u32"]):
        raise _unknown(ins)

    def make(m, ins):
        if len(ins.operands) != 1 or not isinstance(ins.operands[0], P.Imm):
            raise _unknown(ins, "setmaxnreg takes one immediate register count")
        count = ins.operands[0].value
        if not (24 <= count <= 256 and count % 8 == 0):
            raise SimError(f"setmaxnreg: {count} is not a multiple of 8 in 24..256",
                           ins.line, ins.text)

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            m.advance(idx)
        return run
    return make


def _shfl_source(mode, lane, b, c):
    """The source lane of shfl.sync (9.7.10.x pseudocode)."""
    lane = lane.astype(np.int64)
    b = np.asarray(b, np.int64) & 0x1F
    c = np.asarray(c, np.int64)
    cval, segmask = c & 0x1F, (c >> 8) & 0x1F
    max_lane = (lane & segmask) | (cval & ~segmask)
    min_lane = lane & segmask
    if mode == "up":
        j = lane - b
        ok = j >= max_lane
    elif mode == "down":
        j = lane + b
        ok = j <= max_lane
    elif mode == "bfly":
        j = lane ^ b
        ok = j <= max_lane
    else:
        j = min_lane | (b & ~segmask)
        ok = j <= max_lane
    return np.where(ok, j, lane)


def _warp_matrix(ins: P.Instr):
    from tcgen05_lower.sim import warp_matrix
    return getattr(warp_matrix, ins.parts[0])(ins, _memory_access())


def _memory_access() -> MemoryAccess:
    """This module's loads and stores, for the handlers of bulk and warp_matrix (which
    this module imports, so they do not import it)."""
    return MemoryAccess(load=load, store=store, global_buffers=_globals)


# -- tcgen05 (9.7.16) ----------------------------------------------------------------------
def _tcgen05(ins: P.Instr):
    from tcgen05_lower.sim import tcgen05_ops
    return tcgen05_ops.handler_for(ins)
