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

import functools
from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import int_value, ir, llvm, nvvm
from tcgen05_lower.dialect.ops import (LdOp, LdRedOp, LoadFragmentOp, StOp, StoreFragmentOp,
                                       TmemBufferOp, TmemStageOp, wrap)
from tcgen05_lower.element_types import isa_bits, isa_type
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import addressing
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import (constant_int, defining_op, global_matrix, known_residue,
                                     packs16, root_buffers)
from tcgen05_lower.lowering.a_operand import load_a_fragment, store_a_operand
from tcgen05_lower.lowering.compute import computed_registers, store_computed
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.registers import (LoweredFragment, _and, _elements, _if, _if_else,
                                              _index_operand, _mapping, _Matrix, _message,
                                              _unsigned_less, cta_in_pair, message_taddrs)

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

@functools.lru_cache(maxsize=256)
def _element_steps(access: WarpgroupAccess, half_geometry: bool, pair: bool):
    """(row, column) of every element a thread's fragment holds (in _elements' order)
    relative to its first element, when that is the same for every thread of the
    warpgroup (and both CTAs of a pair); None when it differs between threads. Worked
    out on the concrete thread numbers (tmem-facts sections 1-2 through
    addressing.element), once per access. `half_geometry` keys the cache on what the
    access's equality leaves out."""
    del half_geometry
    if access.fold != 1:
        return None  # the columns depend on the run-time slice column
    halves = (0, 1) if access.pack16 else (None,)
    regs = [(reg, half) for reg in range(access.registers) for half in halves]
    steps = None
    for cta in ((0, 1) if pair else (0,)):
        for warp in range(addressing.WARPS):
            for thread in range(addressing.LANES_PER_WARP):
                places = [addressing.element(access, warp=warp, thread=thread, reg=reg,
                                             half=half or 0, cta=cta)
                          for reg, half in regs]
                row0, col0 = places[0]
                found = tuple((row - row0, col - col0) for row, col in places)
                if steps is None:
                    steps = found
                elif found != steps:
                    return None
    return steps


def _byte_steps(lowering, fragment: LoweredFragment, matrix: "_Matrix"):
    """The byte offset of every element of `fragment` in the matrix relative to its first
    element, when those are compile-time constants, the same in every thread; None
    otherwise (or when the matrix has extents, whose checks are per element). The offset
    (row * ld + column) * size is linear in the row and column, so the difference of two
    elements is (drow * ld + dcol) * size; with a run-time ld only elements of one row
    qualify."""
    if fragment.reduced or matrix.rows is not None or matrix.columns is not None:
        return None
    access = fragment.access
    steps = _element_steps(access, bool(access.geometry.half), lowering.info.cta_group == 2)
    if steps is None or len(steps) != len(fragment.registers) * (2 if access.pack16 else 1):
        return None
    if any(drow for drow, _ in steps) and not isinstance(matrix.ld, int):
        return None
    return [(drow * (matrix.ld if drow else 0) + dcol) * matrix.size for drow, dcol in steps]


def _gep_constant(base: "ir.Value", offset: int) -> "ir.Value":
    """``base + offset`` bytes, the offset a constant of the GEP itself. Built with
    ``Operation.create``: a fragment stores dozens of elements a tile, and the generated
    builder's argument handling costs twice the op itself."""
    if offset == 0:
        return base
    return ir.Operation.create(
        "llvm.getelementptr", results=[base.type], operands=[base],
        attributes={"rawConstantIndices": ir.DenseI32ArrayAttr.get([offset]),
                    "elem_type": ir.TypeAttr.get(ir.IntegerType.get_signless(8))}).results[0]


def _store(value: "ir.Value", address: "ir.Value", alignment: int) -> None:
    """``llvm.store`` with an alignment (Operation.create, see _gep_constant)."""
    ir.Operation.create("llvm.store", operands=[value, address],
                        attributes={"alignment": ir.IntegerAttr.get(i64(), alignment)})


#: Bytes of the widest global store the lowering emits (st.global.v4.b32, PTX ISA
#: 9.7.9.9: a vector access must be aligned to its whole size).
VECTOR_BYTES = 16


def promised_alignment(lowering, value) -> int:
    """The alignment in bytes a kernel argument promises with the standard ``llvm.align``
    argument attribute (``%C: !llvm.ptr<1> {llvm.align = 16 : i64}``), 1 for any other
    value. The promise is the caller's: the lowering relies on it as LLVM does."""
    owner = value.owner
    if not isinstance(owner, ir.Block) or owner != lowering.kernel.regions[0].blocks[0]:
        return 1
    attributes = lowering.kernel.attributes
    if "arg_attrs" not in attributes:
        return 1
    entry = ir.ArrayAttr(attributes["arg_attrs"])[ir.BlockArgument(value).arg_number]
    entry = ir.DictAttr(entry)
    if "llvm.align" not in entry:
        return 1
    try:
        return int_value(entry["llvm.align"])
    except (ValueError, TypeError):
        return 1  # not an integer: no promise this lowering understands


@functools.lru_cache(maxsize=256)
def _first_columns(access: WarpgroupAccess, half_geometry: bool, pair: bool,
                   column: int) -> frozenset:
    """The columns of the first element of every thread's fragment (all warps, lanes and,
    in a pair, both CTAs), for a slice at the constant `column` (as _elements places
    them), worked out on the concrete thread numbers once per access."""
    del half_geometry
    return frozenset(
        addressing.element(access, warp=warp, thread=thread, reg=0, half=0, cta=cta,
                           column=column)[1]
        for cta in ((0, 1) if pair else (0,))
        for warp in range(addressing.WARPS)
        for thread in range(addressing.LANES_PER_WARP))


def vector_runs(lowering, op, fragment: LoweredFragment, matrix: "_Matrix",
                steps: list | None, size: int) -> list | None:
    """The element indices of `fragment` grouped for 16-byte vector stores, e.g.
    [[0, 1, 2, 3], [4, 5, 6, 7], ...] (a group of one is a scalar store), or None for
    one scalar store per element. Vector stores need every group's address 16-byte
    aligned in every thread: 32-bit elements at constant steps (_byte_steps), the
    destination's promised alignment (promised_alignment) at least 16, a constant leading
    dimension and slice columns that keep the first element of every thread on a 16-byte
    boundary ((row * ld + column) * 4 with ld * 4 and column * 4 multiples of 16), and
    four elements 4 bytes apart from a multiple of 16 of the first. A run-time column
    qualifies when kernel_ir.known_residue proves it a multiple of 4 elements (a tile
    offset t * 256 plus a loop column stepping by 32, say); with an unfolded layout (what
    constant steps imply) the slice's own column does not move a thread's columns."""
    if steps is None or size != 4 or fragment.access.pack16 or \
            epilogue_stores(lowering) != "vector":
        return None
    if promised_alignment(lowering, op.operands[1]) < VECTOR_BYTES:
        return None
    per_vector = VECTOR_BYTES // size
    matrix_column = global_matrix(op).column_offset
    columns = [op.operands[2]] + ([] if matrix_column is None else [matrix_column])
    if not isinstance(matrix.ld, int) or matrix.ld % per_vector or \
            any(known_residue(value, per_vector) != 0 for value in columns):
        return None  # a row or column offset not known to keep 16-byte alignment
    slice_column = fragment.column
    if not isinstance(slice_column, int):
        if fragment.access.fold != 1:
            return None  # a folded layout's columns depend on the run-time slice column
        slice_column = 0  # unfolded: columns are relative to the slice (addressing.element)
    firsts = _first_columns(fragment.access, bool(fragment.access.geometry.half),
                            lowering.info.cta_group == 2, slice_column)
    if any(col % per_vector for col in firsts):
        return None
    runs, i = [], 0
    while i < len(steps):
        run = steps[i:i + per_vector]
        if steps[i] % VECTOR_BYTES == 0 and len(run) == per_vector and \
                all(b - a == size for a, b in zip(run, run[1:])):
            runs.append(list(range(i, i + per_vector)))
            i += per_vector
        else:
            runs.append([i])
            i += 1
    return runs


def epilogue_stores(lowering) -> str:
    """tcgen05-lower-to-llvm's epilogue-stores option: "vector" (the default) or
    "scalar" (one st.global per element, the form before 16-byte stores; the timing
    model compares the two)."""
    pass_ = getattr(lowering, "pass_", None)
    if pass_ is None or not hasattr(pass_, "option"):
        return "vector"
    return pass_.option("epilogue-stores")


def _contiguous_row(lowering, fragment: LoweredFragment, size: int = 4) -> bool:
    """Whether every thread's fragment is consecutive `size`-byte columns 0, 1, ... of
    one row from a first column that is a multiple of 16 / size of the slice (layout D or
    an unfolded .32x32b message: each thread holds N consecutive columns of its row,
    9.7.16.10.5, one per register: a computed fragment's elements follow its input's
    registers), so that elements g * 16 / size .. are 16 contiguous bytes whenever the
    first is 16-byte aligned. Worked out on the concrete thread numbers
    (_element_steps)."""
    access = fragment.access
    per_vector = VECTOR_BYTES // size
    if fragment.reduced or access.pack16 or access.fold != 1 or \
            len(fragment.registers) % per_vector:
        return False
    pair = lowering.info.cta_group == 2
    half = bool(access.geometry.half)
    steps = _element_steps(access, half, pair)
    if steps is None or list(steps) != [(0, c) for c in range(len(fragment.registers))]:
        return False  # not one row of consecutive columns in the same way in every thread
    return all(col % per_vector == 0 for col in _first_columns(access, half, pair, 0))


def _runtime_alignment(lowering, op, size: int = 4) -> "ir.Value | None | bool":
    """An i1, true at run time where the destination pointer, ld * size and the column
    offsets * size are multiples of 16 bytes (each element's row start is then 16-byte
    aligned; warp-uniform: none depends on the thread); None when all of them are known
    to be (kernel_ir.known_residue, the llvm.align promise), so no test is needed."""
    matrix = global_matrix(op)
    per_vector = VECTOR_BYTES // size
    values = [v for v in (matrix.ld, op.operands[2], matrix.column_offset)
              if isinstance(v, ir.Value) and known_residue(v, per_vector) != 0]
    if isinstance(matrix.ld, int) and matrix.ld % per_vector:
        return False
    bits = None
    if promised_alignment(lowering, op.operands[1]) < VECTOR_BYTES:
        bits = Sym(llvm.PtrToIntOp(i64(), op.operands[1]).result)
    for value in values:
        term = Sym(cast(value, i64())) * size
        bits = term if bits is None else bits | term
    if bits is None:
        return None
    return emit.cmp_eq(as_value(bits & (VECTOR_BYTES - 1), i64()), emit.constant(0, i64()))


def _columns_inside(matrix: "_Matrix", elements: list) -> "ir.Value | None":
    """An i1: the fragment's last column (its columns increase, _contiguous_row) lies
    inside the matrix's column extent, so all of them do; the same in every thread of
    the warp (they hold the same columns of different rows). None: no column extent."""
    if matrix.columns is None:
        return None
    return _unsigned_less(matrix.first_column + elements[-1][3], matrix.columns)


def _row_inside(matrix: "_Matrix", elements: list) -> "ir.Value | None":
    """An i1: the thread's row (one for the whole fragment) lies inside the row extent."""
    if matrix.rows is None:
        return None
    row = elements[0][2]
    return _unsigned_less(row if matrix.first_row is None else matrix.first_row + row,
                          matrix.rows)


def vector_store_test(lowering, op, fragment: LoweredFragment, matrix: "_Matrix",
                      elements: list, size: int) -> "ir.Value | None | bool":
    """Whether a fragment of consecutive columns (_contiguous_row) may be stored with
    16-byte stores: an i1 (warp-uniform: the rows' alignment and the last column inside
    the column extent), None (always: nothing to test), or False (never: the option says
    scalar, the layout is not consecutive columns, or the alignment cannot hold)."""
    if epilogue_stores(lowering) != "vector" or not _contiguous_row(lowering, fragment, size):
        return False
    test = _runtime_alignment(lowering, op, size)
    if test is False:
        return False
    return _and(test, _columns_inside(matrix, elements))


def _edge_vector_stores(fragment: LoweredFragment, matrix: "_Matrix", elements: list,
                        dest) -> None:
    """16-byte stores of a fragment of consecutive columns (_contiguous_row) whose row
    start is 16-byte aligned and whose columns are all inside the column extent (the
    caller's warp-uniform test; a fragment across the edge takes the scalar stores): one
    st.global.v4.b32 per 4 columns, all under the thread's row test (a predicate, not a
    branch: the warp stays converged for the next .sync.aligned tcgen05.ld)."""
    _, _, row, col, _ = elements[0]
    offset, _ = matrix.place(row, col)
    base = emit.gep_bytes(dest, as_value(offset, i64()))
    inside = _row_inside(matrix, elements)
    for first in range(0, len(elements), 4):
        values = [fragment.registers[reg] for reg, *_ in elements[first:first + 4]]
        emit.ptx("st.global.v4.b32 [$0], {$1, $2, $3, $4};",
                 [_gep_constant(base, 4 * first)] + values, predicate=inside)


def _vector_of(values: list) -> "ir.Value":
    """A vector<N x i32> of the i32 `values`."""
    vector_type = ir.VectorType.get([len(values)], i32())
    vector = llvm.UndefOp(vector_type).result
    for j, value in enumerate(values):
        vector = llvm.InsertElementOp(vector, value, emit.constant(j, i32())).result
    return vector


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
        edge = vector_store_test(lowering, op, fragment, matrix, elements, size)

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
                _store(value, _gep_constant(base, steps[i]), size)
                continue
            offset, inside = matrix.place(row, col)
            address = emit.gep_bytes(dest, as_value(offset, i64()))
            if inside is None:
                llvm.StoreOp(value, address, alignment=size)
            else:
                # A predicated st.global, not a branch: the warp stays converged for
                # the .sync.aligned tcgen05.ld of the next slice.
                emit.ptx(f"@$2 st.global.b{8 * size} [$0], $1;", [address, value, inside])
        return []

    _if(_and(fragment.active, owner), stores)


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
