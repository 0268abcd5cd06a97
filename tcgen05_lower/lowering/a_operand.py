"""tcgen05.st into a buffer an MMA reads as its A operand, and tcgen05.load_fragment of
the fragment such a store writes.

The messages and the register packing are those of ``tcgen05_lower.isa.a_store``
(Layout D: .32x32b, row 32w + l in thread l of warp w; Layout F: .16x32bx2 with
immHalfSplitoff = .num, row 16w + l mod 16; K elements packed per_word to a 32-bit
column, the lowest K index in the lowest bits, 9.7.16.10.4). tcgen05-select-layouts
(``plan_a_store``) chose the messages and checked that the fragment's registers
``per_word * q + h`` are the elements that the store's register q packs.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import ir, llvm
from tcgen05_lower.dialect.ops import TmemBufferOp, wrap
from tcgen05_lower.element_types import isa_bits
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import a_store, addressing
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.lowering.compute import ComputedFragment, element_scalars
from tcgen05_lower.lowering.registers import (LoweredFragment, _Matrix, _elements,
                                              _index_operand, _message, _widen, cta_in_pair,
                                              message_taddrs)


@dataclass
class PackedAFragment(LoweredFragment):
    """A fragment read from global memory for an A store: ``registers`` are already
    the store's packed registers (``access`` is the store's access)."""


def _create(name: str, result_type, operands):
    return ir.Operation.create(name, results=[result_type], operands=list(operands)).results[0]


def _bits(value, bits: int):
    """The `bits`-bit pattern of a scalar (f16/bf16/i16, or an fp8 value as frag_map
    yields it), zero-extended to i32."""
    narrow = ir.IntegerType.get_signless(bits)
    if value.type != narrow:
        # An fp8 value is an 8-bit container (lowering.compute), a 16-bit float bitcasts.
        name = "arith.bitcast" if bits == 16 else "builtin.unrealized_conversion_cast"
        value = _create(name, narrow, [value])
    return _create("arith.extui", i32(), [value])


def _store_access(lowering, op, buffer, width: int, bits: int):
    """The store's packed-column access (isa.a_store.packed_access) from the shape and
    .num tcgen05-select-layouts wrote on `op` (the st or the load_fragment)."""
    typed = TmemBufferOp(buffer)
    cols = d.type_info(typed.buffer.type).cols
    try:
        return a_store.packed_access(typed.layout, cols=cols, width=width, bits=bits,
                                     num=wrap(op).num)
    except (IsaRuleError, KeyError) as exc:
        lowering.fail(op, f"tcgen05.{d.op_name(op)} into an A operand: {exc}")


def store_a_operand(lowering, op, buffer, fragment) -> None:
    """tcgen05.st of `fragment` into A (module docstring): the registers of a fragment
    from tcgen05.load_fragment as they are; else each packed register built from the
    per_word elements the thread holds (of a tcgen05.ld or a frag_map of one)."""
    frag = d.type_info(op.operands[2].type)
    bits = isa_bits(frag.element)
    per_word = a_store.PER_WORD.get(bits)
    if per_word is None:
        lowering.fail(op, f"tcgen05.st into an A operand: {frag.element} elements")
    access = _store_access(lowering, op, buffer, frag.shape[1], bits)
    if isinstance(fragment, PackedAFragment):
        if fragment.access != access:
            lowering.fail(op, "tcgen05.st into an A operand: the fragment was loaded for "
                              f"{fragment.access.describe()}, not {access.describe()}")
        registers = fragment.registers
    else:
        why = (a_store.source_mismatch(fragment.access, access, per_word)
               if not fragment.reduced else "it is a per-row value")
        if why:
            lowering.fail(op, f"tcgen05.st into an A operand: the fragment is held as "
                              f"{fragment.access.describe()}: {why}")
        shell = LoweredFragment([None] * fragment.access.registers, fragment.access,
                                fragment.element, fragment.column, fragment.active)
        elements = list(_elements(lowering, shell))
        if isinstance(fragment, ComputedFragment):
            scalars = list(fragment.values)
        else:
            scalars = element_scalars(fragment, elements, ir.IntegerType.get_signless(16))
        registers = []
        for q in range(access.registers):
            word = Sym(_bits(scalars[per_word * q], bits))
            for h in range(1, per_word):
                word = word | (Sym(_bits(scalars[per_word * q + h], bits)) << (bits * h))
            registers.append(as_value(word, i32()))
    column = _index_operand(op.operands[1])
    shift = per_word.bit_length() - 1
    column = column // per_word if isinstance(column, int) else column >> shift
    count = access.message_registers
    taddrs = message_taddrs(lowering, access, lowering.values[op.operands[0]], column)
    for m, taddr in enumerate(taddrs):
        text = ptx.st(access.shape, access.num, "$0", [f"${i + 1}" for i in range(count)],
                      half_split=access.half_split)
        _message(text, [taddr] + registers[m * count:(m + 1) * count], 0, None)


def load_a_fragment(lowering, op, buffer) -> None:
    """tcgen05.load_fragment of the fragment a tcgen05.st writes into A (`buffer`): each
    thread reads the per_word K elements of every packed register of the store's
    access (isa.a_store) from global memory and packs them (an element outside the
    matrix's extents reads as 0, as in ldst.lower_load_fragment)."""
    frag = d.type_info(op.results[0].type)
    bits = isa_bits(frag.element)
    per_word = a_store.PER_WORD.get(bits)
    if per_word is None:
        lowering.fail(op, f"tcgen05.load_fragment into an A operand: {frag.element} elements")
    access = _store_access(lowering, op, buffer, frag.shape[1], bits)
    size = bits // 8
    matrix = _Matrix(op, Sym(cast(op.operands[1], i64())), size)
    # Layouts D and F keep a row's columns on its lane: every warp takes part and which
    # elements a thread holds does not depend on the slice's column.
    warp = _widen(lowering.warp_in_group)
    thread = _widen(lowering.lane)
    cta = _widen(cta_in_pair(lowering))
    narrow = ir.IntegerType.get_signless(bits)
    source = op.operands[0]

    def loads():
        registers = []
        for q in range(access.registers):
            row, packed = addressing.element(access, warp=warp, thread=thread, reg=q,
                                             cta=cta)
            word = None
            for h in range(per_word):
                offset, inside = matrix.place(row, packed * per_word + h)
                address = emit.gep_bytes(source, as_value(offset, i64()))
                if inside is None:
                    loaded = llvm.LoadOp(narrow, address, alignment=size).result
                else:
                    # Predicated, not a branch: the warp stays converged for tcgen05.st.
                    loaded = emit.ptx(f"mov.b16 $0, 0;\n@$2 ld.global.b{bits} $0, [$1];",
                                      [address, inside], [ir.IntegerType.get_signless(16)])[0]
                    loaded = (_create("arith.trunci", narrow, [loaded]) if bits == 8
                              else loaded)
                value = Sym(_create("arith.extui", i32(), [loaded])) << (bits * h)
                word = value if word is None else word | value
            registers.append(as_value(word, i32()))
        return registers

    lowering.values[op.results[0]] = PackedAFragment(loads(), access, frag.element, 0, None)
