"""Ring protocols (rings.py) around a loop whose trip count is known only at run time:
the K-block loop ``scf.for %kb = %c0 to %kblocks step %c1`` of a GEMM whose K is a kernel
argument (examples/ws_gemm_mxf8_blockscaled.mlir).

Only the outermost loop of a nest may have a run-time upper bound (its lower bound and
step stay constants): the weights of the loops inside it (products of their constant
trip counts) are then constants, so a use's stage ``it mod S`` and round ``it / S`` are
computed as for constant bounds. Its trip count is ``RUNTIME``, a count larger than any
ring's stages: every stage may be reused (the empty protocol is written), and a stage
index must be written as ``arith.remui(counter, S)`` (``prove_stage``).

The one count the protocol needs is the producer tail's (rings.tail_parities): stage s
gets n_s = ceil((U - s) / S) commits for U uses when U > s, else none, and the tail waits
for parity (n_s - 1) & 1. With unsigned division n_s = (U + S - 1 - s) / S covers both
cases (it is 0 for U <= s), and the parity (n_s + 1) & 1 is the same as (n_s - 1) & 1
for n_s >= 1 and is 1 for n_s = 0: the phase before a fresh mbarrier's first, which
``mbarrier.try_wait.parity`` reports complete (9.7.13.15.16), as for the round-0 wait on
an empty stage. So the tail is the same waits, their parities computed at run time from
U = T * W, T = ceildiv(max(ub - lb, 0), step) and W the loop's weight.
"""

from __future__ import annotations

from tcgen05_lower.bindings import ir
from tcgen05_lower.synchronization.phases import _op


class _Runtime(int):
    """A trip count known at run time only (module docstring): compares larger than any
    ring's stages; ``is RUNTIME`` tells it from a constant."""

    def __repr__(self) -> str:
        return "run-time"


RUNTIME = _Runtime(1 << 40)
#: How a tail wait's reason states its run-time parity.
PARITY_TEXT = "((U + S - 1 - s) / S + 1) & 1 for the U uses, computed at run time"


def runtime_bound(bounds) -> bool:
    """Whether (lb, ub, step) constants (None where not one) are a run-time upper bound
    with a constant lower bound and a positive constant step."""
    lb, ub, step = bounds
    return ub is None and lb is not None and step is not None and step > 0


def tail_parities(nest, stages: int, constant) -> list:
    """(stage, i32 parity value) of the producer tail's waits of a nest whose outermost
    loop has the run-time bound ``nest.runtime_ub`` (module docstring), emitted at the
    current insertion point; `constant(n)` gives an index constant."""
    index, i32 = ir.IndexType.get(), ir.IntegerType.get_signless(32)
    lb, _, step = nest.bounds[0]
    span = _op("arith.subi", [nest.runtime_ub, constant(lb)], index) if lb else nest.runtime_ub
    span = _op("arith.maxsi", [span, constant(0)], index)
    if step != 1:
        span = _op("arith.addi", [span, constant(step - 1)], index)
        span = _op("arith.divui", [span, constant(step)], index)
    uses = span if nest.weights[0] == 1 else \
        _op("arith.muli", [span, constant(nest.weights[0])], index)
    out = []
    for s in range(stages):
        commits = _op("arith.divui", [_op("arith.addi", [uses, constant(stages - 1 - s)],
                                          index), constant(stages)], index)
        parity = _op("arith.andi", [_op("arith.addi", [commits, constant(1)], index),
                                    constant(1)], index)
        out.append((s, _op("arith.index_cast", [parity], i32)))
    return out
