"""The timing model's cost of tcgen05.cp (tcgen05_lower/sim/copy_cost.py): the
shared-memory bytes of the copy's shape (9.7.16.2.3: R rows of B bits, R * B / 8 bytes)
at smem_bytes_per_cycle (128 B/cycle, sim/timing_parameters.py), in the tensor pipe of
each CTA it writes. Expected values by hand from those two figures; before this, every
copy took 4096 / 128 = 32 cycles in the issuing CTA's pipe only."""

from __future__ import annotations

import numpy as np
import pytest

from tcgen05_lower.sim import copy_cost
from tcgen05_lower.sim import tensor_core as tc
from tcgen05_lower.sim.state import Address
from tcgen05_lower.sim.timing import ClusterTrace, Step, replay, single_warp

#: A K-major no-swizzle descriptor at shared address 0 (Table 40: LBO 512, SBO 128).
DESC = (512 >> 4) << 16 | (128 >> 4) << 32 | 1 << 46


@pytest.mark.parametrize("form, rows, bits, ctas, cycles", [
    ("tcgen05.cp.cta_group::1.32x128b.warpx4", 32, 128, 1, 512 / 128),
    ("tcgen05.cp.cta_group::1.128x256b", 128, 256, 1, 4096 / 128),
    ("tcgen05.cp.cta_group::2.32x128b.warpx4", 32, 128, 2, 512 / 128),
])
def test_a_copy_costs_its_bytes_at_the_shared_memory_rate(form, rows, bits, ctas, cycles):
    op = tc.issue_async(form, [Address(0), DESC], 0, 2)
    cost = copy_cost.record(op)
    assert (cost.kind, cost.m, cost.n, cost.cta_group) == ("cp", rows, bits, ctas)
    assert copy_cost.copy_bytes(cost) == rows * bits // 8
    assert copy_cost.cycles(cost) == cycles


def test_a_pair_copy_occupies_both_ctas_tensor_pipes():
    """Two 32x128b copies of scale factors (4 cycles each): in a pair, 8 cycles of each
    CTA's pipe, 16 summed; for one CTA, 8."""
    one = copy_cost.record(tc.issue_async("tcgen05.cp.cta_group::1.32x128b.warpx4",
                                          [Address(0), DESC], 0, 1))
    two = copy_cost.record(tc.issue_async("tcgen05.cp.cta_group::2.32x128b.warpx4",
                                          [Address(0), DESC], 0, 2))
    single = replay(single_warp([Step("async", asyncs=[(0, 0, "cp", one)] * 2),
                                 Step("alu")]))
    assert single.tensor_busy == pytest.approx(8.0)
    pair = replay(ClusterTrace(1, 2, [[Step("async", asyncs=[(0, 0, "cp", two)] * 2)], []]))
    assert pair.tensor_busy == pytest.approx(16.0)
    assert np.isfinite(pair.cycles)
