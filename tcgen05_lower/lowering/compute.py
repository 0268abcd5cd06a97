"""Fragments as values: tcgen05.frag_map, and stores of computed fragments.

A fragment in registers (``ldst.LoweredFragment``) holds, in each thread, the elements
``addressing.element`` names for the access that loaded it. ``tcgen05.frag_map`` applies
its body to each of them: the body is cloned once per element the thread holds, with the
element's value (for every input), its row and its column in the fragment as the block
arguments, so the program sees (row, column) and never which thread holds what. The
result is a ``ComputedFragment``: one scalar SSA value per element, in the order of
``ldst._elements``, with the access of the input (the same threads hold the same
elements).

Values in the body are lowered by the upstream conversions, except where the NVPTX
backend has no instruction (it has no exp, tanh or fp8 conversion; a libcall would abort
LLVM). Those are rewritten here, after the body is cloned:

- ``math.exp(x)`` -> ``math.exp2(x * log2(e))``, which becomes ``ex2.approx.f32``;
- ``math.tanh(x)`` -> ``copysign((1 - t) / (1 + t), x)`` with ``t = exp2(-2 |x| log2(e))``
  (no cancellation for large |x|; t <= 1, so nothing overflows);
- ``arith.truncf`` to ``f8E4M3FN`` / ``f8E5M2`` -> ``cvt.rn.satfinite.e4m3x2.f32`` /
  ``.e5m2x2.f32`` (the only f32 -> fp8 conversion PTX has): round to nearest even, finite
  values beyond the format's largest saturate to it (where arith.truncf would give NaN),
  NaN stays NaN. The converted value is the low byte (operand b, "the value converted from
  input b is stored in the lower 8 bits of d", cvt in the PTX ISA).

tcgen05-verify admits only what this handles in a body (``tcgen05_lower.computed``) and
fp8 values only as what the body yields.

In warps that hold no part of the slice (folded layouts, see ``ldst``) the body does not
run: its loads would read addresses computed from elements the warp does not hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower import emit
from tcgen05_lower.bindings import ir, llvm
from tcgen05_lower.computed import COMPUTED_ELEMENTS, FP8_CVT, REDUCE_KINDS
from tcgen05_lower.dialect.ops import FragBroadcastOp, FragMapOp, FragReduceOp, LdOp
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import row_slots
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.vector_stores import _gep_constant, _row_inside, vector_store_test
from tcgen05_lower.lowering.registers import LoweredFragment, _elements, _mapping, _Matrix

@dataclass
class ComputedFragment(LoweredFragment):
    """A fragment computed by tcgen05.frag_map: ``values`` holds one scalar per element
    (``ldst._elements`` order of ``access``); ``registers`` is unused (None)."""

    values: list = None


# ------------------------------------------------------------------------------ helpers

def _index(x):
    """An int or i64 Sym as an index value."""
    return cast(as_value(x, i64()), ir.IndexType.get())


def _create(name: str, result_type, operands, attributes=None):
    return ir.Operation.create(name, results=[result_type] if result_type else [],
                               operands=list(operands), attributes=attributes or {})


def _float_constant(value: float, type_):
    return _create("arith.constant", type_, [],
                   {"value": ir.FloatAttr.get(type_, value)}).results[0]


def element_scalars(fragment, elements, element_type) -> list:
    """The value of each element of `fragment` (an input of a frag_map), as a scalar of
    `element_type`, in the order of `elements` (``ldst._elements`` of its access)."""
    if isinstance(fragment, ComputedFragment):
        return list(fragment.values)
    i16 = ir.IntegerType.get_signless(16)
    bits = 16 if fragment.element in ("f16", "bf16") else 32
    scalars = []
    for reg, half, *_ in elements:
        value = fragment.registers[reg]
        if bits == 16:
            if half:
                value = as_value(Sym(value) >> 16, i32())
            value = _create("arith.trunci", i16, [value]).results[0]
        if value.type != element_type:
            value = _create("arith.bitcast", element_type, [value]).results[0]
        scalars.append(value)
    return scalars


def _same_column(a, b) -> bool:
    """Whether two slice columns (ints or i32 Syms) are the same value."""
    if isinstance(a, Sym) or isinstance(b, Sym):
        return isinstance(a, Sym) and isinstance(b, Sym) and a.value == b.value
    return a == b


def _scf_if(condition, build, result_types):
    """``scf.if condition`` yielding build()'s values, else poison; None: build()."""
    if condition is None:
        return build()
    op = ir.Operation.create("scf.if", results=list(result_types), operands=[condition],
                             regions=2)
    with ir.InsertionPoint(op.regions[0].blocks.append()):
        ir.Operation.create("scf.yield", operands=list(build()))
    with ir.InsertionPoint(op.regions[1].blocks.append()):
        ir.Operation.create("scf.yield", operands=[
            ir.Operation.create("ub.poison", results=[t]).results[0] for t in result_types])
    return list(op.results)


# ------------------------------------------------------------------------------ the body

def apply_body(lowering, op, arguments: list):
    """Clones the body of frag_map `op` at the insertion point with `arguments` for its
    block arguments, rewrites what NVPTX cannot lower (module docstring) and returns the
    yielded value."""
    clone = op.clone()  # at the insertion point; only its body is kept
    block = clone.regions[0].blocks[0]
    for argument, value in zip(block.arguments, arguments):
        argument.replace_all_uses_with(value)
    inner = [o.operation for o in block.operations]
    terminator = inner[-1]
    yielded = terminator.operands[0]
    where = ir.InsertionPoint(clone)
    for o in inner[:-1]:
        o.detach_from_parent()
        where.insert(o)
    clone.erase()
    for o in inner[:-1]:
        yielded = _rewrite_tree(o, yielded)
    return yielded


def _rewrite_tree(op, yielded):
    """Rewrites `op` and the ops nested in it (module docstring); returns `yielded`, or
    its replacement if `op` defined it."""
    for region in op.regions:
        for block in region.blocks:
            for inner in list(block.operations):
                _rewrite_tree(inner.operation, None)
    replacement = _rewrite(op)
    if replacement is None:
        return yielded
    result = op.results[0]
    result.replace_all_uses_with(replacement)
    op.erase()
    return replacement if yielded == result else yielded


def _rewrite(op):
    """The value replacing `op`'s result, built before `op`, or None to keep `op`."""
    name = op.name
    if name not in ("math.exp", "math.tanh", "arith.truncf"):
        return None
    type_ = op.results[0].type
    with ir.InsertionPoint(op), op.location:
        if name == "arith.truncf":
            fp8 = FP8_CVT.get(str(type_))
            if fp8 is None:
                return None
            i16 = ir.IntegerType.get_signless(16)
            zero = _float_constant(0.0, ir.F32Type.get())
            # d = {cvt(a) upper byte, cvt(b) lower byte}: the element is b.
            (pair,) = emit.ptx(f"cvt.rn.satfinite.{fp8}.f32 $0, $1, $2;",
                               [zero, op.operands[0]], [i16])
            byte = _create("arith.trunci", ir.IntegerType.get_signless(8), [pair]).results[0]
            return _create("builtin.unrealized_conversion_cast", type_, [byte]).results[0]
        x = op.operands[0]
        log2e = _float_constant(1.0 / math.log(2.0), type_)
        if name == "math.exp":
            scaled = _create("arith.mulf", type_, [x, log2e]).results[0]
            return _create("math.exp2", type_, [scaled]).results[0]
        # tanh(x) = sign(x) (1 - t) / (1 + t), t = e^(-2|x|) = 2^(-2 log2(e) |x|)
        magnitude = _create("math.absf", type_, [x]).results[0]
        factor = _float_constant(-2.0 / math.log(2.0), type_)
        t = _create("math.exp2", type_, [
            _create("arith.mulf", type_, [magnitude, factor]).results[0]]).results[0]
        one = _float_constant(1.0, type_)
        numerator = _create("arith.subf", type_, [one, t]).results[0]
        denominator = _create("arith.addf", type_, [one, t]).results[0]
        ratio = _create("arith.divf", type_, [numerator, denominator]).results[0]
        return _create("math.copysign", type_, [ratio, x]).results[0]


# ------------------------------------------------------------------------------ frag_map

@lowers(FragMapOp)
def lower_frag_map(lowering, op) -> None:
    inputs = [lowering.values[v] for v in op.operands]
    if not inputs:
        return lower_row_map_of_nothing(lowering, op)
    first = inputs[0]
    if any(f.reduced for f in inputs):
        return lower_per_row_map(lowering, op, inputs)
    for other in inputs[1:]:
        if _mapping(other.access) != _mapping(first.access) or \
                not _same_column(other.column, first.column):
            lowering.fail(op, f"tcgen05.frag_map: its inputs are held as "
                              f"{first.access.describe()} and {other.access.describe()} "
                              f"(or for different columns): the same threads must hold the "
                              f"same elements of each")
    result = d.type_info(op.results[0].type)
    shell = LoweredFragment([None] * first.access.registers, first.access, first.element,
                            first.column, first.active)
    elements = list(_elements(lowering, shell))
    block = op.regions[0].blocks[0]
    input_types = [block.arguments[i].type for i in range(len(inputs))]
    result_type = block.operations[len(block.operations) - 1].operation.operands[0].type

    def compute():
        scalars = [element_scalars(f, elements, t) for f, t in zip(inputs, input_types)]
        values = []
        for i, (_, _, row, col, _) in enumerate(elements):
            arguments = [s[i] for s in scalars] + [_index(row), _index(col)]
            values.append(apply_body(lowering, op, arguments))
        return values

    values = _scf_if(first.active, compute, [result_type] * len(elements))
    lowering.values[op.results[0]] = ComputedFragment(
        None, first.access, result.element, first.column, first.active, values=values)


def _per_row_elements(lowering, fragment):
    """The elements a thread holds of a per-row fragment ([rows, 1]: a per-row result,
    a one-column load, or a frag_map of them), one per slot of its access in slot order
    (isa.row_slots: .32x32b holds one row per thread, .16x32bx2 of a full-datapath
    layout two, by lane half); None if it is held otherwise."""
    access = fragment.access
    if row_slots.why_not(access) is not None:
        return None
    registers = fragment.registers
    if registers is None:  # computed
        registers = [None] * len(fragment.values)
    shell = LoweredFragment([None] * len(registers), access, fragment.element,
                            fragment.column, fragment.active, reduced=fragment.reduced)
    elements = list(_elements(lowering, shell))
    if len(elements) != access.lane_halves:
        return None
    if not fragment.reduced and [row_slots.slot_of(access, reg) for reg, *_ in elements] != \
            list(range(access.lane_halves)):
        return None
    return elements


def lower_row_map_of_nothing(lowering, op) -> None:
    """A frag_map of no input, [128, 1]: a per-row value computed from its row alone,
    held as a per-row result is, one register in the thread of the row: thread l of warp
    w holds row 32 w + l (.32x32b of Layout D)."""
    access = WarpgroupAccess.create("D", n=1, width=1, shape="32x32b", num=1,
                                    op=LdOp.NAME)
    element = d.type_info(op.results[0].type).element
    shell = LoweredFragment([None], access, element, 0, None, reduced=True)
    (_, _, row, _, _), = _elements(lowering, shell)
    value = apply_body(lowering, op, [_index(row), _index(0)])
    lowering.values[op.results[0]] = LoweredFragment(
        [_bits32(value)], access, element, 0, None, reduced=True)


def lower_per_row_map(lowering, op, inputs) -> None:
    """A frag_map of per-row values (one of them a per-row result: tcgen05-verify admits
    no other input beside one): each thread holds one element of each per slot, the
    slot's row, the same rows in every input (tcgen05-select-layouts), so the body runs
    once per slot. The result is held as the first input is: a per-row result (one
    register per slot, ``reduced``) or, after a one-column load, a computed fragment."""
    held = [_per_row_elements(lowering, f) for f in inputs]
    first = inputs[0]
    for fragment, elements in zip(inputs, held):
        if elements is None or not row_slots.same_rows(fragment.access, first.access):
            lowering.fail(op, f"tcgen05.frag_map of per-row values: an input is held as "
                              f"{fragment.access.describe()}, not with the rows of "
                              f"{first.access.describe()} in each thread")
    block = op.regions[0].blocks[0]
    input_types = [block.arguments[i].type for i in range(len(inputs))]
    result = d.type_info(op.results[0].type)
    result_type = block.operations[len(block.operations) - 1].operation.operands[0].type
    slots = len(held[0])

    def compute():
        scalars = [element_scalars(f, e, t) for f, e, t in zip(inputs, held, input_types)]
        values = []
        for slot in range(slots):
            (_, _, row, _, _) = held[0][slot]
            value = apply_body(lowering, op, [s[slot] for s in scalars]
                               + [_index(row), _index(0)])
            values.append(_bits32(value) if first.reduced else value)
        return values

    values = _scf_if(first.active, compute,
                     [i32() if first.reduced else result_type] * slots)
    if first.reduced:
        lowering.values[op.results[0]] = LoweredFragment(
            values, first.access, result.element, first.column, first.active, reduced=True)
    else:
        lowering.values[op.results[0]] = ComputedFragment(
            None, first.access, result.element, first.column, first.active, values=values)


# ------------------------------------------------------------------------- store_fragment

def store_computed(lowering, op, fragment: ComputedFragment) -> None:
    """store_fragment of a computed fragment: each element (row, col) of the slice at
    its place in the global matrix (``ldst._Matrix``: the run-time ``dims`` row and
    column offsets and leading dimension as well as the attributes), as its type's bytes
    (fp8 as one byte), and only where it lies inside the matrix's extents when they are
    given."""
    dest = op.operands[1]
    column = Sym(cast(op.operands[2], i64()))
    size = COMPUTED_ELEMENTS.get(fragment.element)
    if size is None:
        lowering.fail(op, f"tcgen05.store_fragment: {fragment.element} fragments are not "
                          f"supported")
    matrix = _Matrix(op, column, size)
    shell = LoweredFragment([None] * fragment.access.registers, fragment.access,
                            fragment.element, fragment.column, fragment.active)
    elements = list(_elements(lowering, shell))
    # 16-byte stores where each thread's elements are consecutive columns of its row and
    # the rows are 16-byte aligned, behind a warp-uniform run-time test when that is not
    # known (an i1; None: no test; False: never), as ldst.lower_store_fragment does for
    # loaded fragments; the scalar stores below at the column edge. Imported here: the
    # store-side helpers live with lower_store_fragment, whose module imports this one.
    vector = vector_store_test(lowering, op, shell, matrix, size)

    def stores():
        if vector is None:
            return _vector_stores(matrix, elements, fragment.values, dest, size)
        if vector is not False:
            _if_then_else(vector, lambda: _vector_stores(matrix, elements, fragment.values,
                                                         dest, size), scalar_stores)
            return []
        return scalar_stores()

    def scalar_stores():
        for (_, _, row, col, _), value in zip(elements, fragment.values):
            if size == 1:
                value = _create("builtin.unrealized_conversion_cast",
                                ir.IntegerType.get_signless(8), [value]).results[0]
            offset, inside = matrix.place(row, col)
            address = emit.gep_bytes(dest, as_value(offset, i64()))
            if inside is None:
                llvm.StoreOp(value, address, alignment=size)
                continue
            # A predicated st.global, not a branch (as ldst.lower_store_fragment): the
            # warp stays converged for the .sync.aligned tcgen05.ld of the next slice.
            emit.ptx(f"@$2 st.global.b{8 * size} [$0], $1;",
                     [address, _store_bits(value, size), inside])
        return []

    _scf_if(fragment.active, stores, [])


def _if_then_else(condition, then_build, else_build) -> None:
    """``scf.if condition { then_build() } else { else_build() }`` without results."""
    op = ir.Operation.create("scf.if", results=[], operands=[condition], regions=2)
    for region, build in zip(op.regions, (then_build, else_build)):
        with ir.InsertionPoint(region.blocks.append()):
            build()
            ir.Operation.create("scf.yield")


def _vector_stores(matrix: _Matrix, elements: list, values: list, dest, size: int) -> list:
    """One st.global.v4.b32 per 16 bytes of a thread's consecutive columns (the caller
    checked alignment and the column extent), under the thread's row test (a predicate,
    not a branch: the warp stays converged for the next .sync.aligned tcgen05.ld). Each
    32-bit word holds 4 / size elements, the lower column in the lower bits: memory is
    little-endian, so the bytes land in column order (PTX ISA 5.2.1)."""
    _, _, row, col, _ = elements[0]
    offset, _ = matrix.place(row, col)
    base = emit.gep_bytes(dest, as_value(offset, i64()))
    inside = _row_inside(matrix, elements)
    per_word = 4 // size
    words = [_packed_word(values[i:i + per_word], size)
             for i in range(0, len(values), per_word)]
    for first in range(0, len(words), 4):
        emit.ptx("st.global.v4.b32 [$0], {$1, $2, $3, $4};",
                 [_gep_constant(base, 4 * first)] + words[first:first + 4], predicate=inside)
    return []


def _packed_word(values: list, size: int):
    """The i32 of `values` (4 / size elements of `size` bytes), the first in the low
    bits."""
    if size == 4:
        return _bits32(values[0])
    if size == 2:
        # One mov packs two 16-bit registers (PTX ISA, mov: element 0 the low half).
        i16 = ir.IntegerType.get_signless(16)
        halves = [v if v.type == i16 else _create("arith.bitcast", i16, [v]).results[0]
                  for v in values]
        (word,) = emit.ptx("mov.b32 $0, {$1, $2};", halves, [i32()])
        return word
    word = None     # fp8: four bytes, shifted into place
    for j, value in enumerate(values):
        byte = _create("builtin.unrealized_conversion_cast",
                       ir.IntegerType.get_signless(8), [value]).results[0]
        bits = Sym(_create("arith.extui", i32(), [byte]).results[0]) << (8 * j)
        word = bits if word is None else word | bits
    return as_value(word, i32())


def _store_bits(value, size: int):
    """`value` as the integer register an inline st.global.b{8 size} takes: i32 for 4
    bytes, i16 for 2 and for 1 (a b8 store writes the low byte of a 16-bit register)."""
    if size == 4:
        return _bits32(value)
    i16 = ir.IntegerType.get_signless(16)
    if size == 1:
        return _create("arith.extui", i16, [value]).results[0]
    if value.type != i16:
        value = _create("arith.bitcast", i16, [value]).results[0]
    return value


# ------------------------------------------------------------------------- tcgen05.st

def _bits16(value):
    """The 16-bit pattern of an f16/bf16/i16 scalar, zero-extended to i32."""
    i16 = ir.IntegerType.get_signless(16)
    if value.type != i16:
        value = _create("arith.bitcast", i16, [value]).results[0]
    return _create("arith.extui", i32(), [value]).results[0]


def _bits32(value):
    if value.type != i32():
        value = _create("arith.bitcast", i32(), [value]).results[0]
    return value


def computed_registers(lowering, fragment: ComputedFragment) -> LoweredFragment:
    """The registers a tcgen05.st of the computed `fragment` into a D-like buffer sends:
    the access of its input holds the same elements, each 32-bit value in its register,
    a 16-bit one zero-extended into the low half or, with .unpack::16b, the lower column
    in the low half (the fragment packing of 9.7.16.8.2)."""
    shell = LoweredFragment([None] * fragment.access.registers, fragment.access,
                            fragment.element, fragment.column, fragment.active)
    elements = list(_elements(lowering, shell))
    wide = COMPUTED_ELEMENTS.get(fragment.element) == 4

    def build():
        registers = [None] * fragment.access.registers
        for (reg, half, *_), value in zip(elements, fragment.values):
            bits = Sym(_bits32(value) if wide else _bits16(value))
            if half:
                bits = Sym(registers[reg]) | (bits << 16)
            registers[reg] = as_value(bits, i32())
        return registers

    registers = _scf_if(fragment.active, build, [i32()] * fragment.access.registers)
    return LoweredFragment(registers, fragment.access, fragment.element, fragment.column,
                           fragment.active)


# ------------------------------------------------------------- per-row values

def _shuffle_xor(value, mask: int):
    """The f32 `value` of the thread whose lane is this one's XOR `mask` (all 32 threads
    of the warp take part: shfl.sync.bfly with membermask 0xffffffff, 9.7.10.9)."""
    bits = _create("arith.bitcast", i32(), [value]).results[0]
    (other,) = emit.ptx(f"shfl.sync.bfly.b32 $0, $1, {mask}, 0x1f, 0xffffffff;", [bits],
                        [i32()])
    return _create("arith.bitcast", ir.F32Type.get(), [other]).results[0]


@lowers(FragReduceOp)
def lower_frag_reduce(lowering, op) -> None:
    """Each thread combines, per slot (isa.row_slots), the elements it holds of the
    slot's row in column order; where several threads hold parts of a row (.16x32bx2:
    threads l and l xor 16), their partial results are combined by butterfly shuffles,
    which leave every holder the same value (IEEE addition and max are commutative).
    The result is held like tcgen05.ld_red's per-row result (one register per slot,
    ``reduced``)."""
    fragment = lowering.values[op.operands[0]]
    access = fragment.access
    why = "it is a per-row value" if fragment.reduced else row_slots.why_not(access)
    if why is not None:
        lowering.fail(op, f"tcgen05.frag_reduce: the fragment is held as "
                          f"{access.describe()}: {why}")
    if fragment.active is not None:
        lowering.fail(op, "tcgen05.frag_reduce: only some warps hold the fragment")
    f32 = ir.F32Type.get()
    combine = REDUCE_KINDS[FragReduceOp(op).kind]
    shell = LoweredFragment([None] * access.registers, access, fragment.element,
                            fragment.column, fragment.active)
    elements = list(_elements(lowering, shell))
    scalars = element_scalars(fragment, elements, f32)
    totals = [None] * access.lane_halves
    for (reg, *_), value in zip(elements, scalars):
        slot = row_slots.slot_of(access, reg)
        totals[slot] = value if totals[slot] is None else \
            _create(combine, f32, [totals[slot], value]).results[0]
    for mask in row_slots.shuffle_masks(access):
        totals = [_create(combine, f32, [t, _shuffle_xor(t, mask)]).results[0]
                  for t in totals]
    registers = [_create("arith.bitcast", i32(), [t]).results[0] for t in totals]
    lowering.values[op.results[0]] = LoweredFragment(
        registers, access, "f32", fragment.column, fragment.active, reduced=True)


@lowers(FragBroadcastOp)
def lower_frag_broadcast(lowering, op) -> None:
    """Every element `like` holds in a thread gets the thread's per-row value of the
    element's slot: both give each thread the same rows in the same slots
    (tcgen05-select-layouts checked it; isa.row_slots)."""
    rows = lowering.values[op.operands[0]]
    like = lowering.values[op.operands[1]]
    held = _per_row_elements(lowering, rows)
    if held is None or like.reduced or not row_slots.same_rows(rows.access, like.access):
        lowering.fail(op, f"tcgen05.frag_broadcast: the row vector is held as "
                          f"{rows.access.describe()} and the fragment as "
                          f"{like.access.describe()}, not with the same rows in each thread")
    element = d.type_info(op.results[0].type).element
    element_type = ir.Type.parse(element)
    values = element_scalars(rows, held, element_type)
    shell = LoweredFragment([None] * like.access.registers, like.access, like.element,
                            like.column, like.active)
    slots = [row_slots.slot_of(like.access, reg) for reg, *_ in _elements(lowering, shell)]
    lowering.values[op.results[0]] = ComputedFragment(
        None, like.access, element, like.column, like.active,
        values=[values[slot] for slot in slots])
