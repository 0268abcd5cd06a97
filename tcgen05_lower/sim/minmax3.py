"""Three-input ``min`` / ``max`` of f32 (``max{.ftz}{.NaN}.f32 d, a, b, c``, PTX ISA
9.7.3 "Floating point instructions: max / min", three inputs from PTX ISA 8.8 on
sm_100 and later), which LLVM's NVPTX backend forms from a chain of two-input ones (a
row reduction of a fragment, tcgen05.frag_reduce).

d is the largest (smallest) of a, b and c: without ``.NaN`` a NaN input is ignored (d is
NaN only when all three are), with ``.NaN`` any NaN input gives the canonical NaN
0x7FFFFFFF, as the two-input form (sim/ops.py). ``.ftz`` flushes subnormal inputs and
results to zero of the same sign.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import ALL, from_float, to_float

#: The canonical f32 NaN of min / max .NaN.
CANONICAL_NAN = np.uint64(0x7FFFFFFF)


def is_three_input(ins: P.Instr, base: str) -> bool:
    """Is `ins` the three-input form of min / max (four operands)?"""
    return base in ("min", "max") and len(ins.operands) == 4


def _flush(values: np.ndarray) -> np.ndarray:
    """.ftz: subnormals to zero, keeping their sign."""
    tiny = np.abs(values) < np.float32(np.finfo(np.float32).tiny)
    return np.where(tiny & (values != 0), np.copysign(0.0, values), values)


def pick3(base: str, values: list, nan_mode: bool, ftz: bool) -> np.ndarray:
    """The f32 bits of min / max of three arrays of f32 values."""
    if ftz:
        values = [_flush(v) for v in values]
    a, b, c = values
    if nan_mode:
        pick = np.minimum if base == "min" else np.maximum
        r = pick(pick(a, b), c)
        return np.where(np.isnan(r), CANONICAL_NAN, from_float(r, 32))
    pick = np.fmin if base == "min" else np.fmax
    r = pick(pick(a, b), c)
    if ftz:
        r = _flush(r)
    return from_float(r, 32)


def handler(m, ins: P.Instr, base: str, kind: str, bits: int):
    """The executor's handler of a three-input min / max (f32 only)."""
    if kind != "f" or bits != 32:
        raise SimError(f"{ins.opcode}: three inputs only of .f32 (9.7.3)", ins.line, ins.text)
    d, *sources = ins.operands
    nan_mode, ftz = "NaN" in ins.parts, "ftz" in ins.parts

    def run(ins, idx):
        act = m.guarded(ins, idx)
        if act is ALL or len(act):
            values = [to_float(m.read(s, act, 32, ins), 32) for s in sources]
            m.write(d.name, act, pick3(base, values, nan_mode, ftz), 32, ins)
        m.advance(idx)
    return run
