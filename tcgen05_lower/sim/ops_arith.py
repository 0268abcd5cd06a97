"""The integer, float, logic, comparison, move and bit-field instructions of the simulator's
instruction set (``ops``), with their semantics from the PTX ISA: integer 9.7.1, bit
manipulation 9.7.2 (bfe, bfi), logic and shift 9.7.8, comparison and selection 9.7.7
(setp, selp), mov 9.7.10 (with its pack and unpack forms). Each ``_name(ins)`` checks the
form of one instruction and returns ``make(m, ins)``, which returns the handler
``run(ins, idx)``; ``_type_of`` and ``_reader`` serve the other families too.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import fused_plans, minmax3
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.bit_field import bit_extract
from tcgen05_lower.sim.ops_fastint import int_handler
from tcgen05_lower.sim.ops_support import _unknown
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import (ALL, MASK, from_float, from_signed, mul_hi_u64,
                                     parse_type, to_float, to_signed)

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine


_INT_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"})
_FLOAT_CMP = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu",
                        "geu", "num", "nan"})


def _type_of(ins: P.Instr, position: int = -1) -> tuple[str, int]:
    t = parse_type(ins.parts[position])
    if t is None:
        raise _unknown(ins, "no operand type")
    return t


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
    fast = int_handler(m, ins, base, kind, bits, read_a, read_b,
                       lambda x, y: _binop(base, kind, bits, x, y, ins))
    if fast is not None:   # the same semantics, dispatched once (sim/ops_fastint.py)
        return fast

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
    mask, found = MASK.get(bits) or np.uint64((1 << bits) - 1), []  # 1: mov.pred only

    def register(act):
        if not found:
            found.append(m.reg(op.name, ins))
        arr = found[0]
        return arr[act].astype(np.uint64) if arr.dtype == bool else arr[act] & mask
    return register


def _read_of(m: Machine, op, bits: int, ins: P.Instr):
    """``m.read(op, act, bits, ins)`` as a function of ``act``: ``_reader``'s for a width
    m.read masks with (``MASK``'s), else the call itself (which reports the width)."""
    if bits in MASK:
        return _reader(m, op, bits, ins)
    return lambda act: m.read(op, act, bits, ins)


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
    read_a, read_b = _read_of(m, a, bits, ins), _read_of(m, b, bits, ins)

    def apply(act):
        x, y = read_a(act), read_b(act)
        m.write(d.name, act, _mul(kind, bits, mode, x, y, ins),
                2 * bits if "wide" in mode else bits, ins)

    def run(ins, idx):
        apply(m.guarded(ins, idx))
        m.advance(idx)
    if kind == "u" and mode == {"wide"} and bits in (16, 32):
        apply.plan_for = lambda at: fused_plans.mul_wide_plan(m, bits, a, b, d, read_b, at)
    return _fusible(run, ins, apply)


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
        read_a, read_b, read_c = (_read_of(m, a, bits, ins), _read_of(m, b, bits, ins),
                                  _read_of(m, c, wbits, ins))

        def apply(act):
            x, y = read_a(act), read_b(act)
            z = read_c(act)
            if kind == "f":  # mad.f32 is fused (fma), computed in float64 then rounded
                r = from_float((to_float(x, bits).astype(np.float64) *
                                to_float(y, bits) + to_float(z, bits)), bits)
            else:
                r = _mul(kind, bits, mode, x, y, ins) + z
            m.write(d.name, act, r, wbits, ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        if kind != "f" and mode == {"lo"} and bits in MASK:
            apply.plan_for = lambda at: fused_plans.mad_lo_plan(
                m, bits, ins.operands, (read_a, read_b, read_c), at)
        return _fusible(run, ins, apply)
    return make


def _fusible(run, ins: P.Instr, apply):
    """``run`` with ``apply(act)`` (the instruction on its active threads, PC untouched)
    as its ``body`` when unguarded: on the threads of ``Machine.contiguous`` it computes
    what ``run`` computes on the step's, and the fused stretches
    (machine_stepping._fused) call it."""
    if ins.guard is None:
        run.body = apply
    return run


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

        def apply(act):
            x = m.read(a, act, bits, ins)
            r = (x == 0) if kind == "pred" else ~np.asarray(x, np.uint64)
            m.write(d.name, act, r, bits, ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        return _fusible(run, ins, apply)
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

        def apply(act):
            m.write(d.name, act, read_a(act), bits, ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        if bits in MASK:
            apply.plan_for = lambda at: fused_plans.mov_plan(m, bits, a, d, read_a, at)
        return _fusible(run, ins, apply)
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
    # the operands' readers (m.read's values, the register arrays looked up once)
    read_a = _read_of(m, a, bits, ins) if isinstance(d, P.Vec) else None
    items = None if isinstance(d, P.Vec) else \
        [_read_of(m, item, part, ins) for item in a.items]

    def unpack(act):
        x = np.asarray(read_a(act), np.uint64)
        for j, item in enumerate(d.items):
            if isinstance(item, P.Reg) and item.name != "_":  # "_" discards a part
                m.write(item.name, act, (x >> np.uint64(j * part)) & mask, part, ins)

    def pack(act):
        x = np.uint64(0)
        for j, read_item in enumerate(items):
            x = x | ((np.asarray(read_item(act), np.uint64) & mask)
                     << np.uint64(j * part))
        m.write(d.name, act, x, bits, ins)
    apply = unpack if isinstance(d, P.Vec) else pack

    def run(ins, idx):
        apply(m.guarded(ins, idx))
        m.advance(idx)
    if bits in MASK:
        apply.plan_for = lambda at: fused_plans.mov_vector_plan(m, d, a, part, mask, at)
    return _fusible(run, ins, apply)


def _selp(ins: P.Instr):
    kind, bits = _type_of(ins)

    def make(m, ins):
        d, a, b, c = ins.operands

        def apply(act):
            p = m.read(c, act, 1, ins).astype(bool)
            m.write(d.name, act, np.where(p, m.read(a, act, bits, ins),
                                          m.read(b, act, bits, ins)), bits, ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        apply.plan_for = lambda at: fused_plans.selp_plan(m, bits, ins.operands, at)
        return _fusible(run, ins, apply)
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
        lean = _int_compare(m, ins, cmp, kind, bits, dname, read_a, read_b)
        if lean is not None:
            return lean

        def run(ins, idx):
            act = m.guarded(ins, idx)
            r = _compare(cmp, kind, bits, read_a(act), read_b(act))
            m.write(dname, act, r, 1, ins)
            m.advance(idx)
        return run
    return make


def _int_compare(m: Machine, ins: P.Instr, cmp: str, kind: str, bits: int, dname: str,
                 read_a, read_b):
    """The handler of an integer setp with its comparison (a ufunc) and signedness
    chosen once: ``_compare``'s values, stored into a predicate register as
    ``Machine.write`` stores them; with a ``body`` for the fused stretches
    (machine_stepping._fused) when unguarded. None for float comparisons."""
    if kind == "f" or bits not in MASK:
        return None
    ufunc = getattr(np, _INT_UFUNC[cmp])
    signed = kind == "s"
    found = []
    b = ins.operands[2]
    viewed = bits == 64 and isinstance(ins.operands[1], P.Reg)   # a read as a view
    if viewed:
        read_a = _view64(m, ins.operands[1], ins, read_a)

    constant = []   # an immediate b as the comparison takes it (to_signed if signed)
    # for the last slice of threads ``at`` (the steps of a fused stretch share it): the
    # comparison's operands and destination as views, the immediate a 0-d array
    views = [None, None]

    def compare(at):
        if views[0] is at:   # (views holds ``at``: its identity is not reused)
            _, x, y, out = views[1]
            ufunc(x, y, out)
            return
        x = read_a(at)
        if constant:
            y = constant[0]
        else:
            y = read_b(at)
            if signed:
                y = to_signed(y, bits)
            if isinstance(b, P.Imm):
                constant.append(y)
        if signed:   # a 64-bit register's bits as int64: to_signed's view, without a call
            x = x.view(np.int64) if bits == 64 and type(x) is np.ndarray else \
                to_signed(x, bits)
        value = ufunc(x, y)
        if not found:
            found.append(m.reg(dname, ins))
        out = found[0]
        if out.dtype == bool:
            out[at] = value
        else:   # not a predicate: the general write
            m.write(dname, at, value, 1, ins)
            return
        if constant and viewed and type(at) is slice and type(x) is np.ndarray and \
                x.base is not None and x.dtype in (np.uint64, np.int64):
            # a view of a's register, compared with the immediate and written into the
            # predicate's slice: the same values as the lines above
            views[0], views[1] = at, (ufunc, x, np.asarray(y), out[at])
        elif constant and viewed and type(at) is not slice:
            # ids kept as rows (Machine.rows_of): the same views, 2-D
            made = fused_plans.compare_views(m, ins.operands[1].name, at, ufunc, signed,
                                             y, out)
            if made is not None:
                views[0], views[1] = at, made

    guard = ins.guard

    def run(ins, idx):
        act = idx if guard is None else m.guarded(ins, idx)
        compare(m.contiguous(act))
        m.advance(idx)
    if guard is None:
        run.body = compare
        compare.views = views   # (machine_stepping._fused's plans read them)
        compare.plan_for = lambda at: fused_plans.compare_plan(
            m, ufunc, signed, bits, ins.operands[1], b, read_b, dname, at)
    return run


def _view64(m: Machine, op: P.Reg, ins: P.Instr, general):
    """A 64-bit register operand read as a view of its uint64 array (``_reader``'s value:
    its mask is a no-op at 64 bits) for a comparison, which makes a new array; other
    arrays (a predicate's) through ``general``."""
    found = []

    def register(act):
        if not found:
            found.append(m.reg(op.name, ins))
        arr = found[0]
        return arr[act] if arr.dtype == np.uint64 else general(act)
    return register


#: The name of the NumPy comparison of each integer setp comparison (``_compare``'s table).
_INT_UFUNC = MappingProxyType({
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
    "gt": "greater", "ge": "greater_equal", "lo": "less", "ls": "less_equal",
    "hi": "greater", "hs": "greater_equal"})


def _bfe(ins: P.Instr):
    kind, bits = _type_of(ins)
    if len(ins.parts) != 2 or kind not in ("u", "s"):
        raise _unknown(ins)

    def make(m, ins):
        d, a, b, c = ins.operands

        def apply(act):
            x = m.read(a, act, bits, ins)
            pos = m.read(b, act, 32, ins) & np.uint64(0xFF)
            length = m.read(c, act, 32, ins) & np.uint64(0xFF)
            m.write(d.name, act, bit_extract(x, pos, length, bits, kind == "s"), bits, ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        apply.plan_for = lambda at: fused_plans.bfe_plan(m, kind, bits, ins.operands, at)
        return _fusible(run, ins, apply)
    return make


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
