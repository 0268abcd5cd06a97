"""strategy=minimal against strategy=conservative on every example and corpus kernel: both
produce programs that tcgen05-verify-sync accepts, and minimal never adds more sync ops
than conservative (the counts benchmarks/sync/REPORT.md lists)."""

from __future__ import annotations

import pytest

from test_sync_common import kernel_id, kernel_paths, plan, verify

KERNELS = kernel_paths()


@pytest.mark.parametrize("path", KERNELS, ids=[kernel_id(p) for p in KERNELS])
def test_minimal_never_adds_more_than_conservative(path):
    minimal = plan(path, "minimal")
    conservative = plan(path, "conservative")
    assert verify(minimal.text, minimal.source_name) == []
    assert verify(conservative.text, conservative.source_name) == []
    for name, counts in minimal.counts.items():
        assert counts["total"] <= conservative.counts[name]["total"], (name, counts,
                                                                       conservative.counts[name])


def test_conservative_completes_every_async_op():
    # The definition of the strategy, on the K loop example: each of the 4 MMAs of the
    # body gets its own commit and wait, each of the 2 fills a proxy fence (and a barrier),
    # the epilogue's load a wait::ld.
    path = next(p for p in KERNELS if p.name == "gemm_bf16_kloop.mlir")
    counts = plan(path, "conservative").counts["gemm_bf16_kloop"]
    assert counts["commit"] == 4 and counts["mbarrier_wait"] == 4
    assert counts["fence.proxy.async"] == 2
    assert counts["wait::ld"] == 1
