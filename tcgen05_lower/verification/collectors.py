"""Collector buffers (9.7.16.10.9.1, 9.7.16.10.9.3): an MMA that uses a collector
buffer finds in it what the MMA before it filled, along every path of the kernel."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import MmaOp
from tcgen05_lower.verification.common import line_of


#: What a collector buffer holds when it is known to hold nothing valid.
_RELEASED = "released"


def _collector_written(op) -> bool:
    mma = MmaOp(op)
    return any(mma.has(a) for a in (MmaOp.collector_a, MmaOp.collector_b, MmaOp.collector_b_op))


def _collector_usage(op):
    """(buffer, operation, (operand, k_offset)) of an MMA's collector usage: .ws MMAs use
    ``collector::b0..b3`` for B, others ``collector::a`` for A; the default operation is
    ``discard`` (9.7.16.10.9.1, 9.7.16.10.9.3)."""
    mma = MmaOp(op)
    k_offset = mma.k_offset
    if mma.ws:
        return mma.collector_b, mma.collector_b_op, (mma.b, k_offset)
    return "a", mma.collector_a, (mma.a, k_offset)


def _collected(name: str) -> str:
    return "A" if name == "a" else "B"


def _describe(filled, used) -> str:
    (fv, fk), (uv, uk) = filled, used
    if fv != uv:
        return "another tile or buffer"
    return f"k_offset = {fk}; this MMA's is {uk}"


class CollectorRules:
    """Collector buffer fill / use / lastuse. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_collectors(self, block, *, entry: bool) -> None:
        """9.7.16.10.9.1: ``::use`` "requires a previous fill to the collector buffer to be
        still valid", ``::lastuse`` one "valid till the collector buffer is read", and an
        MMA without a collector qualifier is ``::discard``. A use must also read the matrix
        that was filled: reuse is opportunistic (9.7.16.10: "the TensorCore may reload a
        matrix even when it has permission to reuse that matrix"), so a use of another
        matrix reads either. Checked in program order within each block, where the state
        at the block's start is known only for the kernel's entry block (nothing filled);
        after a nested loop or branch it is unknown again. One walk, linear."""
        default = _RELEASED if entry else None
        state: dict = {}
        for op in block.operations:
            op = op.operation
            if len(op.regions) and d.op_name(op) is None:
                for region in op.regions:
                    for inner in region.blocks:
                        self.check_collectors(inner, entry=False)
                state, default = {}, None
                continue
            if not MmaOp.matches(op):
                continue
            name, action, key = _collector_usage(op)
            held = state.get(name, default)
            if action in ("use", "lastuse") and held is not None:
                problem = None
                if held == _RELEASED or held[0] == _RELEASED:
                    problem = ("nothing fills it earlier in the kernel" if held == _RELEASED
                               else f"the MMA at line {line_of(held[1])} released it "
                                    f"({held[2]})")
                elif held[0] != key:
                    problem = (f"it holds the {_collected(name)} filled at line "
                               f"{line_of(held[1])} ({_describe(held[0], key)}), which "
                               f"is not the matrix this MMA reads; reuse is opportunistic "
                               f"(9.7.16.10), so the result would depend on whether the "
                               f"tensor core reloads it")
                if problem:
                    self.error(op, f"collector::{name}::{action} needs a previous "
                                   f"collector::{name}::fill still valid (9.7.16.10.9.1), "
                                   f"but {problem}")
            if action == "fill":
                state[name] = (key, op, "fill")
            elif action in ("lastuse", "discard"):
                how = (f"collector::{name}::{action}" if action == "lastuse"
                       or _collector_written(op) else
                       f"no collector qualifier means collector::{name}::discard")
                state[name] = (_RELEASED, op, how)
