"""The steps of the fused stretches' plans (machine_stepping._plan) for the straight-line
instructions whose bodies can run as a few ufunc calls on views of their registers: the
integer ALU narrower than 64 bits (ops_fastint), mov with its pack and unpack forms,
mad.lo, setp narrower than 64 bits, selp, unsigned mul.wide and bfe (ops_arith), integer
cvt and cvta (ops_convert, ops_memory). Each ``*_plan`` function is called after its
body ran on the threads ``at`` (a slice, or ids kept as rows by ``Machine.rows_of``: its
registers are made) and returns (function, arguments), one step that computes what the
body computes on those threads, or None where it cannot (the plan then calls the body):
a register that is not a uint64 array, a destination that is also a source where the
body reads every source before it writes, a form other than the ones named.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.words import MASK

#: The NumPy ufunc (by name) of each integer operation on uint64 bits whose value modulo
#: 2^bits depends only on its operands modulo 2^bits (also ops_fastint's table).
UFUNCS = MappingProxyType({"add": "add", "sub": "subtract", "and": "bitwise_and",
                          "or": "bitwise_or", "xor": "bitwise_xor"})


def register_views(m, names, at):
    """The elements of the threads ``at`` of the registers ``names`` as views (a
    slice's, or the rows of ids kept by ``Machine.rows_of``: ``register_view``), or
    None unless every one is a uint64 array already made (a predicate's bool array, a
    register not yet written: the body's own code) and ``at`` gives views."""
    views = []
    for name in names:
        arr = m.regs.get(name)
        if arr is None or arr.dtype != np.uint64:
            return None
        view = _view(m, arr, at)
        if view is None:
            return None
        views.append(view)
    return views


def _view(m, arr: np.ndarray, at):
    """Register array `arr`'s elements of the threads ``at`` as a view: a slice's (no
    machine needed), else ``m.register_view``'s (None for ids not kept as rows)."""
    return arr[at] if type(at) is slice else m.register_view(arr, at)


def masked_plan(m, base: str, bits: int, a, b, d, read_b, at):
    """A fused stretch's step (machine_stepping._plan) for an integer ``base`` narrower
    than 64 bits on the threads ``at``: ``body``'s values into d's view, from the
    registers' unmasked views. Their bits above ``bits`` change nothing: an add, sub,
    and, or, xor or shl modulo 2^64 then masked is the same modulo 2^bits as on the
    masked operands; a shr masks a's first. None for anything else (a shift by the
    width or more, a shift by a register, a register not a uint64 array: the body
    then)."""
    if not isinstance(a, P.Reg) or not isinstance(b, (P.Reg, P.Imm)):
        return None
    names = (a.name, d.name) if isinstance(b, P.Imm) else (a.name, b.name, d.name)
    views = register_views(m, names, at)
    if views is None:
        return None
    x, out = views[0], views[-1]
    y = np.asarray(read_b(at)) if isinstance(b, P.Imm) else views[1]
    mask = np.asarray(MASK[bits])
    if base in UFUNCS:
        ufunc = getattr(np, UFUNCS[base])
    elif isinstance(b, P.Imm) and (m.imm_bits(b, 32) & 0xFFFFFFFF) < bits:
        # (the amount as _operation takes it)
        ufunc = np.left_shift if base == "shl" else None
        y = np.asarray(np.uint64(m.imm_bits(b, 32) & 0xFFFFFFFF))
    else:
        return None
    if ufunc is None:   # shr: a's bits masked first, then shifted
        def step():
            np.bitwise_and(x, mask, out)
            np.right_shift(out, y, out)
    else:
        def step():
            ufunc(x, y, out)
            np.bitwise_and(out, mask, out)
    return step, ()


def mad_lo_plan(m, bits: int, operands, readers, at):
    """A fused stretch's step (machine_stepping._plan) for ``mad.lo`` on the threads
    ``at``: a * b + c modulo 2^64 from the registers' unmasked views (immediates as
    their reader gives them), masked to ``bits`` into d's view: the same modulo
    2^bits as on the masked operands. None when a register is not a uint64 array."""
    d, *sources = operands
    if not all(isinstance(op, (P.Reg, P.Imm)) for op in sources):
        return None
    regs = [op.name for op in sources if isinstance(op, P.Reg)]
    views = register_views(m, regs + [d.name], at)
    if views is None:
        return None
    out, found = views[-1], iter(views)
    x, y, z = (next(found) if isinstance(op, P.Reg) else np.asarray(read(at))
               for op, read in zip(sources, readers))
    tmp = np.empty(out.shape, np.uint64)
    mask = np.asarray(MASK[bits])

    def step():
        np.multiply(x, y, tmp)
        np.add(tmp, z, tmp)
        np.bitwise_and(tmp, mask, out)
    return step, ()


def mov_plan(m, bits: int, a, d, read_a, at):
    """A fused stretch's step (machine_stepping._plan) for a scalar mov on the threads
    ``at``: d's view filled with an immediate's bits (what ``read_a`` gives, masked as
    ``Machine.write`` masks), or a register's view masked to ``bits`` (copied at 64).
    None for another operand or a register that is not a uint64 array."""
    if isinstance(a, P.Imm):
        views = register_views(m, (d.name,), at)
        if views is None:
            return None
        return views[0].fill, (int(read_a(at)) & ((1 << bits) - 1),)
    if not isinstance(a, P.Reg):
        return None
    views = register_views(m, (a.name, d.name), at)
    if views is None:
        return None
    x, out = views
    if bits == 64:
        return np.positive, (x, out)
    return np.bitwise_and, (x, np.asarray(MASK[bits]), out)


def mov_vector_plan(m, d, a, part: int, mask, at):
    """A fused stretch's step (machine_stepping._plan) for a pack or unpack mov on the
    threads ``at``, from the registers' views: unpack, part j of a is (a >> j part) &
    mask (a's bits above the width never reach a part); pack, d is the OR of (item j &
    mask) << j part. Part 0 needs no shift; at 64 bits the top part needs no mask (a
    shift right by 64 - part leaves part bits, a shift left by it keeps an item's low
    part bits). None unless every operand is a uint64 register (none discarded in a
    pack) and no destination is also a source: the body reads every source before it
    writes, the step does not."""
    unpack = isinstance(d, P.Vec)
    items = d.items if unpack else a.items
    if not all(isinstance(item, P.Reg) for item in items) or \
            not isinstance(a if unpack else d, P.Reg):
        return None
    named = [(j, item.name) for j, item in enumerate(items)
             if not unpack or item.name != "_"]
    sources = [a.name] if unpack else [name for _, name in named]
    targets = [name for _, name in named] if unpack else [d.name]
    if set(sources) & set(targets) or len(set(targets)) != len(targets):
        return None
    views = register_views(m, sources + targets, at)
    if views is None:
        return None
    keep, top = np.asarray(mask), len(items) - 1 if part * len(items) == 64 else None
    shifts = [np.asarray(np.uint64(j * part)) for j, _ in named]
    calls = []   # (ufunc, operand, operand, out) in order
    if unpack:
        x = views[0]
        for (j, _), shift, out in zip(named, shifts, views[1:]):
            if j:
                calls.append((np.right_shift, x, shift, out))
            if j != top:
                calls.append((np.bitwise_and, out if j else x, keep, out))
    else:
        out, tmp = views[-1], np.empty(views[-1].shape, np.uint64)
        calls.append((np.bitwise_and, views[0], keep, out))
        for (j, _), shift, item in zip(named[1:], shifts[1:], views[1:-1]):
            if j != top:
                calls.append((np.bitwise_and, item, keep, tmp))
            calls += [(np.left_shift, tmp if j != top else item, shift, tmp),
                      (np.bitwise_or, out, tmp, out)]

    def step():
        for ufunc, x, y, into in calls:
            ufunc(x, y, into)
    return step, ()


def grouped(steps: list) -> tuple:
    """A plan's steps (machine_stepping._plan) with each run of two or more consecutive
    steps that carry the same ``batch`` key (the lean global stores of one base
    register: ops_memory_warp.store_maker) replaced by the steps of their group (the
    key's maker, given the run's steps): the plan runs every step of a run, in order,
    each time it runs, so a group's first step may do the work of all of them when it
    knows they all succeed (the others then do nothing), else each does its own."""
    out, i = list(steps), 0
    while i < len(out):
        key = getattr(out[i][0], "batch", None)
        j = i + 1
        while key is not None and j < len(out) and getattr(out[j][0], "batch", None) == key:
            j += 1
        if j - i >= 2:
            out[i:j] = key[-1]([call for call, _ in out[i:j]])
        i = j
    return tuple(out)


def compare_views(m, name: str, at, ufunc, signed: bool, y, out: np.ndarray):
    """ops_arith._int_compare's kept views for ids kept as rows (``Machine.rows_of``):
    (ufunc, 64-bit register ``name``'s view, as int64 when signed: to_signed's bits,
    the immediate ``y`` as a 0-d array, the predicate ``out``'s view); None when they
    are not views."""
    arr = m.regs.get(name)
    if arr is None or arr.dtype != np.uint64:
        return None
    x, into = m.register_view(arr, at), m.register_view(out, at)
    if x is None or into is None:
        return None
    return ufunc, x.view(np.int64) if signed else x, np.asarray(y), into


def compare_plan(m, ufunc, signed: bool, bits: int, a, b, read_b, dname: str, at):
    """A fused stretch's step (machine_stepping._plan) for an integer setp of a register
    and an immediate (ops_arith._int_compare) on the threads ``at``. At 64 bits, the
    body's own comparison of a's view (as int64 when signed: to_signed's bits) with
    the immediate into the predicate's view. Narrower, both operands' low ``bits`` bits
    moved to the top of 64 (a's view shifted left by 64 - bits into a scratch array,
    the immediate once), compared as uint64, or as int64 when signed: shifting left by
    64 - bits keeps exactly the low ``bits`` bits, scaled by 2^(64 - bits): unsigned,
    the order of the masked values; as int64, the order of their two's-complement
    values (to_signed), bit ``bits`` - 1 being the sign bit. None unless a is a uint64
    register, b an immediate and the destination a predicate (bool) array with views."""
    if not isinstance(a, P.Reg) or not isinstance(b, P.Imm):
        return None
    views = register_views(m, (a.name,), at)
    pred = m.regs.get(dname)
    if views is None or pred is None or pred.dtype != bool:
        return None
    into = _view(m, pred, at)
    if into is None:
        return None
    if bits == 64:
        y = np.asarray(np.uint64(int(read_b(at))))
        x = views[0]
        return (ufunc, (x.view(np.int64), y.view(np.int64), into)) if signed else \
            (ufunc, (x, y, into))
    x, shift = views[0], np.uint64(64 - bits)
    top = np.empty(x.shape, np.uint64)
    y = np.asarray(np.left_shift(np.uint64(int(read_b(at))), shift))
    moved, y = (top.view(np.int64), y.view(np.int64)) if signed else (top, y)

    def step():
        np.left_shift(x, shift, top)
        ufunc(moved, y, into)
    return step, ()


def selp_plan(m, bits: int, operands, at):
    """A fused stretch's step (machine_stepping._plan) for ``selp`` of two immediates on
    the threads ``at`` (ops_arith._selp): d = c ? a : b, the immediates' bits masked to
    ``bits`` as m.read and Machine.write mask them; with b zero one multiply (the
    predicate's bools as 0 and 1 times a), else b copied and a copied where c holds.
    None unless d is a uint64 register and c a predicate (bool) array with views (and
    for a width Machine.write does not mask to: its own error)."""
    d, a, b, c = operands
    if bits not in MASK or not isinstance(a, P.Imm) or not isinstance(b, P.Imm) or \
            not isinstance(c, P.Reg):
        return None
    views = register_views(m, (d.name,), at)
    pred = m.regs.get(c.name)
    if views is None or pred is None or pred.dtype != bool:
        return None
    where = _view(m, pred, at)
    if where is None:
        return None
    out = views[0]
    mask = (1 << bits) - 1
    if_set = np.asarray(np.uint64(m.imm_bits(a, bits) & mask))
    if_not = np.asarray(np.uint64(m.imm_bits(b, bits) & mask))
    if not if_not:
        return np.multiply, (where, if_set, out)

    def step():
        np.copyto(out, if_not)
        np.copyto(out, if_set, where=where)
    return step, ()


def mul_wide_plan(m, bits: int, a, b, d, read_b, at):
    """A fused stretch's step (machine_stepping._plan) for an unsigned ``mul.wide`` of a
    register and an immediate on the threads ``at`` (ops_arith._mul): a's view masked
    to ``bits`` into d's view, times the immediate's bits (masked as m.read masks
    them). Both factors are below 2^bits (bits 16 or 32), so the product is below
    2^(2 bits): exact in uint64, and the write's mask of 2 bits changes nothing. None
    unless a and d are uint64 registers with views and distinct."""
    if not isinstance(a, P.Reg) or not isinstance(b, P.Imm) or a.name == d.name:
        return None
    views = register_views(m, (a.name, d.name), at)
    if views is None:
        return None
    x, out = views
    mask, y = np.asarray(MASK[bits]), np.asarray(np.uint64(int(read_b(at))))

    def step():
        np.bitwise_and(x, mask, out)
        np.multiply(out, y, out)
    return step, ()


def bfe_plan(m, kind: str, bits: int, operands, at):
    """A fused stretch's step (machine_stepping._plan) for an unsigned ``bfe`` with
    immediate position and length on the threads ``at`` (ops_arith._bfe, PTX ISA
    9.7.2 bfe): with pos and len their low 8 bits, the field's n = min(len, bits - pos)
    bits (none when pos >= bits) from bit pos, zero-extended: a's view shifted right
    by pos and masked to n bits into d's view (pos + n <= bits, so a's bits at and
    above ``bits`` never reach the field), or zeros when n is 0. None for a signed bfe
    (sign-extended: the body), a width Machine.write does not mask to, or unless a and
    d are uint64 registers with views."""
    d, a, b, c = operands
    if kind != "u" or bits not in MASK or not isinstance(a, P.Reg) or \
            not all(isinstance(op, P.Imm) for op in (b, c)):
        return None
    views = register_views(m, (a.name, d.name), at)
    if views is None:
        return None
    x, out = views
    pos, length = m.imm_bits(b, 32) & 0xFF, m.imm_bits(c, 32) & 0xFF
    n = min(length, bits - pos) if pos < bits else 0
    if n == 0:
        return out.fill, (0,)
    shift, field = np.asarray(np.uint64(pos)), np.asarray(np.uint64((1 << n) - 1))

    def step():
        np.right_shift(x, shift, out)
        np.bitwise_and(out, field, out)
    return step, ()
