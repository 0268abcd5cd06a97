"""The timing model's cost of a ``tcgen05.cp``: the shared-memory bytes it reads, at the
SM's shared-memory rate (``smem_bytes_per_cycle``, sim/timing_parameters.py), in the
tensor pipe of every CTA whose tensor memory it writes (both CTAs of a pair with
``.cta_group::2``, each reading its own shared memory: sim/tensor_core.py).

A copy of shape ``RxBb`` (9.7.16.2.3: R rows of B bits) reads R * B / 8 bytes however
many lane quarters its ``.warpx2`` / ``.warpx4`` multicast fills: a 32x128b.warpx4 copy of
scale factors reads 512 bytes (4 cycles at 128 B/cycle), a 128x256b copy 4096 (32
cycles). The cost travels with the replay's other asynchronous operations as an
``MmaCost`` of kind ``"cp"`` whose ``m`` and ``n`` are the rows and the bits per row
(``record``), so that the step's serialized form keeps it (sim/timing/recording.py).
"""

from __future__ import annotations

import re

from tcgen05_lower.sim.timing_parameters import MmaCost, param

#: The kind of an ``MmaCost`` that describes a copy.
KIND = "cp"
_SHAPE = re.compile(r"^(\d+)x(\d+)b$")


def record(op) -> MmaCost | None:
    """The cost record of the simulator's copy operation `op` (tensor_core.CopyOp: its
    shape, and the CTAs whose tensor memory it writes), or None for another operation."""
    match = _SHAPE.match(getattr(op, "shape", "") or "")
    if op.kind != KIND or match is None:
        return None
    ctas = len(op.footprint.tmem_writes) or 1
    return MmaCost(KIND, int(match.group(1)), int(match.group(2)), ctas)


def copy_bytes(cost: MmaCost) -> int:
    """The shared-memory bytes a copy reads in each CTA: rows times bits per row / 8."""
    return cost.m * cost.n // 8


def cycles(cost: MmaCost, overrides: dict | None = None) -> float:
    """The copy's time in the tensor pipe of each CTA it writes: its bytes at the SM's
    shared-memory rate."""
    return copy_bytes(cost) / param("smem_bytes_per_cycle", overrides)
