"""Warpgroup loads and stores of tensor memory (9.7.16.8) and fragments in global memory.

A warpgroup access of columns [column, column + width) of a TMEM buffer is, in each warp
that takes part, a sequence of equal messages (tcgen05-select-layouts chose the shape,
``.num``, immHalfSplitoff and packing). Everything else follows from
``tcgen05_lower.isa.addressing``, the formulas the tests check against the fragment model
and the layouts' inverses:

- which warps take part: all four, except for a slice inside some column blocks of a
  folded layout (B, E, G, C read as B), where the warps whose lanes hold other blocks
  skip the messages (a warp-uniform predicate, as .sync.aligned requires);
- the taddr of message m of warp w: the buffer's address + (lane << 16) + column, with
  the lane of the warp's quarter (9.7.16.8.1) and the column of the slice in the warp's
  block (``addressing.message_address``);
- which element each register holds (``addressing.element``): store_fragment and
  load_fragment use it to address global memory, row = cta * R + the row within the
  CTA, where cta is ``%cluster_ctarank & 1`` in a cta_group::2 kernel (each CTA of the
  pair issues the same messages at the same address and holds its own rows,
  tmem-facts section 1) and 0 otherwise.

tcgen05.ld.red (9.7.16.8.3) gives one value per thread and message; the values of a
thread's messages over the same lanes are combined with the same min/max, and for
.16x32bx2, whose lane is read by threads l and l + 16, with the partner's value
(``shfl.bfly 16``): whether the instruction's value already covers both halves the text
does not say, and min/max of the two is right either way.
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import int_value, ir, llvm, nvvm
from tcgen05_lower.dialect.ops import (LdOp, LdRedOp, LoadFragmentOp, StOp, StoreFragmentOp,
                                       TmemBufferOp, wrap)
from tcgen05_lower.element_types import isa_bits, isa_type
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import addressing
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op, packs16, root_buffers
from tcgen05_lower.lowering.a_operand import load_a_fragment, store_a_operand
from tcgen05_lower.lowering.compute import computed_registers, store_computed
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.registers import (LoweredFragment, _and, _elements, _if, _if_else,
                                              _index_operand, _mapping, _Matrix, _message,
                                              message_taddrs)
from tcgen05_lower.lowering.vector_stores import (VECTOR_BYTES, _byte_steps, _edge_vector_stores,
                                                  _gep_constant, _store, _vector_of, vector_runs,
                                                  vector_store_test)

#: arith.cmpi predicate "ult".
_ULT = 6


# ------------------------------------------------------------------------------ helpers

def _buffer(lowering, op, value):
    """The ``tcgen05.tmem_buffer`` whose layout and footprint describe the TMEM operand
    `value` of `op`: its producer, or for a ``tcgen05.tmem_stage`` view the multi-buffered
    buffer it is a stage of, or for a buffer chosen at run time (a select, a branch or
    loop value) the first buffer that reaches it, whose layout tcgen05-select-layouts
    checked is every such buffer's. A stage or a chosen buffer is addressed through its
    own lowered address (lowering/views.py, core.retype_chosen_buffers); its layout,
    layout_c and [rows, cols] (the last two dimensions of the buffer's type) are the
    buffer's, so the access plans alike."""
    buffers = root_buffers(value)
    buffer = buffers[0] if buffers else None
    if buffer is None or not TmemBufferOp(buffer).has(TmemBufferOp.layout):
        lowering.fail(op, f"tcgen05.{d.op_name(op)}: the TMEM operand has no layout: run "
                          f"tcgen05-select-layouts first")
    return buffer


def plan_of(lowering, op, buffer, width: int, kind: str) -> WarpgroupAccess:
    """The access tcgen05-select-layouts planned for `op` on `buffer` (``kind``: "ld",
    "st" or "ld_red"), from the op's shape/num/half_split/pack attributes (``unpack16``
    on tcgen05.st, ``pack16`` on ld and load_fragment; ld.red never packs)."""
    typed = wrap(op)
    if not typed.has(LdOp.shape) or not typed.has(LdOp.num):
        lowering.fail(op, f"tcgen05.{d.op_name(op)} has no message shape: run "
                          f"tcgen05-select-layouts first")
    buffer = TmemBufferOp(buffer)
    t = d.type_info(buffer.buffer.type)
    try:
        return WarpgroupAccess.create(
            buffer.layout, n=t.cols, width=width, shape=typed.shape,
            num=typed.num,
            pack16=packs16(typed),
            half_split=typed.half_split,
            layout_c=buffer.layout_c if buffer.layout_c is not None else "F", op=kind)
    except IsaRuleError as exc:
        lowering.fail(op, f"tcgen05.{d.op_name(op)}: {exc}")


def taking_part(lowering, access: WarpgroupAccess, column):
    """An i1 that is true in the warps that take part, or None when all four do."""
    if not access.partial:
        return None
    offset = addressing.block_offset(access, lowering.warp_in_group, column)
    blocks = emit.constant(access.blocks, i32())
    return ir.Operation.create("arith.cmpi", results=[emit.i1()],
                               operands=[as_value(offset, i32()), blocks],
                               attributes={"predicate": ir.IntegerAttr.get(i64(), _ULT)}
                               ).results[0]


def _element_bytes(lowering, op, element: str) -> int:
    try:
        bits = isa_bits(element)
    except KeyError:
        bits = None
    if bits not in (16, 32):
        lowering.fail(op, f"tcgen05.{d.op_name(op)}: {element} fragments are not supported")
    return bits // 8


# ------------------------------------------------------------------------------ tcgen05.ld

@lowers(LdOp)
def lower_ld(lowering, op) -> None:
    buffer = _buffer(lowering, op, op.operands[0])
    frag = d.type_info(op.results[0].type)
    access = plan_of(lowering, op, buffer, frag.shape[1], LdOp.NAME)
    column = _index_operand(op.operands[1])
    active = taking_part(lowering, access, column)
    registers = []
    count = access.message_registers
    for taddr in message_taddrs(lowering, access, lowering.values[op.operands[0]], column):
        text = ptx.ld(access.shape, access.num, [f"${i}" for i in range(count)], f"${count}",
                      half_split=access.half_split, pack16=access.pack16)
        registers += _message(text, [taddr], count, active)
    lowering.values[op.results[0]] = LoweredFragment(registers, access, frag.element,
                                                     column, active)


# ------------------------------------------------------------------------------ tcgen05.st

@lowers(StOp)
def lower_st(lowering, op) -> None:
    buffer = _buffer(lowering, op, op.operands[0])
    fragment = lowering.values[op.operands[2]]
    frag = d.type_info(op.operands[2].type)
    if TmemBufferOp(buffer).role == "a":
        return store_a_operand(lowering, op, buffer, fragment)
    access = plan_of(lowering, op, buffer, frag.shape[1], StOp.NAME)
    if fragment.registers is None:  # computed by tcgen05.frag_map
        fragment = computed_registers(lowering, fragment)
    if fragment.reduced or _mapping(fragment.access) != _mapping(access):
        lowering.fail(op, f"tcgen05.st: the fragment's registers are laid out for "
                          f"{fragment.access.describe()}, not for this store's "
                          f"{access.describe()} (tcgen05-select-layouts plans both alike)")
    column = _index_operand(op.operands[1])
    active = taking_part(lowering, access, column)
    count = access.message_registers
    taddrs = message_taddrs(lowering, access, lowering.values[op.operands[0]], column)
    for m, taddr in enumerate(taddrs):
        sources = fragment.registers[m * count:(m + 1) * count]
        text = ptx.st(access.shape, access.num, "$0", [f"${i + 1}" for i in range(count)],
                      half_split=access.half_split, unpack16=access.pack16)
        _message(text, [taddr] + sources, 0, active)


# -------------------------------------------------------------------------- tcgen05.ld.red

_COMBINE = MappingProxyType({
    ("min", "f32", False): "arith.minnumf", ("min", "f32", True): "arith.minimumf",
    ("max", "f32", False): "arith.maxnumf", ("max", "f32", True): "arith.maximumf",
    ("min", "s32", False): "arith.minsi", ("max", "s32", False): "arith.maxsi",
    ("min", "u32", False): "arith.minui", ("max", "u32", False): "arith.maxui",
})


def _combine(a, b, red_op: str, type_: str, nan: bool):
    """min/max of two reduction values with the instruction's semantics: for .f32 NaN is
    skipped (minnum) unless .NaN asks for it to propagate (minimum)."""
    name = _COMBINE[(red_op, type_, nan and type_ == "f32")]
    if type_ != "f32":
        return ir.Operation.create(name, results=[i32()], operands=[a, b]).results[0]
    f32 = ir.F32Type.get()
    fa, fb = (ir.Operation.create("arith.bitcast", results=[f32], operands=[v]).results[0]
              for v in (a, b))
    r = ir.Operation.create(name, results=[f32], operands=[fa, fb]).results[0]
    return ir.Operation.create("arith.bitcast", results=[i32()], operands=[r]).results[0]


def _partner(value):
    """The value of thread l ^ 16 of the warp (shfl.sync.bfly)."""
    return nvvm.ShflOp(i32(), emit.constant(-1, i32()), value, emit.constant(16, i32()),
                       emit.constant(0x1F, i32()), nvvm.ShflKind.bfly).result


@lowers(LdRedOp)
def lower_ld_red(lowering, op) -> None:
    buffer = _buffer(lowering, op, op.operands[0])
    frag = d.type_info(op.results[0].type)
    access = plan_of(lowering, op, buffer, frag.shape[1], LdRedOp.NAME)
    red = LdRedOp(op)
    red_op = red.op
    type_ = "u32" if frag.element == "ui32" else isa_type(frag.element)
    nan = bool(red.nan)
    column = _index_operand(op.operands[1])
    active = taking_part(lowering, access, column)
    count = access.message_registers
    registers, slots = [], [None] * addressing.reduced_slots(access)
    taddrs = message_taddrs(lowering, access, lowering.values[op.operands[0]], column)
    for m, taddr in enumerate(taddrs):
        try:
            text = ptx.ld_red(access.shape, access.num, red_op, type_,
                              [f"${i}" for i in range(count)], f"${count}", f"${count + 1}",
                              half_split=access.half_split,
                              abs_=bool(red.abs), nan=nan)
        except IsaRuleError as exc:
            lowering.fail(op, f"tcgen05.ld_red: {exc}")
        values = _message(text, [taddr], count + 1, active)
        registers += values[:count]
        slot = m % access.lane_halves
        slots[slot] = values[count] if slots[slot] is None else _combine(
            slots[slot], values[count], red_op, type_, nan)
    if access.shape == "16x32bx2":
        slots = [_combine(v, _partner(v), red_op, type_, nan) for v in slots]
    lowering.values[op.results[0]] = LoweredFragment(registers, access, frag.element,
                                                     column, active)
    lowering.values[op.results[1]] = LoweredFragment(slots, access, frag.element, column,
                                                     active, reduced=True)


# ------------------------------------------------------------------ fragments <-> global

@lowers(StoreFragmentOp)
def lower_store_fragment(lowering, op) -> None:
    """Each element at its place in the matrix (_Matrix), stored only where it lies
    inside the matrix's extents when they are given."""
    fragment = lowering.values[op.operands[0]]
    if fragment.registers is None:  # computed by tcgen05.frag_map
        return store_computed(lowering, op, fragment)
    dest = op.operands[1]
    column = Sym(cast(op.operands[2], i64()))
    size = _element_bytes(lowering, op, fragment.element)
    matrix = _Matrix(op, column, size)
    steps = _byte_steps(lowering, fragment, matrix)
    if steps is None:
        elements = list(_elements(lowering, fragment))
    else:
        # Only the first element's place is built; the others are steps from it.
        first = next(_elements(lowering, fragment))
        halves = (0, 1) if fragment.access.pack16 else (None,)
        elements = [first] + [(reg, half, None, None, first[4])
                              for reg in range(len(fragment.registers))
                              for half in halves][1:]
    owner = elements[0][4] if elements else None
    runs = vector_runs(lowering, op, fragment, matrix, steps, size)

    def vector_stores():
        # 16-byte stores at constant steps from the first element's address.
        _, _, row, col, _ = elements[0]
        offset, _ = matrix.place(row, col)
        base = emit.gep_bytes(dest, as_value(offset, i64()))
        for run in runs:
            address = _gep_constant(base, steps[run[0]])
            values = [fragment.registers[elements[i][0]] for i in run]
            if len(run) == 1:
                llvm.StoreOp(values[0], address, alignment=size)
            else:
                llvm.StoreOp(_vector_of(values), address, alignment=VECTOR_BYTES)
        return []

    # Extents or a run-time ld: 16-byte stores behind a run-time test that the rows are
    # aligned and the columns inside (an i1; None: known, no test; False: never aligned
    # or not consecutive columns); a fragment across the column edge stores scalars.
    edge = False
    if runs is None and steps is None and size == 4:
        edge = vector_store_test(lowering, op, fragment, matrix, size)

    def stores():
        if runs is not None:
            return vector_stores()
        if edge is None:
            _edge_vector_stores(fragment, matrix, elements, dest)
            return []
        if edge is not False:
            _if_else(edge, lambda: _edge_vector_stores(fragment, matrix, elements, dest),
                     scalar_stores)
            return []
        return scalar_stores()

    # A reduced .16x32bx2 row is held by threads l and l + 16 and stored by l only (its
    # owner): on the scalar path that is each store's predicate, not a branch, so the
    # warp stays converged for a .sync.aligned instruction after the store.
    predicated_owner = owner if runs is None and edge is False else None

    def scalar_stores():
        base = None
        for i, (reg, half, row, col, _) in enumerate(elements):
            value = fragment.registers[reg]
            if size == 2:
                if half:
                    value = as_value(Sym(value) >> 16, i32())
                value = ir.Operation.create("arith.trunci",
                                            results=[ir.IntegerType.get_signless(16)],
                                            operands=[value]).results[0]
            if steps is not None:
                # One address computed for the first element; the others are constant
                # byte steps from it, the same in every thread.
                if base is None:
                    offset, _ = matrix.place(row, col)
                    base = emit.gep_bytes(dest, as_value(offset, i64()))
                address = _gep_constant(base, steps[i])
                if predicated_owner is None:
                    _store(value, address, size)
                else:
                    emit.ptx(f"@$2 st.global.b{8 * size} [$0], $1;",
                             [address, value, predicated_owner])
                continue
            offset, inside = matrix.place(row, col)
            inside = _and(predicated_owner, inside)
            address = emit.gep_bytes(dest, as_value(offset, i64()))
            if inside is None:
                llvm.StoreOp(value, address, alignment=size)
            else:
                # A predicated st.global, not a branch: the warp stays converged for
                # the .sync.aligned tcgen05.ld of the next slice.
                emit.ptx(f"@$2 st.global.b{8 * size} [$0], $1;", [address, value, inside])
        return []

    _if(_and(fragment.active, owner if predicated_owner is None else None), stores)


@lowers(LoadFragmentOp)
def lower_load_fragment(lowering, op) -> None:
    store = _consumer_store(lowering, op)
    buffer = _buffer(lowering, store, store.operands[0])
    if TmemBufferOp(buffer).role == "a":  # packed as A is (isa.a_store)
        return load_a_fragment(lowering, op, buffer)
    frag = d.type_info(op.results[0].type)
    access = plan_of(lowering, op, buffer, frag.shape[1], StOp.NAME)
    source = op.operands[0]
    column = Sym(cast(op.operands[1], i64()))
    size = _element_bytes(lowering, op, frag.element)
    matrix = _Matrix(op, column, size)
    slice_column = _slice_column(lowering, op, store)
    active = taking_part(lowering, access, slice_column)
    shell = LoweredFragment([None] * access.registers, access, frag.element, slice_column,
                            active)
    elements = list(_elements(lowering, shell))
    i16 = ir.IntegerType.get_signless(16)

    def loads():
        registers = [None] * access.registers
        for reg, half, row, col, _ in elements:
            offset, inside = matrix.place(row, col)
            address = emit.gep_bytes(source, as_value(offset, i64()))
            element_type = i32() if size == 4 else i16
            if inside is None:
                loaded = llvm.LoadOp(element_type, address, alignment=size).result
            else:
                # An element outside the matrix reads as 0 and is not read: a predicated
                # ld.global, not a branch, so the warp stays converged for tcgen05.st.
                loaded = emit.ptx(f"mov.b{8 * size} $0, 0;\n@$2 ld.global.b{8 * size} $0, "
                                  f"[$1];", [address, inside], [element_type])[0]
            if size == 4:
                registers[reg] = loaded
                continue
            # 16-bit data: zero-extended into the low half, or packed two per register
            # (low half = lower column, fragments module docstring).
            value = Sym(ir.Operation.create("arith.extui", results=[i32()],
                                            operands=[loaded]).results[0])
            if half:
                value = Sym(registers[reg]) | (value << 16)
            registers[reg] = value.value
        return registers

    registers = _if(active, loads, [i32()] * access.registers)
    lowering.values[op.results[0]] = LoweredFragment(registers, access, frag.element,
                                                     slice_column, active)


def _consumer_store(lowering, op):
    for use in op.results[0].uses:
        user = use.owner
        user = user.operation if hasattr(user, "operation") else user
        if StOp.matches(user):
            return user
    lowering.fail(op, "tcgen05.load_fragment: its fragment is not stored with tcgen05.st")


def _slice_column(lowering, load, store):
    """The column of the TMEM slice the fragment is for: the st's column, which must be a
    constant or the load_fragment's own column value (tcgen05-select-layouts checks this
    for folded layouts) so that it is known where the fragment is loaded."""
    column = store.operands[1]
    producer = defining_op(column)
    if producer is not None and producer.name == "arith.constant":
        return int_value(producer.attributes["value"])
    if column == load.operands[1]:
        return Sym(cast(column, i32()))
    buffer = _buffer(lowering, store, store.operands[0])
    buffer = TmemBufferOp(buffer)
    access_layout = buffer.layout
    if access_layout in ("B", "E", "G") or (access_layout == "C" and buffer.layout_c == "B"):
        lowering.fail(store, "tcgen05.st of a folded layout: the column must be a constant "
                             "or the column its fragment was loaded from")
    return 0
