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

import numpy as np

from tcgen05_lower.sim import fused_plans
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.words import ALL, MASK

#: The NumPy ufunc (by name) of each operation on uint64 bits.
_UFUNC = fused_plans.UFUNCS
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
    # (ufunc, a's array, b's array or immediate, d's array) once every array is found to
    # be a uint64 register: the operation then writes into d's slice itself (``_direct``)
    direct = []
    into = _direct_ufunc(m, ins, base, kind, bits, a, b) if operate is not binop else None

    def run(ins, idx):
        act = idx if guard is None else m.guarded(ins, idx)
        if act is ALL or len(act):
            body(m.contiguous(act))
        m.advance(idx)

    # the direct form's views of its registers for the last slice of threads: the
    # steps of a fused stretch (and of a loop run through by it) share their slice
    views = [None, None]

    def body(at):
        """The instruction on the threads ``at`` (``Machine.contiguous``; the guard
        already applied), without advancing their PC: ``run``'s work, and, unguarded,
        what the run loop's fused stretches call (machine_stepping.py)."""
        if views[0] is at:   # (views holds ``at``: its identity is not reused)
            ufunc, x, y, out = views[1]
            ufunc(x, y, out)
            return
        if direct:
            made = _direct_views(m, direct[0], at)
            if made is not None:
                views[0], views[1] = at, made
                made[0](made[1], made[2], made[3])
                return
        value = operate(read_a(at), read_b(at))
        if not found:
            found.append(m.reg(d.name, ins))
            _direct(m, into, a, b, read_b, at, found[0], direct)
        out = found[0]
        if out.dtype == bool:
            m.write(d.name, at, value, bits, ins)
        elif mask is None:
            out[at] = value
        else:
            out[at] = np.asarray(value, dtype=np.uint64) & mask
    if guard is None:
        run.body = body
        body.views = views   # (machine_stepping._fused's plans read them)
        if operate is not binop and mask is not None:
            body.plan_for = lambda at: fused_plans.masked_plan(m, base, bits, a, b, d, read_b, at)
        elif into is not None:
            body.plan_for = lambda at: _direct_plan(m, direct, at)
    return run


def _direct_plan(m, direct: list, at):
    """A fused stretch's step (machine_stepping._plan) for the direct form on the threads
    ``at``: its ufunc on the views of its registers (``_direct_views``, what the body
    calls once it keeps them), or None when the first run found no direct form or
    the threads give no views (the plan then calls the body)."""
    made = _direct_views(m, direct[0], at) if direct else None
    return None if made is None else (made[0], made[1:])


def _direct_views(m, direct: tuple, at):
    """The direct form (``_direct``) on the views of its registers for the threads
    ``at`` (``Machine.register_view``: a slice, or ids kept as rows), or None when
    indexing them would copy (other ids: the general code)."""
    ufunc, x, y, out = direct
    # an immediate as a 0-d array: the same uint64 operand, and a ufunc call converts a
    # 0-d array faster than a NumPy scalar
    views = (m.register_view(x, at),
             np.asarray(y) if type(y) is np.uint64 else m.register_view(y, at),
             m.register_view(out, at))
    return None if any(view is None for view in views) else (ufunc, *views)


def _direct_ufunc(m, ins: P.Instr, base: str, kind: str, bits: int, a, b):
    """The ufunc that computes a 64-bit ``base`` of register ``a`` and register or
    immediate ``b`` with ``_operation``'s values, or None: only 64-bit forms (no mask
    on the operands or the result), a shift only by an immediate below 64 (``_operation``
    gives zero for more) and not signed."""
    if bits != 64 or not isinstance(a, P.Reg) or not isinstance(b, (P.Reg, P.Imm)):
        return None
    if base in _UFUNC:
        return getattr(np, _UFUNC[base])
    if not isinstance(b, P.Imm) or (base == "shr" and kind == "s") or \
            (m.imm_bits(b, 32) & 0xFFFFFFFF) >= bits:
        return None
    return np.left_shift if base == "shl" else np.right_shift


def _direct(m, ufunc, a, b, read_b, at, out: np.ndarray, direct: list) -> None:
    """After the first run of the handler (its registers found, as the general code
    finds them): the direct form (ufunc, a's array, b's array or value, d's array) into
    ``direct`` when every register is a uint64 array; the shift's second operand is
    its amount (``_operation``'s ``shift``), an immediate its bits (``read_b``)."""
    if ufunc is None or out.dtype != np.uint64:
        return
    x = m.regs.get(a.name)
    if x is None or x.dtype != np.uint64:
        return
    if isinstance(b, P.Reg):
        y = m.regs.get(b.name)
        if y is None or y.dtype != np.uint64:
            return
    elif ufunc in (np.left_shift, np.right_shift):
        y = np.uint64(m.imm_bits(b, 32) & 0xFFFFFFFF)
    else:
        y = read_b(at)
        if type(y) is not np.uint64:
            return
    direct.append((ufunc, x, y, out))


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
