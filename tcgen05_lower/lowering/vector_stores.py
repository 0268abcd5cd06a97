"""Stores of fragments to global memory, element by element or as 16-byte vectors: which
elements of a thread's fragment are consecutive columns of one row (``vector_runs``), the
warp-uniform run-time test that a vector store is aligned and inside the matrix
(``vector_store_test``), and the fallback at the edge. Shared by the stores of loaded
fragments (``ldst``) and of computed ones (``compute``); the option
``tcgen05-lower-to-llvm{epilogue-stores=vector|scalar}`` chooses between them."""

from __future__ import annotations

import functools

from tcgen05_lower import emit
from tcgen05_lower.bindings import int_value, ir, llvm
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import addressing
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.kernel_ir import global_matrix, known_residue
from tcgen05_lower.lowering.registers import (LoweredFragment, _and, _Matrix, _unsigned_less,
                                              _widen)


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


def _columns_inside(lowering, matrix: "_Matrix", fragment: LoweredFragment) -> "ir.Value | None":
    """An i1: the warpgroup's last column of the fragment lies inside the matrix's column
    extent, so every thread's columns do; the same in every thread. Threads need not
    hold the same columns: the two lane halves of a .16x32bx2 message hold the two
    column halves of a row (Layout F, tmem-facts section 2), so a test of the thread's
    own last column would split the warp at a slice across the extent, and the next
    .sync.aligned tcgen05 instruction would run with half of it. The fragment is one
    row of consecutive columns from each thread's first (_contiguous_row): the last is
    the slice column plus the largest first column (_first_columns) plus the length - 1.
    None: no column extent."""
    if matrix.columns is None:
        return None
    access = fragment.access
    firsts = _first_columns(access, bool(access.geometry.half), lowering.info.cta_group == 2,
                            0)
    last = _widen(fragment.column) + (max(firsts) + len(fragment.registers) - 1)
    return _unsigned_less(matrix.first_column + last, matrix.columns)


def _row_inside(matrix: "_Matrix", elements: list) -> "ir.Value | None":
    """An i1: the thread's row (one for the whole fragment) lies inside the row extent."""
    if matrix.rows is None:
        return None
    row = elements[0][2]
    return _unsigned_less(row if matrix.first_row is None else matrix.first_row + row,
                          matrix.rows)


def vector_store_test(lowering, op, fragment: LoweredFragment, matrix: "_Matrix",
                      size: int) -> "ir.Value | None | bool":
    """Whether a fragment of consecutive columns (_contiguous_row) may be stored with
    16-byte stores: an i1 (warp-uniform: the rows' alignment and the last column inside
    the column extent), None (always: nothing to test), or False (never: the option says
    scalar, the layout is not consecutive columns, or the alignment cannot hold)."""
    if epilogue_stores(lowering) != "vector" or not _contiguous_row(lowering, fragment, size):
        return False
    test = _runtime_alignment(lowering, op, size)
    if test is False:
        return False
    return _and(test, _columns_inside(lowering, matrix, fragment))


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
