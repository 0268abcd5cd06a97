"""Constants and small helpers the decision modules share."""

from __future__ import annotations

import math

from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect.ops import TmemBufferOp
from tcgen05_lower.kernel_ir import defining_op, root_buffers


def traced_buffers(value) -> list | None:
    """The ``tcgen05.tmem_buffer`` ops the TMEM value `value` may name
    (``kernel_ir.root_buffers``: its producer, the multi-buffered buffer of a
    ``tcgen05.tmem_stage`` view, every buffer that reaches a select, a branch or loop
    result or a block argument); None when a way in is not traced (a kernel argument,
    an unknown op's result)."""
    found = root_buffers(value)
    return found or None


def column_facts(value, depth: int = 0) -> tuple[int | None, int]:
    """(constant value or None, a number the value is known to be a multiple of; 0 means
    the value is 0) of an index value: constants, scf.for induction variables with
    constant bounds, and sums, products and casts of those."""
    if depth > 8:
        return None, 1
    op = defining_op(value)
    if op is None:
        arg = ir.BlockArgument(value)
        parent = arg.owner.owner
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent is not None and parent.name == "scf.for" and arg.arg_number == 0:
            lower, _ = column_facts(parent.operands[0], depth + 1)
            step, _ = column_facts(parent.operands[2], depth + 1)
            if lower is not None and step is not None:
                return None, math.gcd(lower, step)
        return None, 1
    if op.name == "arith.constant":
        constant = int_value(op.attributes["value"])
        return constant, constant
    if op.name in ("arith.index_cast", "arith.index_castui", "arith.extui"):
        return column_facts(op.operands[0], depth + 1)
    if op.name in ("arith.addi", "arith.muli"):
        (c1, g1), (c2, g2) = (column_facts(op.operands[i], depth + 1) for i in (0, 1))
        if op.name == "arith.addi":
            return (c1 + c2 if c1 is not None and c2 is not None else None), math.gcd(g1, g2)
        return (c1 * c2 if c1 is not None and c2 is not None else None), g1 * g2
    return None, 1


def line_text(op) -> str:
    loc = op.location
    return f"line {loc.start_line}" if loc.is_a_file() else "an op"


def buffer_label(buffer) -> str:
    """How a diagnostic names a tcgen05.tmem_buffer: ``%`` + its ``name``, else where it
    is defined."""
    name = TmemBufferOp(buffer).name
    return f"%{name}" if name else f"the buffer at {line_text(buffer)}"
