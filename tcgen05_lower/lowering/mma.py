"""tcgen05.mma (9.7.16.10.9): descriptors from the IR, issued by one thread."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.element_types import isa_type
from tcgen05_lower.emit import i32
from tcgen05_lower.isa import descriptors
from tcgen05_lower.kernel_ir import mma_operands
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.smem import element_bits, smem_descriptor



@lowers("mma")
def lower_mma(lowering, op) -> None:
    operands = mma_operands(op)
    kind = d.get_str(op, "kind")
    dt, at, bt = operands.d_type, operands.a_smem, operands.b_type
    if at is None:
        lowering.fail(op, "A in tensor memory cannot be lowered yet")
    idesc = descriptors.encode_instr_desc(
        kind=kind, a_type=isa_type(at.element), b_type=isa_type(bt.element),
        d_type=isa_type(dt.element), m=dt.rows, n=dt.cols,
        transpose_a=at.major == "MN", transpose_b=bt.major == "MN")
    kbyte = d.get_int(op, "k_offset", 0) * element_bits(at.element) // 8
    a_desc = smem_descriptor(lowering, operands.a, kbyte)
    b_desc = smem_descriptor(lowering, operands.b, kbyte)
    emit.ptx(ptx.mma(lowering.info.cta_group, kind, "$0", "$1", "$2", "$3", "$4"),
             [lowering.values[operands.d], a_desc, b_desc, emit.constant(idesc, i32()),
              operands.enable_input_d],
             predicate=lowering.is_leader)

