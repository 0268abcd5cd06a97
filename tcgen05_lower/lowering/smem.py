"""Operand tiles in shared memory: placement, cooperative fills, matrix descriptors.

Tiles live in one dynamic shared-memory array, placed in program order, each aligned to
1024 bytes so that every swizzle pattern starts on its boundary (Table 41) and the
descriptors' base offset is 0. The kernel records the size as
``tcgen05.dynamic_smem_bytes``.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit
from tcgen05_lower.bindings import file_location, ir, llvm
from tcgen05_lower.dialect.ops import SmemBufferOp, SmemFillOp
from tcgen05_lower.element_types import element_bits
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64, index
from tcgen05_lower.isa import addressing, descriptors
from tcgen05_lower.kernel_ir import stored_k
from tcgen05_lower.lowering.core import Loop, lowers
from tcgen05_lower.lowering.ldst import cta_in_pair

#: Alignment of every tile: the 128B swizzle pattern repeats every 1024 bytes (Table 41).
TILE_ALIGNMENT = 1024
#: The most dynamic shared memory one CTA may opt in to: 227 KiB on compute capability
#: 10.x (CUDA C++ Programming Guide, technical specifications; the figure is not in the
#: PTX ISA). Applied to every tcgen05 target.
MAX_DYNAMIC_SMEM = 227 * 1024
#: The dynamic shared-memory array every kernel of a module shares.
DYNAMIC_SMEM_SYMBOL = "__tcgen05_dynamic_smem"


def ensure_dynamic_smem(lowering) -> None:
    body = lowering.module.regions[0].blocks[0]
    for existing in body.operations:
        existing = existing.operation
        if existing.name == "llvm.mlir.global" and \
                ir.StringAttr(existing.attributes["sym_name"]).value == DYNAMIC_SMEM_SYMBOL:
            return
    with ir.InsertionPoint(body.operations[0]), lowering.kernel.location:
        llvm.GlobalOp(ir.Type.parse("!llvm.array<0 x i8>"), DYNAMIC_SMEM_SYMBOL,
                      ir.Attribute.parse("#llvm.linkage<external>"),
                      addr_space=3, alignment=TILE_ALIGNMENT)


@lowers(SmemBufferOp)
def lower_smem_buffer(lowering, op) -> None:
    t = d.type_info(op.results[0].type)
    size = t.rows * t.k * element_bits(t.element) // 8
    offset = -(-lowering.smem_bytes // TILE_ALIGNMENT) * TILE_ALIGNMENT
    lowering.smem_bytes = offset + size
    lowering.smem_tiles.append((op, offset, size))
    if lowering.smem_bytes > MAX_DYNAMIC_SMEM:
        placed = "; ".join(f"line {file_location(t_.location)[1]}: {n} bytes at {o}"
                           for t_, o, n in lowering.smem_tiles)
        lowering.fail(op, f"shared-memory tiles need {lowering.smem_bytes} bytes of dynamic "
                          f"shared memory, over the {MAX_DYNAMIC_SMEM} a CTA may use (227 KiB, "
                          f"compute capability 10.x); this tile crosses it. Tiles in order: "
                          f"{placed}")
    ensure_dynamic_smem(lowering)
    base = emit.address_of(DYNAMIC_SMEM_SYMBOL, 3)
    lowering.values[op.results[0]] = emit.gep_bytes(base, emit.constant(offset, i64()))


@lowers(SmemFillOp)
def lower_smem_fill(lowering, op) -> None:
    """A cooperative copy: the CTA's threads stride over the tile.

    K-contiguous sources copy 16-byte chunks (the swizzle permutes 16-byte units, so a
    chunk stays contiguous); transposed sources copy element by element, consecutive
    threads reading consecutive global addresses. In a cta_group::2 kernel the CTA of
    rank r (``%cluster_ctarank & 1``) fills rows r * R .. r * R + R - 1 of the source
    matrix, R being the tile's rows (docs/cta-pairs.md)."""
    source, tile_value, k_offset = (op.operands[i] for i in range(3))
    tile = d.type_info(tile_value.type)
    bits = element_bits(tile.element)
    layout = SmemFillOp(op).src_layout
    ld = SmemFillOp(op).src_ld
    tile_ptr = lowering.values[tile_value]
    k0 = Sym(cast(k_offset, i64()))
    # In a CTA pair each CTA's tile is its slice of the pair's operand, the rows the MMA
    # reads from that CTA (docs/cta-pairs.md): rows rank * R .. of the global matrix, R
    # the tile's rows (M/2 of A, N/2 of B).
    pair_row = None
    if lowering.info.cta_group == 2:
        pair_row = Sym(cast(cta_in_pair(lowering).value, i64())) * tile.rows
    chunk_bytes = 16 if layout == "mn_k" else bits // 8
    # A sparse MMA's A is stored compressed: the fill copies its K/2 stored elements per
    # row from a source of that width (kernel_ir.stored_k).
    row_bytes = stored_k(tile_value) * bits // 8
    per_row = row_bytes // chunk_bytes
    total = tile.rows * per_row
    loop = Loop(cast(lowering.tid.value, index()), emit.constant(total, index()),
                emit.constant(lowering.info.threads, index()))
    with ir.InsertionPoint(loop.body):
        c = Sym(cast(loop.induction_variable, i64()))
        if layout == "mn_k":
            row, kchunk = c // per_row, c % per_row
            kbyte = kchunk * chunk_bytes
            source_row = row if pair_row is None else pair_row + row
            global_byte = (source_row * ld + k0) * (bits // 8) + kbyte
        else:
            row, kidx = c % tile.rows, c // tile.rows
            kbyte = kidx * (bits // 8)
            source_row = row if pair_row is None else pair_row + row
            global_byte = ((k0 + kidx) * ld + source_row) * (bits // 8)
        smem_byte = addressing.kmajor_offset(row, kbyte, rows=tile.rows, swizzle=tile.swizzle)
        chunk_type = (ir.VectorType.get([4], i32()) if chunk_bytes == 16
                      else ir.IntegerType.get_signless(8 * chunk_bytes))
        src = emit.gep_bytes(source, as_value(global_byte, i64()))
        value = llvm.LoadOp(chunk_type, src, alignment=chunk_bytes).result
        dst = emit.gep_bytes(tile_ptr, as_value(smem_byte, i64()))
        llvm.StoreOp(value, dst, alignment=chunk_bytes)
        ir.Operation.create("scf.yield")


def smem_descriptor(lowering, tile_value, kbyte: int) -> "ir.Value":
    """The 64-bit shared-memory descriptor (Table 40) of the K block of a K-major tile
    that starts at byte `kbyte` of every row: a constant part from ``encode_smem_desc``
    ORed with the start-address field computed at run time."""
    tile = d.type_info(tile_value.type)
    lbo, sbo = addressing.kmajor_strides(rows=tile.rows, swizzle=tile.swizzle)
    constant_part = descriptors.encode_smem_desc(start_address=0, lbo=lbo, sbo=sbo,
                                                 swizzle=tile.swizzle)
    start = addressing.kmajor_block_start(kbyte, rows=tile.rows, swizzle=tile.swizzle)
    pointer = emit.gep_bytes(lowering.values[tile_value], emit.constant(start, i64()))
    address = Sym(llvm.PtrToIntOp(i64(), pointer).result)
    # matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 (Table 40), bits 0-13.
    field = (address & 0x3FFFF) >> 4
    return as_value(field | constant_part, i64())
