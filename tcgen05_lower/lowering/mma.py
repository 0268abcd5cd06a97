"""tcgen05.mma in all its forms (9.7.16.10.9.1-4): descriptors from the IR, one issuing
thread.

What the op's attributes select (dialect/__init__.py lists them):

- the instruction: ``tcgen05.mma``, ``.sp`` (``sparse``, metadata operand), ``.ws``
  (``ws``, collector ``b0``-``b3``, zero-column mask), all with ``cta_group`` from the
  kernel;
- A from shared memory (a matrix descriptor) or from tensor memory (``[a-tmem]``);
- block scaling (``scale_vec`` and the scale_A / scale_B operands), spelled with the
  ``.scale_vectorsize`` alias the target supports (``isa.targets.choose_scale_vectorsize``);
- ``.ashift``, ``.collector::a::*``, disable-output-lane, scale-input-d;
- the 32-bit instruction descriptor, from ``isa.descriptors.encode_instr_desc``.

tcgen05-verify has checked every rule; the lowering still fails with a diagnostic (not a
crash) if an encoder rejects a value. Issue granularity (Table 46): one thread of the CTA,
or of the CTA pair for cta_group::2 (see ``sync.single_thread_predicate``).
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import MmaOp
from tcgen05_lower.element_types import container_bits, isa_type
from tcgen05_lower.emit import Sym, as_value, i32, i64
from tcgen05_lower.isa import descriptors, shapes, targets
from tcgen05_lower.isa.shapes import SCALE_VEC_QUALIFIERS
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import (MmaForm, MmaOperands, a_tmem_k_block, mma_form,
                                     mma_operands,
                                     scale_factor_ids, scale_type)
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.smem_descriptors import matrix_descriptor, smem_descriptor
from tcgen05_lower.lowering.sync import single_thread_predicate


def instruction_descriptor(op, form: MmaForm, operands: MmaOperands) -> int:
    """The 32-bit instruction descriptor (Tables 42-44) of the MMA `op`."""
    mma = MmaOp(op)
    dt, at, bt = operands.d_type, operands.a_type, operands.b_type
    scale_a_id, scale_b_id = scale_factor_ids(op, form)
    return descriptors.encode_instr_desc(
        kind=form.kind, a_type=isa_type(at.element), b_type=isa_type(bt.element),
        d_type=isa_type(dt.element), m=dt.rows, n=dt.cols,
        # Bits 15/16 mean MN-major (tmem-facts section 4); A in TMEM is row-major
        # (Table 51), so never transposed.
        transpose_a=operands.a_smem is not None and operands.a_smem.major == "MN",
        transpose_b=bt.major == "MN",
        negate_a=bool(mma.negate_a), negate_b=bool(mma.negate_b),
        sparse=form.sparse, sparsity_selector=mma.sparsity_selector,
        saturate=bool(mma.saturate), max_shift=mma.max_shift,
        scale_type=scale_type(operands), scale_a_id=scale_a_id, scale_b_id=scale_b_id,
        k=96 if form.k96 else None)


def stored_k_offset(form: MmaForm, *, operand: str) -> int:
    """Elements of the operand's storage before this MMA's K block: A of a sparse MMA is
    stored compressed as M x K/2 (9.7.16.10.8); B is dense."""
    return form.k_offset // 2 if form.sparse and operand == "A" else form.k_offset


def mn_major_block(tile: d.SmemType, stored_k: int, k_elements: int) -> tuple[int, int, int]:
    """(start offset, LBO, SBO) in bytes of the K block at `k_elements` of an MN-major tile
    that stores `stored_k` elements along K, in the canonical layout of 9.7.16.3.3
    (strides from ``canonical_smem_strides``).

    MN-major: K runs across rows of the swizzle atom (8 rows, 4 for 128B with 32B
    atomicity), atoms along K are SBO apart; without swizzle, 8-row core matrices along K
    are LBO apart."""
    dtype = isa_type(tile.element)
    lbo, sbo = descriptors.canonical_smem_strides(dtype=dtype, major="MN", swizzle=tile.swizzle,
                                                  tile_mn=tile.rows, tile_k=stored_k)
    if tile.swizzle == "none":
        return (k_elements // 8) * lbo, lbo, sbo
    rows = 4 if tile.swizzle == "128B_base32B" else 8
    return (k_elements // rows) * sbo, lbo, sbo


def operand_descriptor(lowering, tile_value, form: MmaForm, *, operand: str) -> "ir.Value":
    """The shared-memory descriptor (Table 40) of this MMA's K block of an A or B tile."""
    tile = d.type_info(tile_value.type)
    k_elements = stored_k_offset(form, operand=operand)
    if tile.major == "K":
        kbyte = k_elements * container_bits(tile.element, kind=form.kind) // 8
        return smem_descriptor(lowering, tile_value, kbyte)
    stored_k = tile.k // 2 if form.sparse and operand == "A" else tile.k
    start, lbo, sbo = mn_major_block(tile, stored_k, k_elements)
    return matrix_descriptor(lowering, tile_value, start, lbo=lbo, sbo=sbo)


def a_tmem_address(lowering, op, operands: MmaOperands) -> "ir.Value":
    """[a-tmem] of this MMA's K block: A is row-major in TMEM (Table 51), its elements
    packed in 32-bit columns (9.7.16.10.4.3, 9.7.16.10.4.5)."""
    column, _ = a_tmem_k_block(op)
    return as_value(Sym(lowering.values[operands.a]) + column, i32())


def scale_vectorsize(form: MmaForm, target: str) -> str | None:
    """The .scale_vectorsize qualifier to print: the one the IR names if the target has
    it, else its alias (9.7.16.10.9.1 "Aliased .scale_vectorsize variants"). When the IR
    leaves it to its default, an alias of the default that needs an older PTX ISA version
    than leaving it out (targets.default_scale_vectorsize_spelling), else none."""
    if form.scale_vec is None:
        return None
    spellings = shapes.scale_vectorsize_aliases(
        form.kind, SCALE_VEC_QUALIFIERS.get(form.scale_vec, form.scale_vec), k96=form.k96)
    if not form.scale_vec_written:
        return targets.default_scale_vectorsize_spelling(spellings, target)
    return targets.choose_scale_vectorsize(spellings, target)


def bits_constant(value: int, width: int) -> "ir.Value":
    """An i32 / i64 constant holding the bit pattern `value` (MLIR integer attributes of
    signless types are printed signed; the register gets the same bits)."""
    value &= (1 << width) - 1
    if value >> (width - 1):
        value -= 1 << width
    return emit.constant(value, i32() if width == 32 else i64())


@lowers(MmaOp)
def lower_mma(lowering, op) -> None:
    """One tcgen05.mma{.ws}{.sp} instruction, predicated on the issuing thread."""
    operands = mma_operands(op)
    try:
        form = mma_form(op, lowering.info.cta_group)
        idesc = instruction_descriptor(op, form, operands)
        vectorsize = scale_vectorsize(form, lowering.info.target)
    except IsaRuleError as exc:
        lowering.fail(op, str(exc))
    inputs = [lowering.values[operands.d]]
    names = iter(f"${i}" for i in range(64))
    d_name = next(names)
    a_tmem = operands.a_tmem is not None
    if a_tmem:
        inputs.append(a_tmem_address(lowering, op, operands))
    else:
        inputs.append(operand_descriptor(lowering, operands.a, form, operand="A"))
    a_name = next(names)
    inputs.append(operand_descriptor(lowering, operands.b, form, operand="B"))
    b_name = next(names)
    meta_name = None
    if form.sparse:
        inputs.append(lowering.values[operands.metadata])
        meta_name = next(names)
    inputs.append(bits_constant(idesc, 32))
    idesc_name = next(names)
    lane_names = None
    if form.disable_output_lane is not None:
        lane_names = []
        for word in form.disable_output_lane:
            inputs.append(bits_constant(word, 32))
            lane_names.append(next(names))
    scale_names = (None, None)
    if form.block_scaled:
        inputs += [lowering.values[operands.scale_a], lowering.values[operands.scale_b]]
        scale_names = (next(names), next(names))
    inputs.append(operands.enable_input_d)
    enable_name = next(names)
    mask_name = None
    if form.zero_column_mask is not None:
        inputs.append(bits_constant(form.zero_column_mask, 64))
        mask_name = next(names)
    text = ptx.mma(form.cta_group, form.kind, d_name, a_name, b_name, idesc_name, enable_name,
                   a_in_tmem=a_tmem, sparse_metadata=meta_name, ws=form.ws,
                   scale_a=scale_names[0], scale_b=scale_names[1],
                   scale_vectorsize=vectorsize, collector=form.collector, ashift=form.ashift,
                   disable_output_lane=lane_names, scale_input_d=form.scale_input_d,
                   zero_column_mask=mask_name)
    emit.ptx(text, inputs, predicate=single_thread_predicate(lowering))
