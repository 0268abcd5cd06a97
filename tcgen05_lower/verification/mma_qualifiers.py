"""tcgen05.mma qualifiers: sparsity (metadata, selector 9.7.16.10.8.4), block scaling
(Tables 54 and 55, scale-factor IDs of Tables 43/44), .ws (collector ::b0-::b3, Tables 42
and 45), collector ::a, .ashift, disable-output-lane, scale-input-d (9.7.16.10.9.1), and
the instruction descriptor they encode to."""

from __future__ import annotations

from tcgen05_lower import dialect as d, scale_buffers
from tcgen05_lower.dialect.ops import MmaOp
from tcgen05_lower.element_types import isa_type
from tcgen05_lower.isa import descriptors, shapes, targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.shapes import SCALE_VEC_QUALIFIERS
from tcgen05_lower.kernel_ir import effective_scale_vec, mma_form, scale_factor_ids
from tcgen05_lower.text import did_you_mean


#: The element type of a sparsity metadata buffer (docs/element-types.md: `si32` is `i32`).
METADATA_ELEMENTS = ("i32", "si32")


def _or_zero(value: int | None) -> int:
    """An attribute without a default read as 0 when absent."""
    return 0 if value is None else value


class MmaQualifierRules:
    """MMA qualifiers and the instruction descriptor. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_mma_sparsity(self, op, kind, operands, info, k96) -> None:
        mma = MmaOp(op)
        selector = mma.sparsity_selector
        if not mma.sparse:
            if mma.has(MmaOp.sparsity_selector):
                self.error(op, "sparsity_selector is only meaningful with sparse "
                               "(Table 42: \"if Sparsity is enabled\")")
            return
        if kind in ("f16", "tf32"):
            allowed = (0, 1)  # picks a column of the 2-column granule (tmem-facts 3)
        else:
            allowed = (0,)  # "must be 0" / "is assumed to be 0" (9.7.16.10.8.4.5/6)
        if selector not in allowed:
            self.error(op, f"sparsity_selector = {selector} is not allowed for kind::{kind} "
                           f"(allowed: {', '.join(map(str, allowed))}; 9.7.16.10.8.4)")
        meta = d.type_info(operands.metadata.type)
        m = operands.d_type.rows
        if len(meta.shape) != 2 or meta.rows != m:
            self.error(op, f"sparsity metadata buffer {meta.text()} must have the M = {m} "
                           f"rows of the MMA (9.7.16.10.8.4)")
        if meta.element not in METADATA_ELEMENTS:
            scaled = " (a sparse block-scaled MMA too: the scale factors keep their own " \
                     "type)" if operands.scale_a is not None else ""
            self.error(op, f"sparsity metadata buffer {meta.text()} must have element type "
                           f"i32, not {meta.element}: metadata is 2- and 4-bit indices "
                           f"packed in 32-bit TMEM cells (9.7.16.10.8.1-9.7.16.10.8.4; "
                           f"docs/tmem-operands.md){scaled}")

    def check_mma_block_scale(self, op, kind, operands, info, k96) -> None:
        if kind not in shapes.BLOCK_SCALED_KINDS:
            for attr in (MmaOp.scale_a_id, MmaOp.scale_b_id):
                if MmaOp(op).has(attr):
                    self.error(op, f"{attr.name} needs block scaling, which kind::{kind} does not "
                                   f"have (9.7.16.10.7)")
            return
        value = effective_scale_vec(op)
        if value not in SCALE_VEC_QUALIFIERS:
            self.error(op, f"scale_vec = \"{value}\" is not one of "
                           f"{', '.join(SCALE_VEC_QUALIFIERS)} (9.7.16.10.9.1)"
                           + did_you_mean(value, SCALE_VEC_QUALIFIERS))
            return
        sa = d.type_info(operands.scale_a.type)
        sb = d.type_info(operands.scale_b.type)
        scale = isa_type(sa.element)
        if sb.element != sa.element:
            self.error(op, f"scale_B buffer {sb.text()} has element type {sb.element} but "
                           f"scale_A {sa.text()} has {sa.element}: the instruction "
                           f"descriptor has one Scale Matrix Type for both (Tables 43 and 44, "
                           f"bit 23)")
            return
        try:
            # One scale type serves both (Tables 43 and 44, bit 23), checked above.
            shapes.check_scale_type(kind, scale)
            qualifier = SCALE_VEC_QUALIFIERS[value]
            shapes.check_scale_vectorsize(kind, qualifier, scale_type=scale, k96=k96)
            spellings = shapes.scale_vectorsize_aliases(kind, qualifier, k96=k96)
            targets.choose_scale_vectorsize(spellings, info.target)
        except IsaRuleError as exc:
            self.rule(op, exc)
            return
        if k96 and qualifier == "block16":
            self.error(op, ".block16 with K = 96 (6 scale factors per row) is not supported "
                           "yet: its scale-factor layout (9.7.16.10.7.2.5) is given only as "
                           "a figure")
        elif k96:
            self.error(op, ".block32 with K = 96 (3 scale factors per row) is not supported "
                           "yet: its scale-factor layout (9.7.16.10.7.2.4, 9.7.16.10.7.3.4) "
                           "is given only as figures")
        else:
            self.check_scale_factor_ids(op, info)
            for problem in scale_buffers.mma_scale_buffer_problems(op, info.cta_group):
                self.error(op, problem)   # the buffers' shape vs the block size

    def check_scale_factor_ids(self, op, info) -> None:
        """Without scale_a_id / scale_b_id, the IDs follow k_offset: K block j of the
        tiles uses scale factors j * count.. of each row (9.7.16.10.7.2); blocks past the
        four bytes of a cell cannot be selected by an ID."""
        mma = MmaOp(op)
        if mma.has(MmaOp.scale_a_id) and mma.has(MmaOp.scale_b_id):
            return  # both as written (their allowed values: check_instr_desc)
        try:
            scale_factor_ids(op, mma_form(op, info.cta_group))
        except IsaRuleError as exc:
            self.error(op, f"{exc.message}: give the K blocks their own scale buffers, or "
                           f"scale_a_id and scale_b_id ({exc.rule})")

    def check_mma_ws(self, op, kind, operands, info, k96) -> None:
        mma = MmaOp(op)
        ws = bool(mma.ws)
        ws_only = (MmaOp.collector_b, MmaOp.collector_b_op, MmaOp.zero_column_mask,
                   MmaOp.max_shift)
        if not ws:
            for attr in ws_only:
                if mma.has(attr):
                    self.error(op, f"{attr.name} belongs to tcgen05.mma.ws (9.7.16.10.9.3); "
                                   f"this MMA is not .ws")
            return
        try:
            buffer = mma.collector_b
            usage = mma.collector_b_op
            shapes.check_collector_usage(f"{buffer}::{usage}", ws=True)
            shapes.check_max_shift(mma.max_shift, kind=kind)
            if mma.has(MmaOp.zero_column_mask):
                mask = mma.zero_column_mask & 0xFFFFFFFFFFFFFFFF
                descriptors.zero_column_masks(mask, m=operands.d_type.rows,
                                              n=operands.d_type.cols)
        except IsaRuleError as exc:
            self.rule(op, exc)
        if mma.has(MmaOp.collector_a):
            self.error(op, "tcgen05.mma.ws keeps B in its collector buffers ::b0-::b3; "
                           "collector_a is for tcgen05.mma (9.7.16.10.9.3)")

    def check_mma_qualifiers(self, op, kind, operands, info, k96) -> None:
        mma = MmaOp(op)
        ws = bool(mma.ws)
        collector = None
        try:
            if mma.has(MmaOp.collector_a):
                collector = f"a::{mma.collector_a}"
                shapes.check_collector_usage(collector, ws=False)
            if mma.ashift:
                shapes.check_ashift(m=operands.d_type.rows, a_in_tmem=operands.a_tmem is not None,
                                    collector=collector, kind=kind, ws=ws)
            if mma.has(MmaOp.disable_output_lane):
                words = list(mma.disable_output_lane)
                shapes.check_disable_output_lane(info.cta_group, len(words), kind=kind, ws=ws)
            if mma.has(MmaOp.scale_input_d):
                shapes.check_scale_input_d(kind, mma.scale_input_d, ws=ws)
        except IsaRuleError as exc:  # (the dialect has already made it an array<i32>)
            self.rule(op, exc)

    def check_instr_desc(self, op, kind, operands, k96) -> None:
        """The remaining per-kind fields of Tables 42-44 (negate, saturate, scale-factor
        IDs), as the encoder the lowering uses sees them."""
        mma = MmaOp(op)
        dt, at, bt = operands.d_type, operands.a_type, operands.b_type
        if mma.negate_a and kind == "i8" or mma.negate_b and kind == "i8":
            self.error(op, "negate is not supported for kind::i8 (Table 49)")
            return
        scale = None
        if operands.scale_a is not None:
            scale = isa_type(d.type_info(operands.scale_a.type).element)
        try:
            descriptors.encode_instr_desc(
                kind=kind, a_type=isa_type(at.element), b_type=isa_type(bt.element),
                d_type=isa_type(dt.element), m=dt.rows, n=dt.cols,
                transpose_a=operands.a_smem is not None and operands.a_smem.major == "MN",
                transpose_b=bt.major == "MN", negate_a=bool(mma.negate_a),
                negate_b=bool(mma.negate_b), sparse=bool(mma.sparse),
                sparsity_selector=mma.sparsity_selector,
                saturate=bool(mma.saturate), max_shift=mma.max_shift,
                scale_type=scale, scale_a_id=_or_zero(mma.scale_a_id),
                scale_b_id=_or_zero(mma.scale_b_id), k=96 if k96 else None)
        except IsaRuleError as exc:
            self.rule(op, exc)
