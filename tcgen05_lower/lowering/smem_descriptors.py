"""Shared-memory matrix descriptors (Table 40) of the tiles ``lowering/smem.py`` places:
one per K block, the loop-invariant ones built once before the outermost loop, and a ring
stage's step added to their low word (``plus_stage``).
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit
from tcgen05_lower.bindings import ir, llvm
from tcgen05_lower.dialect.ops import SmemBufferOp, SmemStageOp
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64
from tcgen05_lower.isa import addressing, descriptors
from tcgen05_lower.lowering.smem import stage_bytes


def smem_descriptor(lowering, tile_value, kbyte: int) -> "ir.Value":
    """The 64-bit shared-memory descriptor (Table 40) of the K block of a K-major tile
    that starts at byte `kbyte` of every row (``matrix_descriptor``)."""
    tile = d.type_info(tile_value.type)
    lbo, sbo = addressing.kmajor_strides(rows=tile.rows, swizzle=tile.swizzle)
    start = addressing.kmajor_block_start(kbyte, rows=tile.rows, swizzle=tile.swizzle)
    return matrix_descriptor(lowering, tile_value, start, lbo=lbo, sbo=sbo)


#: The bytes of shared memory any CTA can address: every shared::cta address is below it.
#: A CTA has at most 228 KiB of shared memory on compute capability 10.x (227 KiB dynamic,
#: MAX_DYNAMIC_SMEM, plus 1 KiB reserved; CUDA C++ Programming Guide), below 2^18 bytes.
SMEM_ADDRESS_LIMIT = 1 << 18


def matrix_descriptor(lowering, tile_value, start: int, *, lbo: int, sbo: int) -> "ir.Value":
    """The 64-bit shared-memory descriptor (Table 40) of the matrix at byte `start` of the
    tile `tile_value`, with the given LBO and SBO.

    Table 40 (9.7.16.4.1) puts matrix-descriptor-encode(start address) in bits 0-13, where
    matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4; bits 14-15 are not used; every other
    field (LBO in 16-29, SBO in 32-45, the fixed 0b001 in 46-48, base offset, LBO mode,
    swizzle) is a compile-time constant here. Every shared::cta address is below
    SMEM_ADDRESS_LIMIT = 2^18, so for a 16-byte aligned address x the encoding is x >> 4
    exactly (the mask keeps every bit), it is below 2^14, and for 16-byte aligned x and
    y with x + y < 2^18, encode(x + y) = encode(x) + (y >> 4) < 2^14: adding an offset
    to the field never carries out of bits 0-13, and no sum below carries out of the
    low 32-bit word (its largest term, LBO in bits 16-29, leaves bits 30-31 clear). So
    the descriptor is

        (encode(tile base) | constant high word) + (constant low word + start >> 4),
        a loop-invariant 64-bit value (``invariant_descriptor``), with stage x stage
        bytes >> 4 added to its low 32-bit word for a stage of a multi-stage tile
        (``plus_stage``),

    the way CuTe steps a descriptor by adding to it. A tile value whose base is not a
    ``tcgen05.smem_buffer`` (directly or through ``tcgen05.smem_stage``) takes the
    general form: the field computed from its address."""
    tile = d.type_info(tile_value.type)
    constant_part = descriptors.encode_smem_desc(start_address=0, lbo=lbo, sbo=sbo,
                                                 swizzle=tile.swizzle)
    parts = _descriptor_base(lowering, tile_value)
    if parts is None:
        pointer = emit.gep_bytes(lowering.values[tile_value], emit.constant(start, i64()))
        address = Sym(llvm.PtrToIntOp(i64(), pointer).result)
        # matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 (Table 40), bits 0-13.
        field = (address & 0x3FFFF) >> 4
        return as_value(field | constant_part, i64())
    buffer, stage, step = parts
    invariant = invariant_descriptor(lowering, buffer, constant_part, start >> 4)
    if stage is None:
        return as_value(invariant, i64())
    return plus_stage(invariant, stage, step)


def invariant_descriptor(lowering, buffer, constant_part: int, offset: int) -> Sym:
    """(encode(address of `buffer`) | the high word of `constant_part`) + (its low word +
    `offset`) as an i64 (the bits of the three ORed), built once per buffer and constant
    before the outermost loop around the op being lowered
    (``hoist_point``): inside the loop it is a register, not a rebuild.

    Why a 64-bit add and not the low word's: the descriptors of one tile's K blocks
    then differ as 64-bit values, and ptxas (13.0) keeps each one's high word in place
    in the uniform register pair tcgen05.mma reads, where descriptors ORed from one
    constant high word get that word copied into every pair at every MMA
    (benchmarks/codegen/REPORT.md)."""
    def build() -> Sym:
        base = _encoded_base(lowering, buffer, _owner(buffer))
        wide = Sym(cast(as_value(base, i32()), i64())) | (constant_part & ~0xFFFFFFFF)
        # + rather than |: equal bits (encode(base) + offset < 2^14, below LBO).
        return wide + ((constant_part & 0xFFFFFFFF) + offset)

    where = hoist_point(lowering.current_op)
    if where is None or _inside(_owner(buffer), where):
        return build()      # in no loop (or the buffer's own): built at the op (one built
        #                     elsewhere may not dominate it, in another branch say)
    cache = getattr(lowering, "invariant_descriptors", None)
    if cache is None:
        cache = lowering.invariant_descriptors = {}
    key = (where, buffer, constant_part, offset)
    found = cache.get(key)
    if found is None:
        with ir.InsertionPoint(where):
            found = cache[key] = build()
    return found


#: The descriptor of a stage: $1 (an invariant descriptor) with the stage $2 times {step}
#: (its offset >> 4) added to its low 32-bit word, in one mad. Inline PTX, not arith: LLVM's
#: NVPTX pipeline would rewrite the low word of K block k as (K block 0's low word +
#: stage offset) + 2k (NaryReassociate), chaining the descriptors of one K block, which
#: ptxas then copies into the pair tcgen05.mma reads, and would carry each tile's stage
#: offset as an induction variable of its own (LSR), where ptxas folds the multiply into
#: the add (ULEA) from the one stage index.
PLUS_STAGE_PTX = ("{{ .reg .b32 lo; .reg .b32 hi; mov.b64 {{lo, hi}}, $1; "
                  "mad.lo.u32 lo, $2, {step}, lo; mov.b64 $0, {{lo, hi}}; }}")


def _inside(op, ancestor) -> bool:
    """Whether `op` is nested in `ancestor`'s regions."""
    parent = op.parent
    while parent is not None:
        parent = parent.operation
        if parent == ancestor:
            return True
        parent = parent.parent
    return False


def _owner(value) -> "ir.Operation":
    owner = value.owner
    return owner.operation if hasattr(owner, "operation") else owner


def plus_stage(invariant: Sym, stage, step: int) -> "ir.Value":
    """`invariant` with `stage` x `step` added to its low 32-bit word (no carry out of
    it: see ``matrix_descriptor``): the stage's descriptor in one 32-bit multiply-add."""
    (result,) = emit.ptx(PLUS_STAGE_PTX.format(step=step),
                         [as_value(invariant, i64()), as_value(stage, i32())], [i64()])
    return result


def hoist_point(op):
    """The outermost ``scf.for`` / ``scf.while`` around `op` in its kernel (values built
    before it are loop-invariant registers), or None when `op` is in no loop."""
    outermost = None
    parent = op.parent if op is not None else None
    while parent is not None:
        parent = parent.operation
        if parent.name in ("func.func", "llvm.func"):
            break
        if parent.name in ("scf.for", "scf.while"):
            outermost = parent
        parent = parent.parent
    return outermost


def _descriptor_base(lowering, tile_value):
    """(the ``tcgen05.smem_buffer`` value, the stage index as an i32 Sym or None, the
    stage's bytes >> 4) of a tile that is a buffer or a stage of one; None for any
    other value."""
    owner = tile_value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if not isinstance(owner, ir.Operation):
        return None     # a block argument
    stage, step = None, 0
    if SmemStageOp.matches(owner):
        view = SmemStageOp(owner)
        tile = d.type_info(view.tile.type)
        stage, step = Sym(cast(view.stage, i32())), stage_bytes(tile) >> 4
        tile_value = view.tile
        owner = tile_value.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if not isinstance(owner, ir.Operation):
            return None
    if not SmemBufferOp.matches(owner):
        return None
    return tile_value, stage, step


def _encoded_base(lowering, buffer, buffer_op) -> Sym:
    """encode(address of `buffer`) as an i32, built once, where the buffer is placed (at
    the kernel's top level: it dominates every use, and no loop recomputes it)."""
    cache = getattr(lowering, "encoded_bases", None)
    if cache is None:
        cache = lowering.encoded_bases = {}
    field = cache.get(buffer)
    if field is None:
        with ir.InsertionPoint(buffer_op), buffer_op.location:
            address = llvm.PtrToIntOp(i64(), lowering.values[buffer]).result
            field = cache[buffer] = Sym(cast(address, i32())) >> 4
    return field
