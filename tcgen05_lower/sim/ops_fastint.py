"""The hot integer ALU handlers (``add sub and or xor shl shr`` on ``.b/.u/.s`` types) of
``ops_arith._alu_handler`` as one closure each, for the address arithmetic that makes up
most of a warp-specialized kernel's instructions.

Same semantics as the general handler (``ops_arith._binop`` then ``Machine.write``), bit
for bit: the operands' raw bits masked to the type's width, the operation on uint64 (so
modulo 2^64), the result masked to the width and stored into the active threads. What is
saved is the per-step dispatch: the operation is chosen once, a shift by an immediate is
decided once (by 0..width-1 bits: ``a << n``; by more: zero, PTX ISA 9.7.8.7/9.7.8.8),
and a 64-bit result is stored without the no-op mask. Anything else (signed ``shr``, a
shift by a register, a predicate destination) still goes through ``_binop`` and
``Machine.write``.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.words import ALL, MASK

#: The NumPy ufunc (by name) of each operation on uint64 bits.
_UFUNC = MappingProxyType({"add": "add", "sub": "subtract", "and": "bitwise_and",
                          "or": "bitwise_or", "xor": "bitwise_xor"})
_ZERO = np.uint64(0)


def int_handler(m, ins: P.Instr, base: str, kind: str, bits: int, read_a, read_b, binop):
    """The handler ``run(ins, idx)`` of integer ``base`` (add, sub, and, or, xor, shl,
    shr) of ``bits`` bits, or None for a form this module leaves to the general handler.
    ``read_a``/``read_b`` are the operand readers (``ops_arith._reader``), ``binop(a,
    b)`` the general operation."""
    if kind not in ("b", "u", "s") or bits not in MASK:
        return None
    if base not in _UFUNC and base not in ("shl", "shr"):
        return None
    d, a, b = ins.operands
    if not isinstance(d, P.Reg):
        return None
    operate = _operation(m, ins, base, kind, bits, b, binop)
    if operate is not binop:   # the operation makes new arrays: read views of registers
        read_a, read_b = _view_reader(m, a, bits, ins, read_a), \
            _view_reader(m, b, bits, ins, read_b)
    mask = None if bits == 64 else MASK[bits]
    guard = ins.guard
    found = []

    def run(ins, idx):
        act = idx if guard is None else m.guarded(ins, idx)
        if act is ALL or len(act):
            at = m.contiguous(act)
            value = operate(read_a(at), read_b(at))
            if not found:
                found.append(m.reg(d.name, ins))
            out = found[0]
            if out.dtype == bool:   # a predicate destination: the general write
                m.write(d.name, act, value, bits, ins)
            elif mask is None:
                out[at] = value
            else:
                out[at] = np.asarray(value, dtype=np.uint64) & mask
        m.advance(idx)

    def body(at):
        """The unguarded instruction on the threads ``at`` (``Machine.contiguous``),
        without advancing their PC: the run loop's fused stretches (executor.py)."""
        value = operate(read_a(at), read_b(at))
        if not found:
            found.append(m.reg(d.name, ins))
        out = found[0]
        if out.dtype == bool:
            m.write(d.name, at, value, bits, ins)
        elif mask is None:
            out[at] = value
        else:
            out[at] = np.asarray(value, dtype=np.uint64) & mask
    if guard is None:
        run.body = body
    return run


def _view_reader(m, op, bits: int, ins: P.Instr, general):
    """A 64-bit register operand read as a view of its array (no copy, no no-op mask):
    only where the value is used to make a new array before anything is written.
    Other operands: ``general``."""
    if bits != 64 or not isinstance(op, P.Reg):
        return general
    found = []

    def register(at):
        if not found:
            found.append(m.reg(op.name, ins))
        arr = found[0]
        return arr[at].astype(np.uint64) if arr.dtype == bool else arr[at]
    return register


def _operation(m, ins: P.Instr, base: str, kind: str, bits: int, b, binop):
    """``f(a, b)`` with ``binop``'s values for this instruction's form."""
    if base in _UFUNC:
        return getattr(np, _UFUNC[base])
    if not isinstance(b, P.Imm) or (base == "shr" and kind == "s"):
        return binop
    # the shift amount is the immediate's low 32 bits (the reader masks it so); as in
    # _binop, a shift by the width or more gives zero
    amount = m.imm_bits(b, 32) & 0xFFFFFFFF
    if amount >= bits:
        return lambda a, _: np.where(True, _ZERO, a)
    shift = np.uint64(amount)
    if base == "shl":
        return lambda a, _: np.left_shift(a, shift)
    return lambda a, _: np.right_shift(a, shift)
