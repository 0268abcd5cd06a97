"""The declarations: type parameters of TMEM buffers and shared-memory tiles, attribute
kinds, stages of multi-stage buffers and tiles (an index within the stages, a single
stage where an instruction takes one), and the element types a buffer may hold."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import MmaOp
from tcgen05_lower.element_types import MLIR_TO_ISA, isa_type
from tcgen05_lower.kernel_ir import constant_int, planned_buffer_problem
from tcgen05_lower.segments import SEGMENT_ATTR
from tcgen05_lower.text import did_you_mean
from tcgen05_lower.verification.common import known_element_bits


#: Element types of D (Table 39 dtype column), as MLIR spells them.
ACCUMULATOR_TYPES = ("f32", "f16", "i32")


class BufferRules:
    """Buffers, tiles, stages and attribute kinds. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_type_parameters(self, ops) -> bool:
        """Every tcgen05 type an op uses has parameters of the dialect's form (a shape of
        the type's rank, positive integers; a known major-ness and swizzle), so that no
        rule reads a malformed one. Each bad type is reported once, at the first op that
        uses it (normally the buffer that defines it)."""
        ok = True
        reported = set()
        for op in ops:
            for value in [*op.operands, *op.results]:
                try:
                    d.type_info(value.type)
                except d.TypeParameterError as exc:
                    text = str(value.type)
                    if text not in reported:
                        reported.add(text)
                        self.error(op, f"type {text}: {exc}")
                    ok = False
        return ok

    def check_attribute_types(self, op) -> bool:
        """Every attribute of the op is one the dialect lists for it (a name it does not
        know is a misspelling, which would otherwise be ignored), of the kind it gives
        (dialect/attributes.py); names with a dot belong to other dialects."""
        known = d.ATTRIBUTES[d.op_name(op)]
        ok = True
        for i in range(len(op.attributes)):
            named = op.attributes[i]
            if "." in named.name:
                continue
            if named.name == SEGMENT_ATTR and MmaOp.matches(op):
                continue  # the MMA's operand groups, checked by IRDL (segments.py)
            if named.name not in known:
                self.error(op, f"tcgen05.{d.op_name(op)} has no attribute {named.name!r}; "
                               f"its attributes: {', '.join(sorted(known)) or 'none'}"
                               + did_you_mean(named.name, sorted(known)))
                ok = False
                continue
            problem = d.wrong_kind(named.name, named.attr, known[named.name])
            if problem:
                self.error(op, problem)
                ok = False
        return ok

    def check_tmem_stage(self, op, info) -> None:
        """A stage of a [stages, rows, columns] buffer is a [rows, columns] buffer of the
        same element type."""
        whole = d.type_info(op.operands[0].type)
        view = d.type_info(op.results[0].type)
        if len(whole.shape) != 3:
            self.error(op, f"tcgen05.tmem_stage takes a multi-buffered [stages, rows, "
                           f"columns] buffer, not {whole.text()}")
        elif view.shape != whole.shape[1:] or view.element != whole.element:
            self.error(op, f"a stage of {whole.text()} is "
                           f"{d.TmemType(whole.shape[1:], whole.element).text()}, not "
                           f"{view.text()}")
        else:
            self.check_stage_index(op, whole)

    def check_smem_stage(self, op, info) -> None:
        """A stage of a multi-stage [stages, rows, K] shared-memory tile is a [rows, K]
        tile of the same element type, major-ness and swizzle; a constant stage index
        lies in 0 .. stages - 1 (a run-time one is the kernel's to keep in range)."""
        whole = d.type_info(op.operands[0].type)
        view = d.type_info(op.results[0].type)
        if not whole.staged:
            self.error(op, f"tcgen05.smem_stage takes a multi-stage [stages, rows, K] "
                           f"shared-memory tile, not {whole.text()}")
        elif view != whole.stage():
            self.error(op, f"a stage of {whole.text()} is {whole.stage().text()}, not "
                           f"{view.text()}")
        else:
            self.check_stage_index(op, whole)

    def check_stage_index(self, op, whole) -> None:
        """A constant stage index (operand 1 of a stage view) names a stage of `whole`."""
        stage = constant_int(op.operands[1])
        if stage is not None and not 0 <= stage < whole.stages:
            self.error(op, f"stage {stage} of {whole.text()}, which has stages 0 to "
                           f"{whole.stages - 1}")

    def check_single_stage(self, op) -> bool:
        """Every op but smem_buffer and smem_stage uses single [rows, K] shared-memory
        tiles: a stage of a multi-stage tile is picked with tcgen05.smem_stage."""
        for value in list(op.operands) + list(op.results):
            t = d.type_info(value.type)
            if isinstance(t, d.SmemType) and t.staged:
                self.error(op, f"{t.text()} has {t.stages} stages: pick one with "
                               f"tcgen05.smem_stage")
                return False
        return True

    def check_two_dimensional(self, op) -> bool:
        """The TMEM operands of an instruction are [rows, columns] buffers: a stage of a
        multi-buffered buffer is picked with tcgen05.tmem_stage."""
        for value in list(op.operands) + list(op.results):
            t = d.type_info(value.type)
            if isinstance(t, d.TmemType) and len(t.shape) != 2:
                self.error(op, f"{t.text()} is multi-buffered: pick a stage with "
                               f"tcgen05.tmem_stage")
                return False
        return True

    def check_tmem_buffer(self, op, info) -> None:
        t = d.type_info(op.results[0].type)
        if len(op.operands):
            problem = planned_buffer_problem(op)
            if problem:
                self.error(op, problem)
                return
        # Its shape is [rows, columns] or [stages, rows, columns] (dialect.type_info).
        # Buffers that an MMA reads as A, scale factors or metadata are checked there;
        # the others hold accumulators or data moved by ld/st/cp.
        if op not in self.roles and t.element not in ACCUMULATOR_TYPES:
            self.error(op, f"TMEM accumulator element type {isa_type(t.element)} is not f32, "
                           f"f16 or i32 (Table 39 dtype column)")

    def check_smem_buffer(self, op, info) -> None:
        """A tile holds elements of a type some tcgen05 operand can have (Tables 39 and
        42-44): anything else has no layout or descriptor (its rank, major-ness and
        swizzle are the type's own rules, checked by check_type_parameters)."""
        t = d.type_info(op.results[0].type)
        if known_element_bits(t.element) is None:
            self.error(op, f"shared-memory tile element type {t.element} is not a tcgen05 "
                           f"operand type (Tables 39, 42-44: "
                           f"{', '.join(sorted(set(MLIR_TO_ISA.values())))})")
