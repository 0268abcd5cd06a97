"""Fragments in registers and the small IR builders the instruction families share:
``LoweredFragment`` (a fragment's i32 registers and the access that filled them), where
each element of a fragment lies (row, column, owner thread) and in a global matrix, the
taddr and inline PTX of each tcgen05.ld / st message, ``%cluster_ctarank & 1`` of a CTA
pair, and ``scf.if`` builders. ``ldst`` (warpgroup loads and stores), ``compute``
(computed fragments), ``smem`` and ``tma`` build on them; this module imports none of the
families, so they import it without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import emit
from tcgen05_lower.bindings import int_value, ir, nvvm
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import addressing
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.kernel_ir import defining_op, global_matrix

#: arith.cmpi predicate "ult".
_ULT = 6


@dataclass
class LoweredFragment:
    """A fragment in registers: the i32 registers of each thread and what they hold.

    ``access`` is the warpgroup access that filled (or will drain) them; ``column`` the
    slice's first logical column (an int or an i32 Sym; it decides the column block of
    folded layouts); ``active`` an i1 that is true in the warps holding part of the slice
    (None: all warps); ``reduced``: the per-row result of tcgen05.ld.red, one register
    per lane half of the warp (``addressing.reduced_row``).
    """

    registers: list
    access: WarpgroupAccess
    element: str
    column: object
    active: object = None
    reduced: bool = False


def _index_operand(value):
    """An index operand as a Python int when it is a constant (so that addresses fold),
    else as an i32 Sym."""
    producer = defining_op(value)
    if producer is not None and producer.name == "arith.constant":
        return int_value(producer.attributes["value"])
    return Sym(cast(value, i32()))


def _widen(x):
    """An int or i32 Sym as an int or i64 Sym."""
    return Sym(cast(x.value, i64())) if isinstance(x, Sym) else x


def cta_in_pair(lowering):
    """``%cluster_ctarank & 1`` (an i32 Sym, read once at kernel entry) in a cta_group::2
    kernel: which CTA of the pair this is (9.7.16.5.1); 0 in a cta_group::1 kernel."""
    if lowering.info.cta_group != 2:
        return 0
    cached = getattr(lowering, "ldst_cta_in_pair", None)
    if cached is None:
        entry = lowering.kernel.regions[0].blocks[0]
        with ir.InsertionPoint(entry.operations[0]), lowering.kernel.location:
            cached = Sym(nvvm.read_ptx_sreg_cluster_ctarank(i32())) & 1
        lowering.ldst_cta_in_pair = cached
    return cached


def _message(text: str, inputs: list, results: int, active) -> list:
    """One message as nvvm.inline_ptx. A warp that does not take part skips it through a
    guard in the text (emit.guarded), whose register is the last input: the op's own
    predicate operand numbers its ``$k`` without counting the results in MLIR 22.1's
    convert-nvvm-to-llvm, so it cannot guard an instruction that has any."""
    if active is None:
        return emit.ptx(text, inputs, [i32()] * results)
    return emit.ptx(emit.guarded(text, results + len(inputs)),
                    list(inputs) + [emit.guard_operand(active)], [i32()] * results)


def message_taddrs(lowering, access: WarpgroupAccess, base, column) -> list:
    """The taddr of each message of this warp: base + (lane << 16) + column."""
    taddrs = []
    for message in range(access.messages):
        lane, col = addressing.message_address(access, warp=lowering.warp_in_group,
                                               message=message, column=column)
        taddrs.append(as_value(Sym(base) + (lane << 16) + col, i32()))
    return taddrs


def _mapping(access: WarpgroupAccess) -> tuple:
    """What decides which element each register holds."""
    return (access.layout, access.layout_c, access.n, access.width, access.shape,
            access.num, access.pack16, access.half_split)


def _if(condition, build, result_types=()):
    """``scf.if condition { build() }`` (with an else yielding zeros when it has
    results); returns the results."""
    if condition is None:
        return build()
    op = ir.Operation.create("scf.if", results=list(result_types), operands=[condition],
                             regions=2)
    then_block = op.regions[0].blocks.append()
    with ir.InsertionPoint(then_block):
        values = build()
        ir.Operation.create("scf.yield", operands=list(values or []))
    if result_types:
        else_block = op.regions[1].blocks.append()
        with ir.InsertionPoint(else_block):
            zeros = [emit.constant(0, t) for t in result_types]
            ir.Operation.create("scf.yield", operands=zeros)
    return list(op.results)


def _if_else(condition, then_build, else_build) -> None:
    """``scf.if condition { then_build() } else { else_build() }`` without results."""
    op = ir.Operation.create("scf.if", results=[], operands=[condition], regions=2)
    for region, build in zip(op.regions, (then_build, else_build)):
        with ir.InsertionPoint(region.blocks.append()):
            build()
            ir.Operation.create("scf.yield")


def _and(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return ir.Operation.create("arith.andi", results=[emit.i1()], operands=[a, b]).results[0]


def _elements(lowering, fragment: LoweredFragment):
    """(register index, 16-bit half or None, row, column within the slice, owner i1 or
    None) of every element the fragment holds in this thread, in i64 Syms."""
    access = fragment.access
    warp = _widen(lowering.warp_in_group)
    thread = _widen(lowering.lane)
    cta = _widen(cta_in_pair(lowering))
    if fragment.reduced:
        owner = None
        if access.shape == "16x32bx2":
            # Threads l and l + 16 hold the same row: only the first writes it.
            owner = emit.cmp_eq(as_value(addressing.reduced_copy(access, lowering.lane),
                                         i32()), emit.constant(0, i32()))
        for slot in range(len(fragment.registers)):
            row = addressing.reduced_row(access, warp=warp, thread=thread, slot=slot, cta=cta)
            yield slot, None, row, 0, owner
        return
    column = _widen(fragment.column)
    halves = (0, 1) if access.pack16 else (None,)
    for reg in range(len(fragment.registers)):
        for half in halves:
            row, col = addressing.element(access, warp=warp, thread=thread, reg=reg,
                                          half=half or 0, cta=cta, column=column)
            yield reg, half, row, col, None


class _Matrix:
    """Where a store_fragment or load_fragment puts element (row, col) of its slice in
    the global matrix (kernel_ir.global_matrix): its byte offset, and an i1 that is false
    where the element lies outside the matrix's extents (None: no extents given)."""

    def __init__(self, op, column, size: int):
        matrix = global_matrix(op)
        as_i64 = (lambda v: None if v is None else Sym(cast(v, i64())))
        self.ld = matrix.ld if isinstance(matrix.ld, int) else as_i64(matrix.ld)
        self.first_row = as_i64(matrix.row_offset)
        self.first_column = column if matrix.column_offset is None \
            else as_i64(matrix.column_offset) + column
        self.rows, self.columns = as_i64(matrix.rows), as_i64(matrix.columns)
        self.size = size

    def place(self, row, col):
        """(byte offset, inside i1 or None) of element (row, col) of the slice."""
        row = row if self.first_row is None else self.first_row + row
        column = self.first_column + col
        inside = None
        if self.rows is not None:
            inside = _unsigned_less(row, self.rows)
        if self.columns is not None:
            inside = _and(inside, _unsigned_less(column, self.columns))
        return (row * self.ld + column) * self.size, inside


def _unsigned_less(a, b):
    return ir.Operation.create("arith.cmpi", results=[emit.i1()],
                               operands=[as_value(a, i64()), as_value(b, i64())],
                               attributes={"predicate": ir.IntegerAttr.get(i64(), _ULT)}
                               ).results[0]
